import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PaymentError } from '../../src/payments/verify.js';
import { challengeOf, decodeHeader, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';
import { startFacilitatorFor, type LocalFacilitator } from './localFacilitator.js';

type App = Awaited<ReturnType<typeof stubApp>>;
const NETWORKS = 'eip155:8453,eip155:84532';

let tmp: ReturnType<typeof tempDir>;
let fac: LocalFacilitator;
let app: App | undefined;
const account = newAccount();

async function start(env: Record<string, string> = {}): Promise<App> {
  const config = testConfig({
    DATA_DIR: tmp.dir,
    PAY_TO,
    X402_NETWORKS: NETWORKS,
    X402_FACILITATOR_URL: fac.url,
    X402_FACILITATOR_VERIFY_TIMEOUT_MS: '1500',
    X402_FACILITATOR_SETTLE_TIMEOUT_MS: '1500',
    X402_FACILITATOR_AUTH: 'Bearer secret-token',
    ...env,
  });
  // A long interval: the tests drive the reconciler themselves (it also runs once at start).
  app = await stubApp({ config, reconcileIntervalMs: 3_600_000 });
  await app.ready();
  return app;
}

async function paidHeader(a: App): Promise<string> {
  const req = requirementFor(challengeOf(await a.inject({ method: 'GET', url: '/v1/paid' })));
  return paymentHeader(await signPayment(account, req));
}

beforeEach(async () => {
  tmp = tempDir();
  fac = await startFacilitatorFor(NETWORKS);
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await fac.close();
  tmp.remove();
});

describe('settlement through the official facilitator code on loopback', () => {
  it('default: verified, served, settled; PAYMENT-RESPONSE carries the transaction', async () => {
    const a = await start();
    expect(a.payments.settlement).toBe('facilitator');
    const res = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': await paidHeader(a) } });
    expect(res.statusCode).toBe(200);
    const s = decodeHeader<{ success: boolean; transaction: string; extra: { settlement: string } }>(res.headers['payment-response']);
    expect(s.success).toBe(true);
    expect(s.extra.settlement).toBe('settled');
    expect(fac.transactions.has(s.transaction)).toBe(true);
    expect(fac.calls).toEqual({ verify: 1, settle: 1 });
    expect(fac.lastAuthorization).toBe('Bearer secret-token');
    expect(a.payments.ledgerCounts()).toMatchObject({ settled: 1, pending: 0 });
    expect(fac.balances.get(PAY_TO.toLowerCase())).toBe(10_000_000n + 1000n);
    const health = a.payments.health();
    expect(health).toMatchObject({
      settlement: 'facilitator',
      replayStore: 'sqlite',
      facilitator: { configured: true, reachable: true },
      ledger: { settled: 1 },
    });
    expect(JSON.stringify(health)).not.toContain('secret-token');
  });

  it('error: the facilitator /verify refuses (insufficient balance) → 402, not served, claim given back', async () => {
    const a = await start();
    fac.balances.set(account.address.toLowerCase(), 0n);
    const header = await paidHeader(a);
    const res = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(res.statusCode).toBe(402);
    expect(challengeOf(res).error).toMatch(/insufficient|simulation/);
    expect(a.served()).toBe(0);
    fac.balances.set(account.address.toLowerCase(), 5000n);
    expect((await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } })).statusCode).toBe(200);
  });

  it('error: settle answers success:false → 402 with PAYMENT-RESPONSE, the answer withheld, ledger failed', async () => {
    const a = await start({ X402_FACILITATOR_VERIFY: 'false' });
    fac.balances.set(account.address.toLowerCase(), 0n);
    const header = await paidHeader(a);
    const res = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(res.statusCode).toBe(402);
    expect(res.body).not.toContain('served');
    const s = decodeHeader<{ success: boolean; errorReason: string }>(res.headers['payment-response']);
    expect(s.success).toBe(false);
    expect(s.errorReason).toBeTruthy();
    expect(challengeOf(res).error).toBe(s.errorReason);
    expect(a.payments.ledgerCounts()).toMatchObject({ failed: 1, settled: 0 });
    // The failed authorization is not accepted again.
    const again = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(challengeOf(again).error).toBe(PaymentError.NONCE_USED);
  });

  it('behavior: a settle timeout is served (never a new 402), recorded pending, and settled by the reconciler', async () => {
    const a = await start();
    fac.hangSettles = 1; // the one attempt (no inline retry)
    const header = await paidHeader(a);
    const res = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(res.statusCode).toBe(200);
    expect(decodeHeader<{ success: boolean; extra: { settlement: string } }>(res.headers['payment-response'])).toMatchObject({
      success: true,
      extra: { settlement: 'pending' },
    });
    expect(a.payments.ledgerCounts()).toMatchObject({ pending: 1, settled: 0 });
    expect(fac.transactions.size).toBe(0);

    expect(await a.payments.reconcile()).toMatchObject({ attempted: 1, settled: 1 });
    expect(a.payments.ledgerCounts()).toMatchObject({ pending: 0, settled: 1 });
    expect(fac.transactions.size).toBe(1);
    // The payer's retry of the same request gets the answer again with the settlement as it is now,
    // and is not charged again.
    const retry = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(retry.statusCode).toBe(200);
    expect(retry.body).toBe(res.body);
    expect(decodeHeader<{ extra: { settlement: string } }>(retry.headers['payment-response']).extra.settlement).toBe('settled');
    expect(fac.calls.settle).toBe(2);
    expect(fac.transactions.size).toBe(1);
    expect(a.served()).toBe(1);
  });

  it('behavior: settlement_pending with a broadcast tx is kept with its hash and reconciled to the same tx', async () => {
    const a = await start();
    fac.receiptTimeouts = 1;
    const res = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': await paidHeader(a) } });
    expect(res.statusCode).toBe(200);
    const s = decodeHeader<{ transaction: string; extra: { settlement: string } }>(res.headers['payment-response']);
    expect(s.extra.settlement).toBe('pending');
    expect(fac.transactions.has(s.transaction)).toBe(true);
    expect(await a.payments.reconcile()).toMatchObject({ settled: 1 });
    expect(fac.transactions.size).toBe(1); // reconciled against the broadcast, not broadcast again
    expect(a.payments.ledgerCounts()).toMatchObject({ settled: 1, pending: 0 });
  });
});
