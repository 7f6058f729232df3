/**
 * The OpenAPI 3.0.3 document of the service, generated from the registry: every REST route with
 * its parameters, body and answer schemas (zod → JSON Schema), its price (`x-price-usd`) and, for a
 * priced route, the 402 challenge; `POST /v1/rpc` with one request body per JSON-RPC method
 * (`oneOf`, each with its price in `x-price-usd`). Never hand-kept: a route added to the registry
 * appears here at once.
 */
import type { z } from 'zod';

import { CONTENT_TYPES, priceUsd, type Registry, type Route, type RpcMethod } from '../define.js';
import { API_VERSION, OPENRPC_PATH } from './agentDocs.js';
import { jsonSchema, type Components, type JsonSchema } from './jsonSchema.js';

type Schema = z.ZodType;

export const OPENAPI_VERSION = '3.0.3' as const;

/** `:name` segments → `{name}` (OpenAPI path templates). */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(schema: Schema | undefined, where: 'path' | 'query', components: Components): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input', components);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: where, required: where === 'path' || required.has(name), schema: property }));
}

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
};

const CHALLENGE: JsonSchema = {
  type: 'object',
  description: 'x402 v2 payment challenge (also in the PAYMENT-REQUIRED header, base64 JSON). Pay and repeat the request with a PAYMENT-SIGNATURE header.',
  required: ['x402Version', 'accepts'],
  properties: {
    x402Version: { type: 'integer' },
    error: { type: 'string' },
    resource: { type: 'object' },
    accepts: { type: 'array', items: { type: 'object' } },
  },
};

function responses(route: Route, ok: JsonSchema): JsonSchema {
  const media = CONTENT_TYPES[route.content ?? 'json'].split(';')[0] ?? 'application/json';
  const out: JsonSchema = { '200': { description: 'Success', content: { [media]: { schema: ok } } } };
  // An MCP tool's payment travels inside MCP messages (x402 MCP transport): never an HTTP 402.
  if (route.price !== 'free' && route.kind !== 'mcp')
    out['402'] = { description: 'Payment required (x402 v2)', content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentChallenge' } } } };
  out.default = {
    description: `Error (${route.errors.join(', ') || 'see docs/errors.md'}); 503 answers carry Retry-After`,
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
    required: ['jsonrpc', 'method', 'params'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      id: { oneOf: [{ type: 'string' }, { type: 'number' }], nullable: true },
      method: { type: 'string', enum: [method.name] },
      params: jsonSchema(method.params, 'input', components),
    },
  };
}

function operation(route: Route, registry: Registry, components: Components, baseUrl: string): JsonSchema {
  const op: JsonSchema = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.family],
    'x-price-usd': route.kind === 'rest' ? priceUsd(route.price) : 'per_call',
    parameters: [...parameters(route.params, 'path', components), ...parameters(route.query, 'query', components)],
  };
  if (route.kind === 'jsonrpc') {
    const methods = [...registry.methods.values()];
    const one = { oneOf: methods.map((m) => rpcRequest(m, components)) };
    op.requestBody = { required: true, content: { 'application/json': { schema: { oneOf: [one, { type: 'array', items: one, minItems: 1 }] } } } };
    op['x-rpc-methods'] = Object.fromEntries(
      methods.map((m) => [m.name, { priceUsd: priceUsd(m.price), summary: m.summary, result: jsonSchema(m.result, 'output', components) }]),
    );
    op.responses = responses(route, { type: 'object', description: 'JSON-RPC 2.0 response (or an array of them for a batch)' });
    // The methods' own description, for JSON-RPC tooling (also the free method `rpc.discover`).
    op.externalDocs = { description: 'OpenRPC 1.2.6 document of every JSON-RPC method', url: `${baseUrl}${OPENRPC_PATH}` };
    return op;
  }
  if (route.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input', components) } } };
  const json = route.content === undefined || route.content === 'json';
  op.responses = responses(route, json ? jsonSchema(route.response, 'output', components) : { type: 'string' });
  return op;
}

export type OpenApiDocument = {
  openapi: typeof OPENAPI_VERSION;
  info: { title: string; version: string; description: string };
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
    servers: [{ url: baseUrl }],
    paths,
    components: { schemas: { ...shared, Error: ERROR_ENVELOPE, PaymentChallenge: CHALLENGE } },
  };
}
