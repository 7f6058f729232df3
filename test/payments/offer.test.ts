/**
 * The offer a paid request is checked against (src/payments/challenge.ts `offer`): for a route's
 * fixed price it is built once and shared, frozen (a paid request allocates none, and the matched
 * requirement's JSON is encoded once); a JSON-RPC body's methods are bound per request.
 */
import { describe, expect, it } from 'vitest';
import { requirementsBuilder } from '../../src/payments/challenge.js';
import { jsonOnce } from '../../src/payments/jsonOnce.js';
import { resolveNetworks } from '../../src/payments/networks.js';
import { testConfig } from './helpers.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';
const builder = () => requirementsBuilder(resolveNetworks(testConfig({ PAY_TO })), PAY_TO, 300);

describe('offer of a paid request', () => {
  it('behavior: a fixed-price route gets the same frozen requirements on every request, bound to that route; another route or price its own', () => {
    const b = builder();
    const first = b.offer(0.001, { route: 'GET /v1/mempool/stats' });
    const again = b.offer(0.001, { route: 'GET /v1/mempool/stats' });
    expect(again).toBe(first);
    expect(first.map((r) => r.extra?.route)).toEqual(first.map(() => 'GET /v1/mempool/stats'));
    expect(first.every((r) => Object.isFrozen(r) && Object.isFrozen(r.extra))).toBe(true);
    expect(() => {
      (first[0]?.extra as Record<string, unknown>).route = 'GET /v1/other';
    }).toThrow(TypeError);
    // One encoding for every request paying this route.
    const requirement = first[0];
    if (!requirement) throw new Error('no requirement');
    expect(jsonOnce(requirement)).toBe(jsonOnce(again[0] ?? {}));
    expect(b.offer(0.001, { route: 'GET /v1/mempool/fees' })[0]?.extra?.route).toBe('GET /v1/mempool/fees');
    expect(b.offer(0.002, { route: 'GET /v1/mempool/stats' })[0]?.amount).toBe('2000');
    expect(b.forPrice(0.001)[0]?.extra).not.toHaveProperty('route');
  });

  it('behavior: a JSON-RPC offer binds the methods quoted for this body', () => {
    const b = builder();
    const one = b.offer(0.002, { route: 'POST /v1/rpc', methods: ['getblockcount', 'getmempoolinfo'] });
    const two = b.offer(0.002, { route: 'POST /v1/rpc', methods: ['getrawmempool'] });
    expect(one[0]?.extra).toMatchObject({ route: 'POST /v1/rpc', methods: ['getblockcount', 'getmempoolinfo'] });
    expect(two[0]?.extra).toMatchObject({ route: 'POST /v1/rpc', methods: ['getrawmempool'] });
  });
});
