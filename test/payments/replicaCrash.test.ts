/**
 * Two replicas sharing REDIS_URL (each its own process and DATA_DIR, one public URL), the mock
 * facilitator. Replica A is killed with SIGKILL at each step of the gate (the test-only
 * `X402_TEST_PAUSE_AT`; "during settle" by the facilitator, after it charged and before it answers)
 * and the payer retries the same header for the same request on replica B. Checked every time:
 * - the retry on B gets the answer (never a 402 that would make the client sign again);
 * - nothing is charged twice: across both ledgers one row, one facilitator charge, once A's
 *   reconciler ran (A restarted on its DATA_DIR, as its process manager would);
 * - the same payment for another request is still refused as a replay.
 */
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPaymentsDb } from '../../src/payments/db.js';
import { Ledger, type LedgerRow } from '../../src/payments/ledger.js';
import { PaymentError } from '../../src/payments/verify.js';
import { startMockFacilitator, type MockFacilitator } from '../helpers/mockFacilitator.js';
import { startPaidProcess, until, type PaidProcess } from './fixtures/paidProcess.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, tempDir } from './helpers.js';
import { redisAvailable, startRedis, type RedisServer } from './redisServer.js';

const STEPS = ['after-verify', 'after-handler', 'after-record', 'during-settle', 'after-settle'] as const;
type Step = (typeof STEPS)[number];

const TXID = 'a'.repeat(64);
const available = redisAvailable();
if (!available) console.warn('SKIPPED: redis-server is not installed; the replica crash tests did not run');

describe.skipIf(!available)('kill -9 of the replica that took a payment: the retry on another replica (shared Redis)', () => {
  let redis: RedisServer;
  let tmp: ReturnType<typeof tempDir>;
  let mock: MockFacilitator;
  const children: ChildProcess[] = [];
  const account = newAccount();

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  beforeEach(async () => {
    tmp = tempDir();
    mock = await startMockFacilitator('ok');
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await mock.close();
    tmp.remove();
  });

  const dirOf = (name: 'a' | 'b') => join(tmp.dir, name);
  async function start(name: 'a' | 'b', pauseAt?: string): Promise<PaidProcess> {
    const server = await startPaidProcess({
      DATA_DIR: dirOf(name),
      PAY_TO,
      X402_NETWORKS: 'eip155:8453',
      X402_FACILITATOR_URL: mock.url,
      REDIS_URL: redis.url,
      // Behind one load balancer: the payment is bound to the same public URL on both replicas.
      PUBLIC_BASE_URL: 'https://api.example.com',
      ...(pauseAt ? { X402_TEST_PAUSE_AT: pauseAt } : {}),
    });
    children.push(server.child);
    return server;
  }
  const rows = (): LedgerRow[] =>
    (['a', 'b'] as const).flatMap((name) => {
      const db = openPaymentsDb(dirOf(name));
      try {
        const ledger = new Ledger(db);
        return (['pending', 'settled', 'unsettled', 'failed'] as const).flatMap((s) => ledger.list(s, 1000));
      } finally {
        db.close();
      }
    });
  const kill = async (p: PaidProcess) => {
    p.child.kill('SIGKILL');
    await p.exited;
  };
  /** A client: retries while the payment is in progress (409), as Retry-After asks. */
  const echo = (base: string, header: string | null, txid = TXID) =>
    fetch(`${base}/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(header === null ? {} : { 'payment-signature': header }) },
      body: JSON.stringify({ txid }),
    });
  const retry = async (base: string, header: string): Promise<Response> => {
    for (let i = 0; ; i++) {
      const res = await echo(base, header);
      if (res.status !== 409 || i > 60) return res;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  async function round(step: Step, withPaymentId: boolean): Promise<void> {
    const a = await start('a', step === 'during-settle' ? undefined : step);
    const b = await start('b');
    const unpaid = await echo(a.base, null);
    const requirement = requirementFor(challengeOf({ headers: { 'payment-required': unpaid.headers.get('payment-required') } }));
    const extensions = withPaymentId ? { 'payment-identifier': { info: { required: false, id: `pay_replica_${step}_0123456789` } } } : undefined;
    const header = paymentHeader(await signPayment(account, requirement, {}, extensions ? { extensions } : {}));

    if (step === 'during-settle') mock.onSettle = () => a.child.kill('SIGKILL');
    const first = echo(a.base, header).then(
      (r) => r.status,
      () => 'no answer' as const,
    );
    if (step === 'during-settle') await a.exited;
    else {
      await until(() => a.stderr().includes(`x402-paused ${step}`), `the pause at ${step}`);
      await kill(a);
    }
    mock.onSettle = null;
    expect(await first).toBe('no answer');

    const res = await retry(b.base, header);
    expect({ step, status: res.status }).toEqual({ step, status: 200 });
    expect(await res.json()).toMatchObject({ success: true, txid: TXID });
    // The same payment for another request (same route, another body) is a replay.
    const other = await echo(b.base, header, 'b'.repeat(64));
    if (withPaymentId) expect(((await other.json()) as { error: { code: string } }).error.code).toBe('PAYMENT_ID_CONFLICT');
    else {
      expect(other.status).toBe(402);
      expect(challengeOf({ headers: { 'payment-required': other.headers.get('payment-required') } }).error).toBe(PaymentError.NONCE_USED);
    }

    // A comes back on its DATA_DIR (its process manager restarts it) and settles what it recorded.
    const a2 = await start('a');
    await until(() => rows().length === 1 && rows().every((r) => r.status === 'settled'), 'one settled row');
    await until(() => mock.charges.size === 1, 'one charge');
    const again = await retry(a2.base, header);
    expect(again.status).toBe(200);
    expect(rows()).toHaveLength(1);
    expect(rows()[0]).toMatchObject({ status: 'settled', payer: account.address.toLowerCase() });
    expect([...mock.charges.values()].map((c) => c.settleCalls).reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(1);
    expect(mock.charges.size).toBe(1);
    await kill(a2);
    await kill(b);
  }

  for (const step of STEPS) {
    it(`behavior: A killed ${step}: B answers the retry with the same header, one ledger row, charged once`, async () => {
      await round(step, false);
    }, 60_000);
  }
  for (const step of ['after-verify', 'after-record'] as const) {
    it(`behavior: A killed ${step} with a payment-identifier: B answers the retry, never left PAYMENT_IN_PROGRESS`, async () => {
      await round(step, true);
    }, 60_000);
  }
});
