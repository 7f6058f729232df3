import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 50, seed: 3 });
  await world.app.mempool.mirror.poll();
  await world.app.optimizer.service.refresh();
});
afterAll(() => world?.close());

const nasty: Array<[string, string]> = [
  ['empty', ''],
  ['space', '%20'],
  ['NUL', '%00'],
  ['traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['unicode', encodeURIComponent('é'.repeat(30))],
  ['0x-prefixed hash', '0x' + 'f'.repeat(64)],
  ['non-hex', 'g'.repeat(64)],
  ['63 hex', 'a'.repeat(63)],
  ['65 hex', 'a'.repeat(65)],
  ['5000 chars', 'a'.repeat(5000)],
  ['RTL override', '%E2%80%AE'],
  ['null', 'null'],
  ['brackets', '%5B%5D'],
  ['html', '%3Cscript%3E'],
];

describe('hostile input never yields a 5xx, a hang or a non-JSON error', () => {
  const paths = ['/v1/tx/', '/v1/mempool/tx/', '/v1/balance/', '/v1/utxos/'];
  it.each(paths.flatMap((p) => nasty.map(([name, value]) => [p, name, value])))('error: GET %s with %s', async (path, _name, value) => {
    const res = await world.app.inject({ method: 'GET', url: `${path}${value}` });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().success).toBe(false);
  });

  it.each(['blocks=1&blocks=2', 'blocks=%00', 'blocks=Infinity', 'blocks=NaN', 'blocks=' + '9'.repeat(400), 'blocks=0x10', 'blocks=1e1', 'blocks=%206'])(
    'error: GET /v1/fee-estimate?%s',
    async (query) => {
      const res = await world.app.inject({ method: 'GET', url: `/v1/fee-estimate?${query}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
    },
  );

  const bodies: Array<[string, string]> = [
    ['not JSON', '{"txid":'],
    ['an array', '[]'],
    ['a string', '"abc"'],
    ['null', 'null'],
    ['prototype pollution', '{"__proto__":{"polluted":true},"txid":"' + 'ab'.repeat(32) + '"}'],
    ['constructor pollution', '{"constructor":{"prototype":{"polluted":true}},"txid":"' + 'ab'.repeat(32) + '"}'],
    ['a number txid', '{"txid":123}'],
    ['huge targetBlocks', '{"txid":"' + 'ab'.repeat(32) + '","targetBlocks":1e308}'],
    ['negative targetBlocks', '{"txid":"' + 'ab'.repeat(32) + '","targetBlocks":-1}'],
    ['fractional targetBlocks', '{"txid":"' + 'ab'.repeat(32) + '","targetBlocks":1.5}'],
  ];
  it.each(bodies)('error: POST /v1/template/check with %s', async (_name, payload) => {
    const res = await world.app.inject({ method: 'POST', url: '/v1/template/check', headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().success).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('error: a body over the limit is 413 BODY_TOO_LARGE', async () => {
    const payload = JSON.stringify({ txids: ['ab'.repeat(32)], pad: 'x'.repeat(world.config.BODY_LIMIT_BYTES) });
    const res = await world.app.inject({ method: 'POST', url: '/v1/template/batch-check', headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('BODY_TOO_LARGE');
    const rpc = await world.app.inject({ method: 'POST', url: '/v1/rpc', payload: 'x'.repeat(world.config.BODY_LIMIT_BYTES + 1) });
    expect(rpc.statusCode).toBe(413);
  });

  it('error: another content type is 415', async () => {
    const res = await world.app.inject({ method: 'POST', url: '/v1/template/check', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('error: unknown routes are our JSON 404', async () => {
    for (const url of ['/v2/anything', '/v1/tx', '/v1/mempool/tx/ab/cd/ef']) {
      const res = await world.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('error: METHOD_NOT_ALLOWED (405) with Allow for a wrong method on a served path; a paid GET refuses HEAD', async () => {
    for (const [method, url, allow] of [
      ['DELETE', '/v1/block-height', 'GET'],
      ['POST', '/v1/block-height', 'GET'],
      ['HEAD', '/v1/block-height', 'GET'],
      ['GET', '/v1/rpc', 'POST'],
      ['PUT', `/v1/tx/${'a'.repeat(64)}`, 'GET'],
      ['POST', '/health', 'GET, HEAD'],
    ] as const) {
      const res = await world.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      if (method !== 'HEAD') expect(res.json()).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
    }
    expect((await world.app.inject({ method: 'HEAD', url: '/health' })).statusCode).toBe(200);
  });

  it('behavior: the service still answers after all of that', async () => {
    expect((await world.app.inject({ method: 'GET', url: '/v1/block-height' })).statusCode).toBe(200);
  });
});
