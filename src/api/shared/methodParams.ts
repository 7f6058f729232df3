/**
 * A JSON-RPC method's positional params, named: OpenRPC's content descriptors (`docs/openrpc.ts`)
 * and the MCP tools' argument names (`mcp/tools.ts`) are the same list.
 */
import type { RpcMethod } from '../define.js';
import { jsonSchema, type Components, type JsonSchema } from './jsonSchema.js';

export type ContentDescriptor = {
  name: string;
  required?: boolean;
  schema: JsonSchema;
};

/**
 * The positions of a `params` schema: a tuple, or a union of tuples (optional trailing params).
 * A position is required when every alternative has it.
 */
function positions(params: JsonSchema): { items: JsonSchema[]; required: number } {
  const alternatives = (Array.isArray(params.anyOf) ? params.anyOf : [params]) as JsonSchema[];
  let items: JsonSchema[] = [];
  let required = Number.POSITIVE_INFINITY;
  for (const alt of alternatives) {
    const altItems = Array.isArray(alt.items) ? (alt.items as JsonSchema[]) : [];
    if (altItems.length > items.length) items = altItems;
    required = Math.min(required, typeof alt.minItems === 'number' ? alt.minItems : altItems.length);
  }
  return { items, required: Number.isFinite(required) ? required : 0 };
}

/** The declared names, else `request` for one object param, else `param1`, `param2`, …. */
export function paramNames(method: RpcMethod, items: readonly JsonSchema[]): string[] {
  return items.map((item, i) => method.paramNames?.[i] ?? (items.length === 1 && item.type === 'object' ? 'request' : `param${i + 1}`));
}

/** Each method's params as OpenRPC content descriptors (also the MCP tools' argument names). */
export function methodParams(method: RpcMethod, components: Components): ContentDescriptor[] {
  const { items, required } = positions(jsonSchema(method.params, 'input', components, 'draft-7'));
  const names = paramNames(method, items);
  return items.map((schema, i) => ({ name: names[i] ?? `param${i + 1}`, required: i < required, schema }));
}
