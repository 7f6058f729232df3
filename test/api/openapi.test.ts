/**
 * The OpenAPI document is generated from the registry: it validates as OpenAPI 3.0.3, lists every
 * route and every JSON-RPC method with its price, and links to the configured public URL.
 */
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { priceUsd } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

describe('GET /openapi.json', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 20, env: { PUBLIC_BASE_URL: 'https://api.example.com/' } });
  });
  afterAll(async () => world.close());

  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await world.app.inject({ method: 'GET', url, headers });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('default: a valid OpenAPI 3.0.3 document, the same at /.well-known/openapi.json', async () => {
    const doc = await get('/openapi.json');
    expect(doc.openapi).toBe('3.0.3');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(doc.info.version).toBe(pkg.version);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    expect(await get('/.well-known/openapi.json')).toEqual(doc);
  });

  it('behavior: every registered route appears with its price, and priced routes with the 402 challenge', async () => {
    const doc = await get('/openapi.json');
    const registry = serviceRegistry();
    for (const route of registry.routes) {
      const op = doc.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op['x-price-usd']).toBe(route.kind === 'rest' ? priceUsd(route.price) : 'per_call');
      // MCP tools are paid inside MCP messages, never with an HTTP 402.
      expect(op.responses['402'] !== undefined).toBe(route.price !== 'free' && route.kind !== 'mcp');
    }
    const operations = Object.values(doc.paths).reduce((n: number, methods) => n + Object.keys(methods as object).length, 0);
    expect(operations).toBe(registry.routes.length);
  });

  it('behavior: every operation with a registry example shows it: parameters, body and answer', async () => {
    const doc = await get('/openapi.json');
    for (const route of serviceRegistry().routes) {
      const op = doc.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][route.method.toLowerCase()];
      if (route.kind === 'jsonrpc') {
        const examples = op.requestBody.content['application/json'].examples;
        expect(Object.keys(examples).sort()).toEqual([...serviceRegistry().methods.keys()].sort());
        expect(examples.eth_blockNumber.value).toMatchObject({ jsonrpc: '2.0', method: 'eth_blockNumber' });
        expect(op.responses['200'].content['application/json'].examples.eth_blockNumber.value.result).toMatch(/^0x/);
        continue;
      }
      if (route.example === 'live') continue;
      const media = Object.values(op.responses['200'].content)[0] as { example?: unknown };
      expect(media.example, `${route.method} ${route.path}`).toEqual(route.example.response);
      if (route.example.body !== undefined) expect(op.requestBody.content['application/json'].example).toEqual(route.example.body);
      for (const p of op.parameters as Array<{ name: string; example?: unknown }>) expect(p.example, `${route.path} ${p.name}`).toBeDefined();
    }
  });

  it('behavior: numeric query parameters are integers, and no schema is empty', async () => {
    const doc = await get('/openapi.json');
    const blocks = doc.paths['/v1/fee-estimate'].get.parameters.find((p: { name: string }) => p.name === 'blocks');
    expect(blocks).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1008 }, example: 3 });
    const target = doc.paths['/v1/mempool/fees'].get.parameters.find((p: { name: string }) => p.name === 'target');
    expect(target.schema.type).toBe('integer');
    expect(JSON.stringify(doc)).not.toMatch(/"(anyOf|oneOf|allOf)":\[\]/);
  });

  it('behavior: POST /v1/rpc describes every JSON-RPC method with its params and price', async () => {
    const doc = await get('/openapi.json');
    const rpc = doc.paths['/v1/rpc'].post;
    expect(rpc.requestBody.content['application/json'].schema.oneOf[0]).toEqual({ $ref: '#/components/schemas/JsonRpcRequest' });
    const bodies = doc.components.schemas.JsonRpcRequest.oneOf as Array<{
      properties: { method: { enum: string[] } };
      'x-price-usd': number;
    }>;
    const registry = serviceRegistry();
    expect(bodies.map((b) => b.properties.method.enum[0]).sort()).toEqual([...registry.methods.keys()].sort());
    for (const body of bodies) expect(body['x-price-usd']).toBe(priceUsd(registry.methods.get(body.properties.method.enum[0] ?? '')?.price ?? 'free'));
  });

  it('behavior: request and challenge schemas carry the specification names, referenced by their operations', async () => {
    const doc = await get('/openapi.json');
    const body = (path: string) => doc.paths[path].post.requestBody;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const schemaOf = (path: string) => body(path).content['application/json'].schema;
    expect(schemaOf('/v1/template/check')).toEqual(ref('TxidRequest'));
    // The bump plan takes a TxidRequest, or one widened by targetSatVb.
    expect(schemaOf('/v1/template/bump-plan').anyOf).toEqual([ref('TxidRequest'), ref('BumpPlanRequest')]);
    expect(schemaOf('/v1/template/batch-check')).toEqual(ref('BatchTxidRequest'));
    expect(schemaOf('/v1/template/fee-ladder')).toEqual(ref('TargetBlocksRequest'));
    expect(schemaOf('/v1/bitcoin/insight')).toEqual(ref('BitcoinInsightRequest'));
    expect(schemaOf('/v1/rpc').oneOf).toEqual([ref('JsonRpcRequest'), { type: 'array', items: ref('JsonRpcRequest'), minItems: 1 }]);
    const schemas = doc.components.schemas;
    expect(schemas.TxidRequest).toMatchObject({ required: ['txid'], additionalProperties: false, properties: { txid: { pattern: '^[0-9a-fA-F]{64}$' } } });
    expect(schemas.BatchTxidRequest).toMatchObject({ required: ['txids'], properties: { txids: { type: 'array', minItems: 1, maxItems: 10 } } });
    expect(schemas.TargetBlocksRequest).toMatchObject({ properties: { targetBlocks: { type: 'integer', minimum: 1, default: 6 } } });
    expect(schemas.BitcoinInsightRequest.properties.action.enum).toEqual(['analyze', 'broadcast_signed_replacement']);
    // Every priced route's 402 answer is the X402PaymentChallenge.
    expect(doc.paths['/v1/block-height'].get.responses['402'].content['application/json'].schema).toEqual(ref('X402PaymentChallenge'));
    expect(schemas.PaymentChallenge).toBeUndefined();
    expect(schemas.X402PaymentChallenge.properties.accepts.items.required).toEqual(['scheme', 'network', 'amount', 'asset', 'payTo']);
  });

  it('behavior: optional bodies and JSON-RPC params are optional', async () => {
    const doc = await get('/openapi.json');
    expect(doc.paths['/v1/template/fee-ladder'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/template/optimized-txids'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/template/check'].post.requestBody.required).toBe(true);
    for (const call of doc.components.schemas.JsonRpcRequest.oneOf as Array<{ required: string[] }>) expect(call.required).toEqual(['jsonrpc', 'method']);
    // What the document calls optional, the service takes: a fee ladder without a body, a call without params.
    // (Input is checked before the cache and the payment: a body it refuses is a 400.)
    const ladder = await world.app.inject({ method: 'POST', url: '/v1/template/fee-ladder' });
    expect(ladder.statusCode).not.toBe(400);
    const refused = await world.app.inject({ method: 'POST', url: '/v1/template/fee-ladder', payload: { targetBlocks: 0 } });
    expect(refused.statusCode).toBe(400);
    const rpc = await world.app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } });
    expect(rpc.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^0x/) });
  });

  it("behavior: a nullable enum lists null among its values (OpenAPI 3.0.3), so /health's breaker: null validates", async () => {
    const doc = await get('/openapi.json');
    const nullableEnums: unknown[][] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (!value || typeof value !== 'object') return;
      const schema = value as { nullable?: unknown; enum?: unknown };
      if (schema.nullable === true && Array.isArray(schema.enum)) nullableEnums.push(schema.enum);
      Object.values(value).forEach(walk);
    };
    walk(doc);
    expect(nullableEnums.length).toBeGreaterThan(0);
    for (const values of nullableEnums) expect(values).toContain(null);
    expect(JSON.stringify(doc)).toContain('"breaker":{"nullable":true,"type":"string","enum":["closed","open","half-open",null]}');
  });

  it('behavior: links use PUBLIC_BASE_URL, never a client-supplied X-Forwarded-Host', async () => {
    const doc = await get('/openapi.json', { 'x-forwarded-host': 'attacker.example' });
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
  });
});
