/**
 * The registry is the one list of what is served and sold: fastify's routes, capabilities, the
 * README and the payment gate are checked against it, both ways.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRpcMethod, priceUsd, routeKey, type Registry, type RpcMethod } from '../../src/api/define.js';
import { replaceBetweenMarkers, restRouteTable, rpcMethodTable } from '../../src/api/docs/markdownTables.js';
import { buildRegistry, RegistryError, serviceRegistry } from '../../src/api/registry.js';
import { paymentsPlugin } from '../../src/payments/plugin.js';
import { first } from '../helpers/first.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const registry: Registry = serviceRegistry();
let world: TestWorld;
let address: string;

beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 200, seed: 11, env: { PAYMENTS_ENABLED: 'true' } });
  await refresh(world);
  ({ address } = first(await world.simnet.control.walletAddresses()));
});
afterAll(() => world?.close());

/** `"METHOD /path"` of every route fastify serves, from its route tree (HEAD only where exposed). */
function servedRoutes(): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of world.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + (m[2] ?? '');
    stack[depth] = path;
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) out.push(`${method} ${path}`);
  }
  return out.sort();
}

describe('the registry', () => {
  it('default: fastify serves exactly the registry routes (HEAD only on free GET routes that are not a live feed)', () => {
    const expected = registry.routes.flatMap((r) => {
      const head =
        r.kind === 'rest' && r.method === 'GET' && r.price === 'free' && r.content !== 'eventStream' && r.content !== 'websocket' ? [`HEAD ${r.path}`] : [];
      return [routeKey(r), ...head];
    });
    // Besides: CORS preflights (`OPTIONS *`), answered by @fastify/cors for every path.
    expect(servedRoutes()).toEqual([...expected, 'OPTIONS *'].sort());
  });

  it('behavior: capabilities lists exactly the registry routes, methods and prices', async () => {
    const caps = (await world.app.inject({ method: 'GET', url: '/v1/template/capabilities' })).json();
    const rest = caps.rest.endpoints.map((e: { method: string; path: string; priceUsd: number | null }) => `${e.method} ${e.path} ${e.priceUsd}`);
    expect(rest.sort()).toEqual(registry.routes.map((r) => `${routeKey(r)} ${r.kind === 'rest' ? priceUsd(r.price) : null}`).sort());
    const methods = caps.jsonRpc.methods.map((m: { method: string; priceUsd: number }) => `${m.method} ${m.priceUsd}`);
    expect(methods.sort()).toEqual([...registry.methods.values()].map((m) => `${m.name} ${priceUsd(m.price)}`).sort());
    const priced = caps.pricingUsdc.flatMap((row: { price: string; routes: string[] }) => row.routes.map((r) => `${r} ${row.price}`));
    const expected = [
      ...registry.routes.flatMap((r) => (r.kind === 'rest' ? [`${routeKey(r)} ${priceUsd(r.price)}`] : [])),
      ...[...registry.methods.values()].map((m) => `POST /v1/rpc ${m.name} ${priceUsd(m.price)}`),
    ];
    expect(priced.sort()).toEqual(expected.sort());
  });

  it('behavior: every priced route answers 402 unpaid, every free one answers without payment', async () => {
    const txid = first(world.app.optimizer.service.cache?.optimized.txids ?? [], 'optimized template');
    for (const route of registry.routes) {
      if (route.kind !== 'rest') continue;
      const url = route.path.replace(':txid', txid).replace(':address', address);
      const example: { query?: unknown; body?: unknown } = route.example === 'live' ? {} : route.example;
      const query = example.query ? `?${new URLSearchParams(example.query as Record<string, string>).toString()}` : '';
      // The examples' txids are made up: a txid the node does not know is a free 404 (TX_NOT_FOUND), so ask about a real one.
      const body = route.method === 'POST' ? (withTxid(example.body ?? {}, txid) as object) : undefined;
      // A live feed never ends: take its headers and let go.
      const live = route.content === 'eventStream';
      const res = await world.app.inject({ method: route.method, url: url + query, payloadAsStream: live, ...(body === undefined ? {} : { payload: body }) });
      if (live) res.stream().destroy();
      // A WebSocket asked as plain HTTP: 426, for free (its payment is the ticket).
      if (route.content === 'websocket') expect(res.statusCode, routeKey(route)).toBe(426);
      else if (route.price === 'free') expect(res.statusCode, routeKey(route)).toBe(200);
      else {
        expect(res.statusCode, routeKey(route)).toBe(402);
        expect(res.json().accepts[0].amount).toBe(String(Math.round(route.price * 1e6)));
      }
    }
  });

  it('behavior: a JSON-RPC call of every priced method is quoted at its price; free methods answer unpaid', async () => {
    const txid = first(world.app.optimizer.service.cache?.optimized.txids ?? [], 'optimized template');
    for (const method of registry.methods.values()) {
      const params = Array.isArray(method.example.params) ? method.example.params.map((p: unknown) => withTxid(p, txid)) : method.example.params;
      const res = await world.app.inject({
        method: 'POST',
        url: '/v1/rpc',
        payload: { jsonrpc: '2.0', id: 1, method: method.name, params },
      });
      if (method.price === 'free') expect(res.statusCode, method.name).toBe(200);
      else if (res.statusCode !== 200) {
        expect(res.statusCode, method.name).toBe(402);
        expect(res.json().accepts[0].amount).toBe(String(Math.round(method.price * 1e6)));
      } else if (method.isAbsent) {
        // The example's txid is unknown here: answered null before payment, free.
        expect(res.json(), method.name).toMatchObject({ result: null });
      } else {
        // Only a call that cannot succeed (the example's mainnet address on this regtest node) is answered free.
        expect(res.json().error.code, method.name).toBe(-32602);
      }
    }
  });

  it('behavior: every example matches its declared schemas', () => {
    for (const route of registry.routes) {
      if (route.example === 'live') continue;
      const key = routeKey(route);
      if (route.params) expect(route.params.safeParse(route.example.params).success, `${key} params`).toBe(true);
      if (route.query) expect(route.query.safeParse(route.example.query).success, `${key} query`).toBe(true);
      if (route.body) expect(route.body.safeParse(route.example.body).success, `${key} body`).toBe(true);
      const answer = route.response.safeParse(route.example.response);
      expect(answer.success, `${key} response: ${answer.error?.message}`).toBe(true);
    }
    for (const method of registry.methods.values()) {
      expect(method.params.safeParse(method.example.params).success, `${method.name} params`).toBe(true);
      expect(method.result.safeParse(method.example.result).success, `${method.name} result`).toBe(true);
    }
  });

  it('behavior: the README route and method tables are the registry (npm run docs:routes)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const expected = replaceBetweenMarkers(replaceBetweenMarkers(readme, 'routes', restRouteTable(registry)), 'rpc-methods', rpcMethodTable(registry));
    expect(readme).toBe(expected);
  });
});

describe('buildRegistry', () => {
  const method = (overrides: Partial<RpcMethod>): RpcMethod => ({
    ...defineRpcMethod({
      family: 'rpc',
      name: 'svc_test',
      price: 0.001,
      summary: 'a test method',
      params: z.tuple([]),
      result: z.string(),
      errors: [],
      example: { params: [], result: 'x' },
    }).run(async () => 'x'),
    ...overrides,
  });
  const rpcRoute = registry.routes.filter((r) => r.kind === 'jsonrpc');

  it('error: a JSON-RPC method without a price cannot be registered', () => {
    expect(() => buildRegistry(rpcRoute, [method({ price: undefined })])).toThrow(RegistryError);
    expect(() => buildRegistry(rpcRoute, [method({ price: 0 })])).toThrow(/no valid price/);
    expect(() => buildRegistry(rpcRoute, [method({ price: 0.0000001 })])).toThrow(/finer than/);
  });

  it('error: a price without a handler, or a name declared twice, is refused', () => {
    expect(() => buildRegistry(rpcRoute, [method({ run: undefined })])).toThrow(/no handler/);
    expect(() => buildRegistry(rpcRoute, [method({}), method({})])).toThrow(/declared twice/);
    const rest = registry.routes.filter((r) => r.kind === 'rest');
    const withoutHandler = rest.map((r, i) => (i === 0 ? { ...r, handler: undefined as never } : r));
    expect(() => buildRegistry(withoutHandler, [])).toThrow(/no handler/);
  });

  it('error: the service refuses to start a route without a price (payments plugin)', async () => {
    const app = Fastify({ logger: false });
    await app.register(paymentsPlugin, { config: world.config, store: 'memory' });
    expect(() => app.get('/v1/unpriced', async () => ({}))).toThrow(/PAYMENT_ROUTE_UNPRICED|no price/);
    await app.close();
  });
});

/** An example request object with its txid (or txids) replaced by a txid the node knows. */
function withTxid(value: unknown, txid: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if ('txid' in out) out.txid = txid;
  if ('txids' in out) out.txids = [txid];
  return out;
}
