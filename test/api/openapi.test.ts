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
    const bodies = rpc.requestBody.content['application/json'].schema.oneOf[0].oneOf as Array<{
      properties: { method: { enum: string[] } };
      'x-price-usd': number;
    }>;
    const registry = serviceRegistry();
    expect(bodies.map((b) => b.properties.method.enum[0]).sort()).toEqual([...registry.methods.keys()].sort());
    for (const body of bodies) expect(body['x-price-usd']).toBe(priceUsd(registry.methods.get(body.properties.method.enum[0] ?? '')?.price ?? 'free'));
  });

  it('behavior: links use PUBLIC_BASE_URL, never a client-supplied X-Forwarded-Host', async () => {
    const doc = await get('/openapi.json', { 'x-forwarded-host': 'attacker.example' });
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
  });
});
