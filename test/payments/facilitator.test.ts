/**
 * Issue 15 #3: the facilitator cannot take the service down. Against the mock facilitator
 * (test/helpers/mockFacilitator.ts) in its ok, slow, blackhole and error modes: short timeouts of
 * their own, no inline retry, and a circuit breaker that answers 503 with Retry-After at once.
 * (The answer time against a blackholed facilitator is measured in bench/payments.bench.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startMockFacilitator, type MockFacilitator } from '../helpers/mockFacilitator.js';
import { challengeOf, decodeHeader, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';

type App = Awaited<ReturnType<typeof stubApp>>;
let tmp: ReturnType<typeof tempDir>;
let mock: MockFacilitator;
let app: App | undefined;
const account = newAccount();

beforeEach(async () => {
  tmp = tempDir();
  mock = await startMockFacilitator('ok');
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await mock.close();
  tmp.remove();
});

async function start(env: Record<string, string> = {}): Promise<App> {
  const config = testConfig({
    DATA_DIR: tmp.dir,
    PAY_TO,
    X402_NETWORKS: 'eip155:8453',
    X402_FACILITATOR_URL: mock.url,
    X402_FACILITATOR_VERIFY_TIMEOUT_MS: '200',
    X402_FACILITATOR_SETTLE_TIMEOUT_MS: '300',
    ...env,
  });
  app = await stubApp({ config, reconcileIntervalMs: 3_600_000 });
  await app.ready();
  return app;
}

async function paid(a: App, url = '/v1/paid') {
  const req = requirementFor(challengeOf(await a.inject({ method: 'GET', url })));
  const header = paymentHeader(await signPayment(account, req));
  return { header, res: await a.inject({ method: 'GET', url, headers: { 'payment-signature': header } }) };
}

const settlementOf = (res: { headers: Record<string, unknown> }) =>
  decodeHeader<{ success: boolean; extra: { settlement: string } }>(res.headers['payment-response'] as string);

describe('facilitator availability', () => {
  it('default: verify and settle default to 1 s and 2 s: a facilitator adds at most 3 s to a paid request', () => {
    const c = loadConfig({});
    expect(c.X402_FACILITATOR_VERIFY_TIMEOUT_MS).toBe(1000);
    expect(c.X402_FACILITATOR_SETTLE_TIMEOUT_MS).toBe(2000);
    expect(c.X402_FACILITATOR_VERIFY_TIMEOUT_MS + c.X402_FACILITATOR_SETTLE_TIMEOUT_MS).toBeLessThanOrEqual(3000);
  });

  it('behavior: a healthy (ok) facilitator verifies and settles once', async () => {
    const a = await start();
    const { res } = await paid(a);
    expect(res.statusCode).toBe(200);
    expect(settlementOf(res).extra.settlement).toBe('settled');
    expect(mock.calls).toMatchObject({ verify: 1, settle: 1 });
    expect(mock.charges.size).toBe(1);
    expect(a.payments.health().facilitator).toMatchObject({ breaker: 'closed', reachable: true });
  });

  it('behavior: a slow facilitator within its timeouts still settles', async () => {
    mock.mode = 'slow';
    mock.delayMs = 50;
    const a = await start();
    const { res } = await paid(a);
    expect(settlementOf(res).extra.settlement).toBe('settled');
  });

  it('behavior: a blackholed facilitator: the answer is served with settlement pending after one verify and one settle attempt, no inline retry', async () => {
    mock.mode = 'blackhole';
    const a = await start();
    const { res } = await paid(a);
    expect(res.statusCode).toBe(200);
    expect(settlementOf(res)).toMatchObject({ success: true, extra: { settlement: 'pending' } });
    expect(mock.calls).toMatchObject({ verify: 1, settle: 1 });
    expect(a.payments.ledgerCounts()).toMatchObject({ pending: 1 });
    expect(a.payments.health().facilitator.reachable).toBe(false);
    // Once the facilitator is back, the reconciler settles the row once.
    mock.mode = 'ok';
    expect(await a.payments.reconcile()).toMatchObject({ settled: 1 });
    expect(mock.charges.size).toBe(1);
  });

  it('error: FACILITATOR_UNAVAILABLE after repeated failures: 503 with Retry-After at once, nothing taken, /health says so; a trial call closes it', async () => {
    mock.mode = 'error';
    const a = await start({ X402_BREAKER_FAILURES: '2', X402_BREAKER_COOLDOWN_SEC: '1' });
    const first = await paid(a);
    expect(first.res.statusCode).toBe(200); // local checks passed; settlement left pending
    expect(a.payments.health().facilitator.breaker).toBe('open');

    const calls = { ...mock.calls };
    const { header, res } = await paid(a);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('FACILITATOR_UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(mock.calls).toEqual(calls); // answered without calling the facilitator
    expect(a.served()).toBe(1);
    expect(a.payments.health().facilitator).toMatchObject({ breaker: 'open' });
    expect(a.payments.health().facilitator.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    // After the cool-down the same authorization (nothing was taken) goes through as the trial call.
    mock.mode = 'ok';
    await new Promise((r) => setTimeout(r, 1100));
    const retry = await a.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(retry.statusCode).toBe(200);
    expect(settlementOf(retry).extra.settlement).toBe('settled');
    expect(a.payments.health().facilitator.breaker).toBe('closed');
  });
});
