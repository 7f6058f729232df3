/**
 * Rate limit per client (issue 16) on free routes and on paid routes asked without a payment:
 * 429 RATE_LIMITED in our envelope with Retry-After; a paying request is not limited. With
 * REDIS_URL, replicas share the counters (real redis-server, skipped when it is not installed).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, startRedis, type RedisServer } from '../payments/redisServer.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const MAX = 3;

describe('rate limit (in memory)', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 10, seed: 6, env: { PAYMENTS_ENABLED: 'true', RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_SEC: '60' } });
    // /health is 503 until the mempool view has loaded.
    await world.app.mempool.mirror.poll();
  });
  afterAll(() => world?.close());
  const get = (url: string, headers: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
    world.app.inject({ method: 'GET', url, headers, remoteAddress });

  it('error: past RATE_LIMIT_MAX free or unpaid requests a client gets 429 RATE_LIMITED with Retry-After', async () => {
    expect((await get('/v1/template/health')).statusCode).toBe(200);
    expect((await get('/v1/template/capabilities')).statusCode).toBe(200);
    expect((await get('/v1/block-height')).statusCode).toBe(402);
    for (const url of ['/v1/template/health', '/v1/block-height']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(429);
      expect(Number(res.headers['retry-after']), url).toBeGreaterThan(0);
      expect(res.json(), url).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    }
  });

  it('behavior: /health (load-balancer checks) is never limited', async () => {
    for (let i = 0; i < MAX + 2; i++) expect((await get('/health')).statusCode).toBe(200);
  });

  it('behavior: another client is not limited by the first', async () => {
    expect((await get('/v1/template/health', {}, '10.0.0.2')).statusCode).toBe(200);
  });

  it('behavior: a request carrying a payment on a paid route is not limited; on a free route it is', async () => {
    const paid = await get('/v1/block-height', { 'payment-signature': 'not-base64-json' });
    expect(paid.statusCode).not.toBe(429);
    expect(paid.json().error.code).toBe('PAYMENT_MALFORMED');
    expect((await get('/v1/template/health', { 'payment-signature': 'not-base64-json' })).statusCode).toBe(429);
  });

  it('behavior: a limited request is refused before its body is read, and its connection closed', async () => {
    const port = Number(new URL(await world.app.listen({ host: '127.0.0.1', port: 0 })).port);
    for (let i = 0; i < MAX; i++) await fetch(`http://127.0.0.1:${port}/v1/template/health`);
    const answer = await new Promise<{ text: string; closed: boolean }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      const timer = setTimeout(() => resolve({ text, closed: false }), 10_000);
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ text, closed: true });
      });
      // A megabyte announced, ten bytes sent: the answer must not wait for the rest.
      socket.write('POST /v1/rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n[[[[[[[[[[');
    });
    expect(answer.text).toMatch(/^HTTP\/1\.1 429/);
    expect(answer.text).toMatch(/connection: close/i);
    expect(answer.closed).toBe(true);
  });

  it('behavior: X-Forwarded-For is not trusted by default: it does not make a new client', async () => {
    expect((await get('/v1/template/health', { 'x-forwarded-for': '192.0.2.77' })).statusCode).toBe(429);
  });
});

describe('rate limit behind a trusted proxy (TRUST_PROXY=127.0.0.1)', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 5, seed: 6, env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SEC: '60' } });
  });
  afterAll(() => world?.close());
  const get = (remoteAddress: string, forwardedFor: string) =>
    world.app.inject({ method: 'GET', url: '/v1/template/health', remoteAddress, headers: { 'x-forwarded-for': forwardedFor } });

  it('behavior: through the proxy each forwarded client is counted on its own', async () => {
    expect((await get('127.0.0.1', '198.51.100.1')).statusCode).toBe(200);
    expect((await get('127.0.0.1', '198.51.100.1')).statusCode).toBe(429);
    expect((await get('127.0.0.1', '198.51.100.2')).statusCode).toBe(200);
    // A spoofed first hop does not help: the proxy's own entry (the last) is the client.
    expect((await get('127.0.0.1', '203.0.113.9, 198.51.100.1')).statusCode).toBe(429);
  });

  it('error: X-Forwarded-For from a peer that is not the proxy is ignored', async () => {
    expect((await get('192.0.2.10', '198.51.100.3')).statusCode).toBe(200);
    expect((await get('192.0.2.10', '198.51.100.4')).statusCode).toBe(429);
  });
});

const redisOk = redisAvailable();
if (!redisOk) console.warn('SKIPPED: redis-server is not installed; the shared rate-limit test did not run');

describe.skipIf(!redisOk)('rate limit shared through Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  let a: TestWorld;
  let b: TestWorld;
  beforeAll(async () => {
    redis = await startRedis();
    const env = { REDIS_URL: redis.url, RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_SEC: '60' };
    a = await startTestWorld({ initialTxs: 5, seed: 8, env });
    b = await startTestWorld({ initialTxs: 5, seed: 8, env });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('behavior: two replicas count one client together', async () => {
    const get = (world: TestWorld) => world.app.inject({ method: 'GET', url: '/v1/template/health', remoteAddress: '10.1.0.1' });
    expect((await get(a)).statusCode).toBe(200);
    expect((await get(b)).statusCode).toBe(200);
    expect((await get(a)).statusCode).toBe(200);
    const res = await get(b);
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('RATE_LIMITED');
  });
});
