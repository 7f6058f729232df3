/**
 * The payment states replicas share through Redis (src/payments/store/sharedPayments.ts), on a real
 * redis-server: who holds a payment, takeover of a dead replica's claim, the answer kept for
 * retries (bounded in size and time), and two in-process replicas answering each other's retries.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_TTL_MS, SharedPayments } from '../../src/payments/store/sharedPayments.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';
import { redisAvailable, startRedis, type RedisServer } from './redisServer.js';

const available = redisAvailable();
if (!available) console.warn('SKIPPED: redis-server is not installed; the shared payment state tests did not run');

const LEASE_MS = 60_000;
const MAX_ANSWER = 1024;

describe.skipIf(!available)('shared payment states (real redis-server on loopback)', () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  let clock = Date.now();
  const now = () => clock;
  const prefix = `shared-${process.pid}:`;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  /** One replica: its own connection and heartbeat. */
  const replica = async (): Promise<SharedPayments> => {
    const client = new Redis(redis.url);
    clients.push(client);
    const s = new SharedPayments(client, prefix, now, MAX_ANSWER, LEASE_MS);
    await s.start();
    return s;
  };
  const answer = (body: string) => ({ requestHash: 'h1', statusCode: 200, contentType: 'application/json', body });
  const validBefore = () => Math.floor(clock / 1000) + 300;

  it('default: one replica claims; another sees the claim held by a live owner, for that request', async () => {
    const [a, b] = [await replica(), await replica()];
    expect(await a.claim('n1', 'h1', clock + 600_000)).toEqual({ kind: 'claimed' });
    const held = await b.claim('n1', 'h1', clock + 600_000);
    expect(held).toMatchObject({ kind: 'held', ownerLive: true, record: { s: 'claimed', o: a.replicaId, h: 'h1' } });
    await a.stop();
    await b.stop();
  });

  it('behavior: the claim of a replica whose heartbeat stopped is taken over by exactly one of three racing replicas', async () => {
    const dead = await replica();
    expect((await dead.claim('n2', 'h1', clock + 600_000)).kind).toBe('claimed');
    await dead.stop(); // as if killed: its heartbeat is gone
    const others = [await replica(), await replica(), await replica()];
    const seen = await Promise.all(others.map((o) => o.claim('n2', 'h1', clock + 600_000)));
    for (const s of seen) expect(s).toMatchObject({ kind: 'held', ownerLive: false });
    const won = await Promise.all(others.map((o) => o.takeOver('n2', dead.replicaId, 'h1')));
    expect(won.filter(Boolean)).toHaveLength(1);
    // The dead replica cannot charge what was taken over.
    expect(await dead.charging('n2', 'h1', answer('{}'), validBefore())).toBe(false);
    for (const o of others) await o.stop();
  });

  it('behavior: a killed replica is seen gone once its heartbeat expires', async () => {
    const client = new Redis(redis.url);
    clients.push(client);
    const a = new SharedPayments(client, prefix, now, MAX_ANSWER, LEASE_MS);
    await a.start();
    expect((await a.claim('n3', 'h1', clock + 600_000)).kind).toBe('claimed');
    client.disconnect(); // no more beats, no clean stop
    const b = await replica();
    expect(await b.claim('n3', 'h1', clock + 600_000)).toMatchObject({ ownerLive: true });
    await new Promise((r) => setTimeout(r, HEARTBEAT_TTL_MS + 200));
    expect(await b.claim('n3', 'h1', clock + 600_000)).toMatchObject({ ownerLive: false });
    await b.stop();
  });

  it('behavior: a live owner holding a payment past the lease no longer blocks it', async () => {
    const [a, b] = [await replica(), await replica()];
    expect((await a.claim('n4', 'h1', clock + 600_000)).kind).toBe('claimed');
    clock += LEASE_MS + 1;
    try {
      expect(await b.claim('n4', 'h1', clock + 600_000)).toMatchObject({ ownerLive: false });
    } finally {
      clock -= LEASE_MS + 1;
    }
    await a.stop();
    await b.stop();
  });

  it('behavior: the answer is kept with the charge, readable by any replica, until validBefore at most; too large is not kept', async () => {
    const [a, b] = [await replica(), await replica()];
    await a.claim('n5', 'h1', clock + 600_000);
    expect(await a.charging('n5', 'h1', answer('{"fee":1}'), validBefore())).toBe(true);
    expect(await b.answer('n5')).toEqual(answer('{"fee":1}'));
    const raw = new Redis(redis.url);
    clients.push(raw);
    const ttl = await raw.pttl(`${prefix}answer:n5`);
    expect(ttl).toBeGreaterThan(290_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
    await a.paid('n5', 'h1', 'response');
    expect(await b.claim('n5', 'h1', clock + 600_000)).toMatchObject({ kind: 'held', record: { s: 'paid', r: 'response' } });

    await a.claim('n6', 'h1', clock + 600_000);
    expect(await a.charging('n6', 'h1', answer('x'.repeat(MAX_ANSWER + 1)), validBefore())).toBe(true);
    expect(await b.answer('n6')).toBeNull();
    // A refused settlement drops the answer; a released claim frees the payment.
    await a.claim('n7', 'h1', clock + 600_000);
    await a.charging('n7', 'h1', answer('{}'), validBefore());
    await a.failed('n7', 'h1');
    expect(await b.answer('n7')).toBeNull();
    expect(await b.claim('n7', 'h1', clock + 600_000)).toMatchObject({ kind: 'held', record: { s: 'failed' } });
    await a.release('n6');
    expect(await b.claim('n6', 'h1', clock + 600_000)).toEqual({ kind: 'claimed' });
    await a.stop();
    await b.stop();
  });

  it('behavior: a retry on replica B of a payment answered by replica A gets the same answer, not charged again; another request with it is refused', async () => {
    const dirs = [tempDir(), tempDir()];
    const env = { PAY_TO, REDIS_URL: redis.url, PUBLIC_BASE_URL: 'https://api.example.com' };
    const apps = await Promise.all(dirs.map((d) => stubApp({ config: testConfig({ DATA_DIR: d.dir, ...env }) })));
    const account = newAccount();
    try {
      const [a, b] = apps;
      if (!a || !b) throw new Error('two apps');
      const txid = 'c'.repeat(64);
      const echo = (app: typeof a, header: string | null, body = { txid }) =>
        app.inject({ method: 'POST', url: '/v1/echo', payload: body, headers: header === null ? {} : { 'payment-signature': header } });
      const req = requirementFor(challengeOf(await echo(a, null)));
      const header = paymentHeader(await signPayment(account, req));
      const first = await echo(a, header);
      expect(first.statusCode).toBe(200);
      const retry = await echo(b, header);
      expect(retry.statusCode).toBe(200);
      expect(retry.body).toBe(first.body);
      expect(retry.headers['x-payment-idempotent-replay']).toBe('true');
      expect(a.served() + b.served()).toBe(1);
      const other = await echo(b, header, { txid: 'd'.repeat(64) });
      expect(other.statusCode).toBe(402);
      expect(a.payments.ledgerCounts().unsettled + b.payments.ledgerCounts().unsettled).toBe(1);

      // Redis restarted empty: the replica whose ledger holds the payment puts it back, paid.
      const raw = new Redis(redis.url);
      clients.push(raw);
      await raw.flushall();
      const paidHere = [a, b].find((x) => x.payments.ledgerCounts().unsettled === 1);
      const elsewhere = paidHere === a ? b : a;
      expect((await echo(paidHere ?? a, header)).statusCode).toBe(200);
      expect((await echo(elsewhere, header)).statusCode).toBe(200);
      expect((await echo(elsewhere, header, { txid: 'd'.repeat(64) })).statusCode).toBe(402);
      expect(a.payments.ledgerCounts().unsettled + b.payments.ledgerCounts().unsettled).toBe(1);
    } finally {
      await Promise.all(apps.map((x) => x.close()));
      for (const d of dirs) d.remove();
    }
  });
});
