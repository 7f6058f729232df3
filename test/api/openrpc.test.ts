/**
 * The OpenRPC document of the JSON-RPC methods, generated from the registry: valid under the
 * OpenRPC project's own validator, the same at GET /openrpc.json and by `rpc.discover`, listing
 * every registry method with its price, errors and an example its own param schemas accept; a
 * generic OpenRPC client (@open-rpc/client-js) calls a method at the server it names.
 */
import { Client, HTTPTransport, RequestManager } from '@open-rpc/client-js';
import { MethodCallValidator, validateOpenRPCDocument } from '@open-rpc/schema-utils-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { priceUsd } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

type OpenRpcMethod = {
  name: string;
  params: Array<{ name: string; required?: boolean }>;
  errors: Array<{ code: number; message: string }>;
  examples: Array<{ params: Array<{ name: string; value: unknown }>; result: { value: unknown } }>;
  'x-price-usd': number;
};
type OpenRpcDoc = { openrpc: string; servers: Array<{ url: string }>; methods: OpenRpcMethod[] };

describe('OpenRPC: GET /openrpc.json and rpc.discover', () => {
  let world: TestWorld;
  let base: string;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 20 });
    base = await world.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => world.close());

  const document = async (): Promise<OpenRpcDoc> => {
    const res = await fetch(`${base}/openrpc.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    return (await res.json()) as OpenRpcDoc;
  };

  it('default: a valid OpenRPC 1.2.6 document under the OpenRPC validator', async () => {
    const doc = await document();
    expect(doc.openrpc).toBe('1.2.6');
    expect(validateOpenRPCDocument(structuredClone(doc) as never)).toBe(true);
    expect(doc.servers).toEqual([{ name: 'JSON-RPC 2.0 over HTTP POST', url: `${base}/v1/rpc` }]);
  });

  it('behavior: rpc.discover answers the same document, for free', async () => {
    const doc = await document();
    const res = await fetch(`${base}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rpc.discover' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: doc });
    expect(serviceRegistry().methods.get('rpc.discover')?.price).toBe('free');
  });

  it('behavior: every registry method is in it once, with its price, errors and an example its own params accept', async () => {
    const doc = await document();
    const registry = serviceRegistry();
    expect(doc.methods.map((m) => m.name).sort()).toEqual([...registry.methods.keys()].sort());
    const validator = new MethodCallValidator(structuredClone(doc) as never);
    for (const method of doc.methods) {
      const declared = registry.methods.get(method.name);
      expect(method['x-price-usd'], method.name).toBe(priceUsd(declared?.price ?? 'free'));
      expect(
        method.errors.map((e) => e.code),
        method.name,
      ).toContain(-32602);
      for (const code of declared?.errors ?? [])
        expect(
          method.errors.some((e) => e.message === code || e.code === -32602),
          `${method.name} ${code}`,
        ).toBe(true);
      const [example] = method.examples;
      expect(example, method.name).toBeDefined();
      expect(example?.result.value).toEqual(declared?.example.result);
      const params = example?.params.map((p) => p.value) ?? [];
      expect(params).toEqual(declared?.example.params);
      expect(validator.validate(method.name, params), method.name).toEqual([]);
    }
    // Named positions where the registry names them; a lone object param is `request`.
    expect(doc.methods.find((m) => m.name === 'eth_getBalance')?.params).toMatchObject([
      { name: 'address', required: true },
      { name: 'block', required: false },
    ]);
    expect(doc.methods.find((m) => m.name === 'svc_templateCheck')?.params).toMatchObject([{ name: 'request', required: true }]);
  });

  it('behavior: a generic OpenRPC client calls a method at the server the document names', async () => {
    const doc = await document();
    const url = doc.servers[0]?.url ?? '';
    const client = new Client(new RequestManager([new HTTPTransport(url)]));
    const height = await world.node.getBlockCount();
    expect(await client.request({ method: 'eth_blockNumber', params: [] })).toBe(`0x${height.toString(16)}`);
    client.close();
  });

  it('behavior: OpenAPI links POST /v1/rpc to it; llms.txt, AGENTS.md and the sitemaps list it', async () => {
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { externalDocs?: { url: string } }>> };
    expect(openapi.paths['/v1/rpc']?.post?.externalDocs?.url).toBe(`${base}/openrpc.json`);
    for (const path of ['/llms.txt', '/AGENTS.md', '/sitemap.xml', '/sitemap.md']) {
      const text = await (await fetch(`${base}${path}`)).text();
      expect(text, path).toContain(`${base}/openrpc.json`);
    }
  });
});
