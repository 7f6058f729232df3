/**
 * The MCP tools, generated from the registry: one tool per JSON REST route (but the documents,
 * which are MCP resources) and one per JSON-RPC method (but `rpc.discover`, the OpenRPC document).
 * A tool's price is its route's or method's, its input schema the route's path, query and body
 * fields in one object (a method's: its positional params by name), its output schema the answer's.
 *
 * A call becomes the HTTP request the same question asks over REST or JSON-RPC, derived only from
 * the tool and its arguments (`toolRequest`): it goes through the same validation, freshness check,
 * payment gate, ledger and rate limits, and a payment quoted for it names that request.
 */
import { z } from 'zod';
import { priceUsd, routeKey, type Registry, type RestRoute, type RpcMethod } from '../define.js';
import { methodParams } from '../shared/methodParams.js';
import type { JsonSchema } from '../shared/jsonSchema.js';

export class McpToolError extends Error {
  constructor(message: string) {
    super(`mcp: ${message}`);
    this.name = 'McpToolError';
  }
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  priceUsd: number;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** The answer is not a JSON object: the tool's structured result is `{ result: answer }`. */
  wrapped: boolean;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** What it serves: `"GET /v1/tx/:txid"` or `"rpc eth_blockNumber"` (one registry entry). */
  serves: string;
  source: { kind: 'route'; route: RestRoute; parts: Record<'params' | 'query' | 'body', string[]> } | { kind: 'method'; method: RpcMethod; names: string[] };
}

/** The HTTP request a tool call stands for. */
export interface ToolRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: string;
}

/** Self-contained draft-7 JSON Schema (MCP clients validate with it; local definitions stay local). */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** Keywords that tell a client nothing and cost every `tools/list` its size: the safe-integer bounds, a date-time's regex beside its format. */
function noise(key: string, value: unknown, schema: Record<string, unknown>): boolean {
  if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER) return true;
  return key === 'pattern' && schema.format === 'date-time';
}

/**
 * Answers may carry fields beyond their declared shape (HTTP sends the handler's object as is):
 * an output schema that forbids them would make a client refuse a good answer. Noise is dropped.
 */
function allowExtraFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(allowExtraFields);
  if (!value || typeof value !== 'object') return value;
  const schema = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k, v]) => !(k === 'additionalProperties' && v === false) && !noise(k, v, schema))
      .map(([k, v]) => [k, allowExtraFields(v)]),
  );
}

const isObjectSchema = (s: JsonSchema) => s.type === 'object';

/** The x402 PaymentRequired object a priced tool answers with before it is paid (x402 MCP transport). */
const PAYMENT_REQUIRED: JsonSchema = {
  type: 'object',
  description: 'x402 v2 PaymentRequired (isError): sign one of accepts and call again with the PaymentPayload in _meta["x402/payment"]',
  properties: {
    x402Version: { type: 'integer' },
    error: { type: 'string' },
    resource: { type: 'object' },
    accepts: { type: 'array', items: { type: 'object' } },
  },
  required: ['x402Version', 'accepts'],
};

/** A refusal or an error (isError): the REST error envelope, or a JSON-RPC error object. */
const ERROR: JsonSchema = {
  type: 'object',
  description: 'An error (isError); nothing was charged',
  properties: {
    success: { type: 'boolean', const: false },
    error: { type: 'object', properties: { code: { type: ['string', 'integer'] }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['error'],
};

/**
 * A tool's output schema: its answer, or (with `isError`) the payment request or an error. MCP
 * clients check structured content against it whatever `isError` says, so the alternatives are
 * part of it. An answer that is not an object is `{ result }`.
 */
function outputOf(schema: z.ZodType, priced: boolean, wrap: boolean): { outputSchema: JsonSchema; wrapped: boolean } {
  const { definitions, ...out } = allowExtraFields(schemaOf(schema, 'output')) as JsonSchema;
  const wrapped = wrap || !isObjectSchema(out);
  const answer = wrapped ? { type: 'object', properties: { result: out }, required: ['result'] } : out;
  return {
    outputSchema: { type: 'object', anyOf: [answer, ...(priced ? [PAYMENT_REQUIRED] : []), ERROR], ...(definitions ? { definitions } : {}) },
    wrapped,
  };
}

/** `/v1/mempool/tx/:txid/replacements` → `mempool_tx_replacements`; `/health` → `health`. */
export function toolNameOfPath(path: string): string {
  return path
    .split('/')
    .filter((part) => part !== '' && part !== 'v1' && !part.startsWith(':'))
    .join('_')
    .replace(/[^A-Za-z0-9_]/g, '_');
}

function priceText(price: number): string {
  return price === 0
    ? 'Free.'
    : `Price: ${price} USD per call, paid with x402 (the first call answers with the payment requirements; pay in _meta["x402/payment"]).`;
}

function annotations(title: string, mayBroadcast: boolean): McpTool['annotations'] {
  return { title, readOnlyHint: !mayBroadcast, destructiveHint: false, idempotentHint: !mayBroadcast, openWorldHint: true };
}

/** A route served as a tool: JSON answers only (not documents, pages, feeds, metrics or sockets). */
export function isToolRoute(route: RestRoute): boolean {
  return route.family !== 'docs' && (route.content === undefined || route.content === 'json');
}

function routeTool(route: RestRoute): McpTool {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parts: Record<'params' | 'query' | 'body', string[]> = { params: [], query: [], body: [] };
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = route[part];
    if (!schema) continue;
    const json = schemaOf(schema, 'input');
    // An optional body (`{}` or nothing) is an object schema under anyOf: its object alternative.
    const object = isObjectSchema(json) ? json : ((json.anyOf as JsonSchema[] | undefined)?.find(isObjectSchema) ?? null);
    if (!object) throw new McpToolError(`${routeKey(route)}: its ${part} is not an object`);
    for (const [name, property] of Object.entries((object.properties ?? {}) as Record<string, JsonSchema>)) {
      if (name in properties) throw new McpToolError(`${routeKey(route)}: field ${name} is in two request parts`);
      properties[name] = property;
      parts[part].push(name);
    }
    const requiredHere = (object.required ?? []) as string[];
    if (object === json || part !== 'body') required.push(...requiredHere);
  }
  const price = priceUsd(route.price);
  return {
    name: toolNameOfPath(route.path),
    title: route.summary,
    description: `${route.summary}. ${route.description ? `${route.description} ` : ''}${priceText(price)} (As ${routeKey(route)}.)`,
    priceUsd: price,
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    ...outputOf(route.response, price > 0, false),
    annotations: annotations(route.summary, route.mayBroadcast === true),
    serves: routeKey(route),
    source: { kind: 'route', route, parts },
  };
}

function methodTool(method: RpcMethod): McpTool {
  const params = methodParams(method, {});
  const price = priceUsd(method.price);
  return {
    name: method.name,
    title: method.summary,
    description: `${method.summary}. ${method.description ? `${method.description} ` : ''}${priceText(price)} (As JSON-RPC ${method.name} at POST /v1/rpc.)`,
    priceUsd: price,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      ...(params.some((p) => p.required) ? { required: params.filter((p) => p.required).map((p) => p.name) } : {}),
      additionalProperties: false,
    },
    // Always `{ result }`, as in its JSON-RPC answer.
    ...outputOf(method.result, price > 0, true),
    annotations: annotations(method.summary, method.mayBroadcast === true),
    serves: `rpc ${method.name}`,
    source: { kind: 'method', method, names: params.map((p) => p.name) },
  };
}

/** Every tool of `registry`, by name. Throws on two tools of one name (a registry change to fix). */
export function buildTools(registry: Registry): ReadonlyMap<string, McpTool> {
  const tools = new Map<string, McpTool>();
  const add = (tool: McpTool) => {
    if (tools.has(tool.name)) throw new McpToolError(`two tools named ${tool.name} (${tools.get(tool.name)?.serves} and ${tool.serves})`);
    tools.set(tool.name, tool);
  };
  for (const route of registry.routes) if (route.kind === 'rest' && isToolRoute(route)) add(routeTool(route));
  for (const method of registry.methods.values()) if (method.family !== 'docs') add(methodTool(method));
  return tools;
}

/** Arguments are an object of the tool's fields; anything else is refused before any request. */
const Args = z.record(z.string(), z.unknown());

function queryValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The request a call stands for, from the tool and its arguments only. Fields go where the route
 * reads them, in the schema's order (the same arguments always make the same request, so a paid
 * retry is recognised); an unknown field is refused here, before any payment is asked.
 */
export function toolRequest(tool: McpTool, rawArgs: unknown): ToolRequest {
  const parsed = Args.safeParse(rawArgs ?? {});
  if (!parsed.success) throw new McpToolError('arguments must be an object');
  const args = parsed.data;
  if (tool.source.kind === 'method') {
    const { names, method } = tool.source;
    const unknown = Object.keys(args).filter((k) => !names.includes(k));
    if (unknown.length) throw new McpToolError(`unknown argument ${unknown.join(', ')}; accepted: ${names.join(', ') || 'none'}`);
    const params = names.map((n) => args[n]);
    while (params.length > 0 && params[params.length - 1] === undefined) params.pop();
    return { method: 'POST', url: '/v1/rpc', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: method.name, params }) };
  }
  const { route, parts } = tool.source;
  let path = route.path;
  for (const name of parts.params) {
    const value = args[name];
    if (value === undefined) throw new McpToolError(`missing argument ${name}`);
    path = path.replace(`:${name}`, encodeURIComponent(queryValue(value)));
  }
  const known = [...parts.params, ...parts.query, ...parts.body];
  const unknown = Object.keys(args).filter((k) => !known.includes(k));
  if (unknown.length) throw new McpToolError(`unknown argument ${unknown.join(', ')}; accepted: ${known.join(', ') || 'none'}`);
  const query = new URLSearchParams();
  for (const key of parts.query) if (args[key] !== undefined) query.append(key, queryValue(args[key]));
  const url = query.size > 0 ? `${path}?${query.toString()}` : path;
  if (route.method === 'GET') return { method: 'GET', url };
  const body = Object.fromEntries(parts.body.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
  return { method: 'POST', url, body: JSON.stringify(body) };
}
