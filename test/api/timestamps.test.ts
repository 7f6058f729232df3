/**
 * One timestamp format in every answer: ISO 8601 UTC. Walks the answer of every route of the
 * registry (example inputs, on the simulated node) and checks every field that names a time.
 * The one exception is SPEC-fixed: capabilities' `timestamp` (epoch milliseconds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeKey } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { first } from '../helpers/first.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 200, seed: 3 });
  await refresh(world);
  // A replacement, so the replacement history has versions to show.
  await world.simnet.control.replaceTransaction();
  await refresh(world);
});
afterAll(() => world?.close());

const TIME_KEY = /(At|Time|Seen)$|^(time|timestamp)$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** Every `[path, value]` whose key names a time. */
function timeFields(value: unknown, path = ''): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => timeFields(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [...(TIME_KEY.test(k) ? [[`${path}.${k}`, v] as [string, unknown]] : []), ...timeFields(v, `${path}.${k}`)]);
}

describe('timestamps', () => {
  it('default: every time in every answer is ISO 8601 UTC and never in the future', async () => {
    const registry = serviceRegistry();
    const txid = first(world.app.mempool.tracker.store.size() > 0 ? [...world.app.mempool.mirror.txs.keys()] : [], 'mempool');
    const { address } = first(await world.simnet.control.walletAddresses());
    let checked = 0;
    for (const route of registry.routes) {
      // Data answers only: documents (OpenAPI's schemas name formats, not times), pages, scripts and feeds are not data.
      if (route.kind !== 'rest' || route.family === 'docs' || (route.content ?? 'json') !== 'json') continue;
      const url = route.path.replace(':txid', txid).replace(':address', address);
      // Strict inputs: each POST gets only the fields it takes.
      const payload = route.path.endsWith('batch-check')
        ? { txids: [txid] }
        : route.path.endsWith('fee-ladder') || route.path.endsWith('optimized-txids')
          ? {}
          : { txid };
      const res = await world.app.inject({ method: route.method, url, ...(route.method === 'POST' ? { payload } : {}) });
      expect(res.statusCode, `${routeKey(route)} ${res.body.slice(0, 300)}`).toBe(200);
      for (const [path, value] of timeFields(res.json())) {
        if (route.path === '/v1/template/capabilities' && path === '.timestamp') {
          expect(typeof value).toBe('number');
          continue;
        }
        if (value === null) continue;
        // A ticket's expiry is the one time meant to lie ahead.
        if (route.path === '/v1/mempool/stream-ticket' && path === '.expiresAt') {
          expect(Date.parse(value as string)).toBeGreaterThan(Date.now());
          continue;
        }
        expect(typeof value === 'string' && ISO.test(value), `${routeKey(route)} ${path} = ${JSON.stringify(value)}`).toBe(true);
        expect(Date.parse(value as string), `${routeKey(route)} ${path} in the future`).toBeLessThanOrEqual(Date.now() + 1000);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
