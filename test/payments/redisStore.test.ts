import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisReplayStore } from '../../src/payments/store/redisReplayStore.js';
import { PaymentError } from '../../src/payments/verify.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';
import { redisAvailable, startRedis, type RedisServer } from './redisServer.js';

const available = redisAvailable();
if (!available) console.warn('SKIPPED: redis-server is not installed (apt-get install -y redis-server); the Redis replay-store tests did not run');

describe.skipIf(!available)('Redis replay store (real redis-server on loopback)', () => {
  let redis: RedisServer;
  let store: RedisReplayStore;
  const account = newAccount();

  beforeAll(async () => {
    redis = await startRedis();
    store = await RedisReplayStore.connect(redis.url, `test-${process.pid}:`);
  });
  afterAll(async () => {
    await store?.close();
    await redis?.stop();
  });

  it('default: a claim is exclusive until released', async () => {
    const exp = Date.now() + 60_000;
    expect(await store.claimNonce('k1', exp)).toBe(true);
    expect(await store.claimNonce('k1', exp)).toBe(false);
    await store.releaseNonce('k1');
    expect(await store.claimNonce('k1', exp)).toBe(true);
  });

  it('behavior: 20 concurrent claims of one key from separate connections: exactly one wins', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => RedisReplayStore.connect(redis.url, `test-${process.pid}:`)));
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 4]!.claimNonce('race', Date.now() + 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('behavior: claims carry a TTL past validBefore (Redis expires them itself)', async () => {
    const exp = Date.now() + 120_000;
    expect(await store.claimNonce('ttl', exp)).toBe(true);
    const probe = await RedisReplayStore.connect(redis.url, `test-${process.pid}:`);
    const { Redis } = await import('ioredis');
    const raw = new Redis(redis.url);
    try {
      const ttl = await raw.pttl(`test-${process.pid}:nonce:ttl`);
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(120_000);
    } finally {
      raw.disconnect();
      await probe.close();
    }
  });

  it('behavior: idempotency records: begin is exclusive, complete marks it done, release frees the id', async () => {
    const exp = Date.now() + 60_000;
    expect(await store.beginIdempotency('pay_aaaaaaaaaaaaaaaa', 'fp1', exp)).toBe(true);
    expect(await store.beginIdempotency('pay_aaaaaaaaaaaaaaaa', 'fp2', exp)).toBe(false);
    expect(await store.getIdempotency('pay_aaaaaaaaaaaaaaaa')).toEqual({ state: 'pending', fingerprint: 'fp1' });
    await store.completeIdempotency('pay_aaaaaaaaaaaaaaaa', 'fp1', exp);
    expect(await store.getIdempotency('pay_aaaaaaaaaaaaaaaa')).toEqual({ state: 'done', fingerprint: 'fp1' });
    await store.releaseIdempotency('pay_aaaaaaaaaaaaaaaa');
    expect(await store.getIdempotency('pay_aaaaaaaaaaaaaaaa')).toBeNull();
  });

  it('behavior: two replicas sharing REDIS_URL run the handler once and charge once for one authorization (20 concurrent copies over HTTP)', async () => {
    const dirs = [tempDir(), tempDir()];
    // Behind one load balancer: one public URL, the payment is bound to it on both replicas.
    const env = { PAY_TO, REDIS_URL: redis.url, PUBLIC_BASE_URL: 'https://api.example.com' };
    const apps = await Promise.all(dirs.map((d) => stubApp({ config: testConfig({ DATA_DIR: d.dir, ...env }) })));
    try {
      expect(apps[0]!.payments.store).toBe('redis');
      const urls = await Promise.all(apps.map(async (a) => `${await a.listen({ host: '127.0.0.1', port: 0 })}/v1/paid`));
      const first = await fetch(urls[0]!);
      const req = requirementFor(challengeOf({ headers: { 'payment-required': first.headers.get('payment-required') } }));
      const header = paymentHeader(await signPayment(account, req));
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(urls[i % 2]!, { headers: { 'payment-signature': header } })));
      const ok = results.filter((r) => r.status === 200);
      // One original answer; copies on the replica that served it may get it replayed.
      expect(ok.filter((r) => r.headers.get('x-payment-idempotent-replay') === null)).toHaveLength(1);
      const bodies = new Set(await Promise.all(ok.map((r) => r.text())));
      expect(bodies.size).toBe(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        if (r.status === 409) expect(((await r.json()) as { error: { code: string } }).error.code).toBe('PAYMENT_IN_PROGRESS');
        else {
          expect(r.status).toBe(402);
          expect(challengeOf({ headers: { 'payment-required': r.headers.get('payment-required') } }).error).toBe(PaymentError.NONCE_USED);
        }
      }
      expect(apps[0]!.served() + apps[1]!.served()).toBe(1);
      expect(apps[0]!.payments.ledgerCounts().unsettled + apps[1]!.payments.ledgerCounts().unsettled).toBe(1);
    } finally {
      await Promise.all(apps.map((a) => a.close()));
      for (const d of dirs) d.remove();
    }
  });
});
