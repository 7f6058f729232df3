/**
 * Issue 21 item 7 on a real Bitcoin Core: when the node stops (SIGTERM, then SIGKILL), paid routes
 * answer 503 NODE_UNAVAILABLE with Retry-After before the payment gate (no 402 challenge), a valid
 * payment is not charged, /health is 503; once Core is back, the service serves and sells again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment } from '../payments/helpers.js';
import { startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

/** Polls `probe` until it returns true or `ms` passes (a generous deadline, not a speed claim). */
async function within(ms: number, probe: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return probe();
}

describe.runIf(available.run)('real Core stopped under a running service', () => {
  let core: Regtest;
  let world: CoreWorld;
  const account = newAccount();

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    world = await startServiceOnCore(core, {
      PAYMENTS_ENABLED: 'true',
      PAY_TO,
      X402_NETWORKS: 'eip155:8453',
      NODE_CHECK_INTERVAL_MS: '250',
      // The staleness window far beyond the 20 s deadline: only the node check can refuse in time.
      NODE_STALE_AFTER_MS: '600000',
    });
    await world.app.mempool.mirror.poll();
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
  });

  const get = (url: string, header?: string) => world.app.inject({ method: 'GET', url, ...(header ? { headers: { 'payment-signature': header } } : {}) });

  /** A valid payment for GET /v1/mempool/stats, signed from the live challenge. */
  async function payment(): Promise<string> {
    const res = await get('/v1/mempool/stats');
    expect(res.statusCode).toBe(402);
    return paymentHeader(await signPayment(account, requirementFor(challengeOf(res))));
  }

  /** Core up and loaded: /health 200, the route sells, a payment is charged. */
  async function expectServing(): Promise<void> {
    expect(
      await within(30_000, async () => {
        await world.app.mempool.mirror.poll().catch(() => undefined);
        return (await get('/health')).statusCode === 200 && (await get('/v1/mempool/stats')).statusCode === 402;
      }),
    ).toBe(true);
    const before = world.app.payments.ledgerCounts();
    const paid = await get('/v1/mempool/stats', await payment());
    expect(paid.statusCode).toBe(200);
    expect(paid.headers['x-payment-charged']).toBeUndefined();
    expect(paid.headers['payment-response']).toBeDefined();
    expect(world.app.payments.ledgerCounts()).not.toEqual(before);
  }

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`behavior: Core stopped with ${signal}: paid route 503 NODE_UNAVAILABLE before payment, nothing charged, /health 503; back after restart`, async () => {
      await expectServing();
      const header = await payment();
      await core.kill(signal);

      // The background check finds it without any request or poll; 20 s is generous.
      expect(await within(20_000, async () => (await get('/v1/mempool/stats')).statusCode === 503)).toBe(true);
      const unpaid = await get('/v1/mempool/stats');
      expect(unpaid.statusCode).toBe(503);
      expect(unpaid.json().error.code).toBe('NODE_UNAVAILABLE');
      expect(Number(unpaid.headers['retry-after'])).toBeGreaterThan(0);
      expect(unpaid.headers['payment-required']).toBeUndefined();

      const ledgerBefore = world.app.payments.ledgerCounts();
      const paid = await get('/v1/mempool/stats', header);
      expect(paid.statusCode).toBe(503);
      expect(paid.json().error.code).toBe('NODE_UNAVAILABLE');
      // Refused before the gate: no charge, no settlement answer.
      expect(paid.headers['payment-response']).toBeUndefined();
      expect(world.app.payments.ledgerCounts()).toEqual(ledgerBefore);

      const health = await get('/health');
      expect(health.statusCode).toBe(503);

      await core.restart();
      await expectServing();
      // The payment refused while Core was down was never used: it still buys an answer.
      const reused = await get('/v1/mempool/stats', header);
      expect(reused.statusCode).toBe(200);
      expect(reused.headers['payment-response']).toBeDefined();
    }, 180_000);
  }
});
