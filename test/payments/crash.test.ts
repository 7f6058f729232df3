/**
 * Issue 15 #1, kill -9 at every step of the gate. A paid server runs in a child process
 * (fixtures/paidServer.ts) against the mock facilitator; the test-only `X402_TEST_PAUSE_AT` stops
 * the gate at a step (after verify, after the handler, after the ledger row, after settle) and the
 * test kills the process there with SIGKILL; "during settle" is killed by the facilitator itself,
 * after it charged and before it answers. The server is started again on the same DATA_DIR and
 * the payer retries with the same header. Checked every time:
 * - nobody is charged without an answer available to its retry (the retry gets 200, never a 402
 *   that would make a client sign a second payment, never a long PAYMENT_IN_PROGRESS);
 * - no answer is served without a ledger row;
 * - nothing is charged twice: one ledger row, one charge, settled once the reconciler ran.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPaymentsDb } from '../../src/payments/db.js';
import { Ledger, type LedgerRow } from '../../src/payments/ledger.js';
import { MAX_RECOMPUTES } from '../../src/payments/state/machine.js';
import { startMockFacilitator, type MockFacilitator } from '../helpers/mockFacilitator.js';
import { startPaidProcess, until, type PaidProcess } from './fixtures/paidProcess.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, tempDir } from './helpers.js';

const STEPS = ['after-verify', 'after-handler', 'after-record', 'during-settle', 'after-settle'] as const;
type Step = (typeof STEPS)[number];

let tmp: ReturnType<typeof tempDir>;
let mock: MockFacilitator;
const children: ChildProcess[] = [];
const account = newAccount();

beforeEach(async () => {
  tmp = tempDir();
  mock = await startMockFacilitator('ok');
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await mock.close();
  tmp.remove();
});

/** Handler runs answered 503 MEMPOOL_NOT_READY after the restart: more than MAX_RECOMPUTES. */
const WARMUP = MAX_RECOMPUTES + 2;

async function startServer(pauseAt?: string, warmup = 0): Promise<PaidProcess> {
  const server = await startPaidProcess({
    DATA_DIR: tmp.dir,
    PAY_TO,
    X402_NETWORKS: 'eip155:8453',
    X402_FACILITATOR_URL: mock.url,
    // A fixed public URL: the payment stays bound to the same resource across restarts (new ports).
    PUBLIC_BASE_URL: 'http://127.0.0.1:8402',
    ...(pauseAt ? { X402_TEST_PAUSE_AT: pauseAt } : {}),
    STUB_WARMUP: String(warmup),
  });
  children.push(server.child);
  return server;
}

function rows(): LedgerRow[] {
  const db = openPaymentsDb(tmp.dir);
  try {
    const ledger = new Ledger(db);
    return (['pending', 'settled', 'unsettled', 'failed'] as const).flatMap((s) => ledger.list(s, 1000));
  } finally {
    db.close();
  }
}

/**
 * The payer's retries after the restart, while the service warms up: the same header 4× at once
 * until one is answered 200. Every answer is 200, 503 with Retry-After, or (the same payment
 * running for another copy) 409 PAYMENT_IN_PROGRESS with Retry-After: never a 402 or another
 * refusal. Returns the statuses of the first volley.
 */
async function retryUntilAnswered(base: string, path: string, header: string): Promise<number[]> {
  let first: number[] | null = null;
  for (let volley = 0; volley < 10; volley++) {
    const answers = await Promise.all([0, 1, 2, 3].map(() => fetch(`${base}${path}`, { headers: { 'payment-signature': header } })));
    const statuses = answers.map((r) => r.status);
    first ??= statuses;
    for (const r of answers) {
      expect([200, 409, 503]).toContain(r.status);
      if (r.status !== 200) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      if (r.status === 409) expect(((await r.clone().json()) as { error: { code: string } }).error.code).toBe('PAYMENT_IN_PROGRESS');
    }
    const ok = answers.find((r) => r.status === 200);
    if (ok) {
      expect(((await ok.json()) as { success: boolean }).success).toBe(true);
      return first;
    }
  }
  throw new Error('no answer after 10 volleys of retries');
}

async function round(step: Step, withPaymentId: boolean, path = '/v1/paid'): Promise<void> {
  const a = await startServer(step === 'during-settle' ? undefined : step);
  const unpaid = await fetch(`${a.base}${path}`);
  const requirement = requirementFor(challengeOf({ headers: { 'payment-required': unpaid.headers.get('payment-required') } }));
  const extensions = withPaymentId ? { 'payment-identifier': { info: { required: false, id: `pay_crash_${step}_0123456789` } } } : undefined;
  const header = paymentHeader(await signPayment(account, requirement, {}, extensions ? { extensions } : {}));

  if (step === 'during-settle') mock.onSettle = () => a.child.kill('SIGKILL');
  const first = fetch(`${a.base}${path}`, { headers: { 'payment-signature': header } }).then(
    (r) => r.status,
    () => 'no answer' as const,
  );
  if (step === 'during-settle') await a.exited;
  else {
    await until(() => a.stderr().includes(`x402-paused ${step}`), `the pause at ${step}`);
    a.child.kill('SIGKILL');
    await a.exited;
  }
  mock.onSettle = null;
  expect(await first).toBe('no answer');
  const chargedBeforeRestart = mock.charges.size;
  // No answer went out, so none without a row; a row exists from the ledger step on.
  expect(rows().length).toBe(step === 'after-verify' || step === 'after-handler' ? 0 : 1);

  // Restarted warming up: the handler answers 503 for its first WARMUP runs.
  const b = await startServer(undefined, WARMUP);
  const firstVolley = await retryUntilAnswered(b.base, path, header);
  // Charged before the crash with its answer kept (on disk): answered at once, even while warming up.
  if (path === '/v1/paid' && ['after-record', 'during-settle', 'after-settle'].includes(step))
    expect({ step, firstVolley }).toEqual({ step, firstVolley: [200, 200, 200, 200] });
  await until(() => rows().every((r) => r.status === 'settled'), 'the reconciler');

  const after = rows();
  expect(after).toHaveLength(1); // the answer the payer holds has its row, and only one
  expect(after[0]).toMatchObject({ status: 'settled', payer: account.address.toLowerCase() });
  expect(mock.charges.size).toBe(1); // charged once, whether before the crash or after the retry
  expect(chargedBeforeRestart).toBe(step === 'during-settle' || step === 'after-settle' ? 1 : 0);
  b.child.kill('SIGKILL');
  await b.exited;
}

describe('kill -9 at each step of the payment gate, restarted warming up (issue 22.1)', () => {
  for (const step of STEPS) {
    it(`behavior: killed ${step}: the retry with the same header gets the answer, one ledger row, charged once`, async () => {
      await round(step, false);
    }, 60_000);
  }
  // Too large to keep: recomputed on retry; the warm-up's 503s spend none of its recomputes.
  for (const step of ['after-record', 'during-settle'] as const) {
    it(`behavior: killed ${step} with an answer too large to keep: retries during warm-up get 503, then the answer, never a 402`, async () => {
      await round(step, false, '/v1/big');
    }, 60_000);
  }
  // The identifier's record is pending from verify to the ledger row: the steps where a killed
  // process could leave it blocking its id.
  for (const step of ['after-verify', 'after-handler', 'during-settle'] as const) {
    it(`behavior: killed ${step} with a payment-identifier: its retry is answered, never left PAYMENT_IN_PROGRESS`, async () => {
      await round(step, true);
    }, 60_000);
  }
});

describe('kill -9 after a group commit of several ledger rows (issue 25: commits batched across requests)', () => {
  it('behavior: four payments recorded together, killed before any settle: after the restart each retry is answered, each row settled, each charged once', async () => {
    const a = await startServer('after-record');
    const unpaid = await fetch(`${a.base}/v1/paid`);
    const requirement = requirementFor(challengeOf({ headers: { 'payment-required': unpaid.headers.get('payment-required') } }));
    const headers = await Promise.all([0, 1, 2, 3].map(async () => paymentHeader(await signPayment(account, requirement))));
    // At once: their rows go to the ledger in the same turns, one COMMIT (synchronous=FULL) for several.
    const first = headers.map((h) =>
      fetch(`${a.base}/v1/paid`, { headers: { 'payment-signature': h } }).then(
        (r) => r.status,
        () => 'no answer' as const,
      ),
    );
    await until(() => a.stderr().split('x402-paused after-record').length - 1 === headers.length, 'four paused after their ledger rows');
    a.child.kill('SIGKILL');
    await a.exited;
    expect(await Promise.all(first)).toEqual(headers.map(() => 'no answer'));
    expect(mock.charges.size).toBe(0);
    // Every row whose request reached the settle step is on disk, pending.
    expect(rows().map((r) => r.status)).toEqual(headers.map(() => 'pending'));

    const b = await startServer();
    for (const h of headers) await retryUntilAnswered(b.base, '/v1/paid', h);
    await until(() => rows().every((r) => r.status === 'settled'), 'the reconciler');
    expect(rows()).toHaveLength(headers.length);
    expect(mock.charges.size).toBe(headers.length);
    b.child.kill('SIGKILL');
    await b.exited;
  }, 60_000);
});
