/**
 * The OpenAPI 3.0.3 document of the service, generated from the registry: every REST route with
 * its parameters, body and answer schemas (zod → JSON Schema), its price (`x-price-usd`) and, for a
 * priced route, the 402 challenge; `POST /v1/rpc` with one request body per JSON-RPC method
 * (`oneOf`, each with its price in `x-price-usd`). Never hand-kept: a route added to the registry
 * appears here at once.
 */
import type { z } from 'zod';

import { CONTENT_TYPES, priceUsd, type Registry, type Route, type RpcMethod } from '../define.js';
import { specNameOf } from '../specNames.js';
import { API_VERSION, OPENRPC_PATH } from '../shared/serviceFacts.js';
import { jsonSchema, type Components, type JsonSchema } from '../shared/jsonSchema.js';

type Schema = z.ZodType;

export const OPENAPI_VERSION = '3.0.3' as const;

/** `:name` segments → `{name}` (OpenAPI path templates). */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Path or query parameters with their example value. A query number arrives as a digits-only
 * string and is parsed to an integer: it is described as the integer it is (bounds and default
 * included), since a query string carries no type of its own.
 */
function parameters(schema: Schema | undefined, where: 'path' | 'query', components: Components, example: unknown): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input', components);
  const parsed = (jsonSchema(schema, 'output', components).properties ?? {}) as Record<string, JsonSchema>;
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  const examples = (example && typeof example === 'object' ? example : {}) as Record<string, unknown>;
  return Object.entries(properties).map(([name, property]) => {
    const integer = property.type === 'string' && parsed[name]?.type === 'integer' ? parsed[name] : undefined;
    const value = examples[name];
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      schema: integer ?? property,
      ...(value === undefined ? {} : { example: integer && typeof value === 'string' ? Number(value) : value }),
    };
  });
}

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message', 'docs'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        docs: { type: 'string', description: 'Path of the catalogue of error codes (status, meaning, what to do) on this service' },
      },
    },
  },
};

/** The 402 body, under the specification's name `X402PaymentChallenge`. */
const CHALLENGE: JsonSchema = {
  type: 'object',
  description: 'x402 v2 payment challenge (also in the PAYMENT-REQUIRED header, base64 JSON). Pay and repeat the request with a PAYMENT-SIGNATURE header.',
  required: ['x402Version', 'accepts'],
  properties: {
    x402Version: { type: 'integer' },
    error: { type: 'string' },
    resource: { type: 'object' },
    accepts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['scheme', 'network', 'amount', 'asset', 'payTo'],
        properties: {
          scheme: { type: 'string' },
          network: { type: 'string' },
          amount: { type: 'string', description: 'Atomic units of the stablecoin (1000 for a 0.001 USD price at 6 decimals)' },
          asset: { type: 'string' },
          payTo: { type: 'string' },
        },
      },
    },
  },
};

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The specification's name of the JSON-RPC envelope (`POST /v1/rpc`). */
const JSON_RPC_REQUEST = 'JsonRpcRequest';

/**
 * A request body under the specification's name (`components.schemas`), referenced by `$ref`; a
 * body that widens a named one accepts either. Unnamed bodies stay inline.
 */
function bodySchema(body: Schema, components: Components): JsonSchema {
  const schema = jsonSchema(body, 'input', components);
  const named = specNameOf(body);
  if (!named) return schema;
  components[named.specName] = schema;
  return named.extends === undefined ? ref(named.specName) : { anyOf: [ref(named.extends), ref(named.specName)] };
}

function responses(route: Route, ok: JsonSchema, baseUrl: string, example: JsonSchema = {}): JsonSchema {
  const media = CONTENT_TYPES[route.content ?? 'json'].split(';')[0] ?? 'application/json';
  const out: JsonSchema = { '200': { description: 'Success', content: { [media]: { schema: ok, ...example } } } };
  // An MCP tool's payment travels inside MCP messages (x402 MCP transport): never an HTTP 402.
  if (route.price !== 'free' && route.kind !== 'mcp')
    out['402'] = { description: 'Payment required (x402 v2)', content: { 'application/json': { schema: ref('X402PaymentChallenge') } } };
  out.default = {
    description: `Error${route.errors.length > 0 ? ` (${route.errors.join(', ')})` : ''}: every code with its status and what to do at ${baseUrl}/docs/errors.md; 503 answers carry Retry-After`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return out;
}

function rpcRequest(method: RpcMethod, components: Components): JsonSchema {
  return {
    type: 'object',
    title: method.name,
    description: method.summary,
    'x-price-usd': priceUsd(method.price),
    // `params` may be omitted: it defaults to `[]`.
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      id: { oneOf: [{ type: 'string' }, { type: 'number' }], nullable: true },
      method: { type: 'string', enum: [method.name] },
      params: jsonSchema(method.params, 'input', components),
    },
  };
}

/** The example of a JSON-RPC method as request and answer envelopes. */
function rpcExamples(methods: RpcMethod[]): { request: JsonSchema; response: JsonSchema } {
  const request: JsonSchema = {};
  const response: JsonSchema = {};
  for (const m of methods) {
    request[m.name] = { summary: m.summary, value: { jsonrpc: '2.0', id: 1, method: m.name, params: m.example.params } };
    response[m.name] = { summary: m.summary, value: { jsonrpc: '2.0', id: 1, result: m.example.result } };
  }
  return { request, response };
}

/** The OpenAPI operation of a route: its parameters, body and answers, each with the registry's example. */
function operation(route: Route, registry: Registry, components: Components, baseUrl: string): JsonSchema {
  const example = route.example === 'live' ? undefined : route.example;
  const documentName = /\bdocs\/([a-z-]+)\.md\b/.exec(route.description ?? '')?.[1];
  const op: JsonSchema = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.family],
    'x-price-usd': route.kind === 'rest' ? priceUsd(route.price) : 'per_call',
    ...(documentName ? { externalDocs: { url: `${baseUrl}/docs/${documentName}.md` } } : {}),
    parameters: [...parameters(route.params, 'path', components, example?.params), ...parameters(route.query, 'query', components, example?.query)],
  };
  if (route.kind === 'jsonrpc') {
    const methods = [...registry.methods.values()];
    components[JSON_RPC_REQUEST] = { oneOf: methods.map((m) => rpcRequest(m, components)) };
    const one = ref(JSON_RPC_REQUEST);
    const examples = rpcExamples(methods);
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: { oneOf: [one, { type: 'array', items: one, minItems: 1 }] }, examples: examples.request } },
    };
    op['x-rpc-methods'] = Object.fromEntries(
      methods.map((m) => [m.name, { priceUsd: priceUsd(m.price), summary: m.summary, result: jsonSchema(m.result, 'output', components) }]),
    );
    op.responses = responses(route, { type: 'object', description: 'JSON-RPC 2.0 response (or an array of them for a batch)' }, baseUrl, {
      examples: examples.response,
    });
    // The methods' own description, for JSON-RPC tooling (also the free method `rpc.discover`).
    op.externalDocs = { description: 'OpenRPC 1.2.6 document of every JSON-RPC method', url: `${baseUrl}${OPENRPC_PATH}` };
    return op;
  }
  if (route.body) {
    const body = example?.body === undefined ? {} : { example: example.body };
    // A body that parses when absent (fee ladder, optimized txids) is optional.
    const required = !route.body.safeParse(undefined).success;
    op.requestBody = { required, content: { 'application/json': { schema: bodySchema(route.body, components), ...body } } };
  }
  const json = route.content === undefined || route.content === 'json';
  op.responses = responses(
    route,
    json ? jsonSchema(route.response, 'output', components) : { type: 'string' },
    baseUrl,
    example ? { example: example.response } : {},
  );
  return op;
}

export type OpenApiDocument = {
  openapi: typeof OPENAPI_VERSION;
  info: { title: string; version: string; description: string };
  externalDocs: { description: string; url: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema> };
};

/** The OpenAPI document for `registry`, served at `baseUrl`. */
export function buildOpenApi(registry: Registry, baseUrl: string): OpenApiDocument {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const shared: Components = {};
  for (const route of registry.routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, registry, shared, baseUrl) };
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Bitcoin data and fee-intelligence API',
      version: API_VERSION,
      description:
        'Pay-per-request Bitcoin data, fee intelligence and block-template optimization, as REST and as EVM-style JSON-RPC. Paid with x402 v2; non-custodial.',
    },
    externalDocs: { description: 'How to pay, and every route and method with an example', url: `${baseUrl}/llms-full.txt` },
    servers: [{ url: baseUrl }],
    paths,
    components: { schemas: { ...shared, Error: ERROR_ENVELOPE, X402PaymentChallenge: CHALLENGE } },
  };
}
