/**
 * zod → JSON Schema for the generated documents (OpenAPI, OpenRPC) and the MCP tools. A recursive
 * schema comes with local `definitions`; they are moved to the document's `components.schemas`
 * under unique names and the `$ref`s rewritten, so every document shares one place for them.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** Shared schemas of one document (`components.schemas`): recursive pieces land here. */
export type Components = Record<string, JsonSchema>;

/** `openapi-3.0` for OpenAPI 3.0.3; `draft-7` for OpenRPC and MCP (both take plain JSON Schema). */
export type SchemaTarget = 'openapi-3.0' | 'draft-7';

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components, target: SchemaTarget = 'openapi-3.0'): JsonSchema {
  const raw = withoutEmptyItems(z.toJSONSchema(schema, { target, io, unrepresentable: 'any' }));
  const out = (target === 'openapi-3.0' ? withNullInNullableEnums(raw) : raw) as JsonSchema;
  delete out.$schema;
  const definitions = (out.definitions ?? out.$defs) as Record<string, JsonSchema> | undefined;
  if (!definitions) return out;
  delete out.definitions;
  delete out.$defs;
  const renamed = new Map<string, string>();
  for (const name of Object.keys(definitions)) renamed.set(name, `S${Object.keys(components).length + renamed.size}`);
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const local = key === '$ref' && typeof item === 'string' ? /^#\/(?:definitions|\$defs)\/(.+)$/.exec(item)?.[1] : undefined;
        return [key, local === undefined ? rewrite(item) : `#/components/schemas/${renamed.get(local) ?? local}`];
      }),
    );
  };
  for (const [name, definition] of Object.entries(definitions)) components[renamed.get(name) ?? name] = rewrite(definition) as JsonSchema;
  return rewrite(out) as JsonSchema;
}

/**
 * An empty tuple (`[]` params) comes out as `items: { anyOf: [] }`, a schema nothing matches that
 * some tools reject: `maxItems: 0` already says it, so the `items` go.
 */
function withoutEmptyItems(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmptyItems);
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([key, item]) => {
    const anyOf = key === 'items' && item && typeof item === 'object' ? (item as { anyOf?: unknown }).anyOf : undefined;
    return !(Array.isArray(anyOf) && anyOf.length === 0);
  });
  return Object.fromEntries(entries.map(([key, item]) => [key, withoutEmptyItems(item)]));
}

/**
 * OpenAPI 3.0.3: `nullable: true` does not widen an `enum`, so a nullable enum must list `null`
 * among its values (zod writes `{ nullable: true, enum: [...] }` without it): validators following
 * the clarified 3.0.3 text refuse a null otherwise.
 */
function withNullInNullableEnums(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withNullInNullableEnums);
  if (!value || typeof value !== 'object') return value;
  const out: JsonSchema = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withNullInNullableEnums(item)]));
  const values: unknown = out.enum;
  if (out.nullable === true && Array.isArray(values) && !values.includes(null)) out.enum = [...(values as unknown[]), null];
  return out;
}
