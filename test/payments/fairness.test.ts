/**
 * Issue 15 on the payment gate (stub routes, the real plugin): nobody is charged for an answer they
 * cannot get (#1), state stays bounded (#5), and modes that never settle say so and are refused in
 * production (#6). The JSON-RPC and binding cases run on the real app (appFairness.test.ts), the
 * facilitator cases in facilitator.test.ts, the kill -9 cases in crash.test.ts.
 */
import { statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertPaymentConfig, ConfigError } from '../../src/config.js';
import { openPaymentsDb, PAYMENTS_DB_FILE } from '../../src/payments/db.js';
import { MAX_RECOMPUTES } from '../../src/payments/state/machine.js';
import { Ledger } from '../../src/payments/ledger.js';
import { startMockFacilitator, type MockFacilitator } from '../helpers/mockFacilitator.js';
import {
  challengeOf,
  decodeHeader,
  ledgerEntry,
  newAccount,
  PAY_TO,
  paymentHeader,
  requirementFor,
  signPayment,
  stubApp,
  tempDir,
  testConfig,
} from './helpers.js';

type App = Awaited<ReturnType<typeof stubApp>>;
let tmp: ReturnType<typeof tempDir>;
let apps: App[] = [];
let mock: MockFacilitator | undefined;
const account = newAccount();

beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
  await mock?.close();
  mock = undefined;
  tmp.remove();
});

async function start(env: Record<string, string> = {}, now?: () => number): Promise<App> {
  const a = await stubApp({
    config: testConfig({ DATA_DIR: tmp.dir, PAY_TO, X402_NETWORKS: 'eip155:8453', ...env }),
    reconcileIntervalMs: 3_600_000,
    ...(now ? { now } : {}),
  });
  apps.push(a);
  await a.ready();
  return a;
}

async function facilitatorApp(env: Record<string, string> = {}): Promise<App> {
  mock = await startMockFacilitator('ok');
  return start({ X402_FACILITATOR_URL: mock.url, X402_FACILITATOR_VERIFY: 'false', X402_FACILITATOR_SETTLE_TIMEOUT_MS: '1000', ...env });
}

async function headerFor(a: App, url = '/v1/paid', extensions?: Record<string, unknown>): Promise<string> {
  const req = requirementFor(challengeOf(await a.inject({ method: 'GET', url })));
  return paymentHeader(await signPayment(account, req, {}, extensions ? { extensions } : {}));
}

const get = (a: App, header: string, url = '/v1/paid') => a.inject({ method: 'GET', url, headers: { 'payment-signature': header } });
const settlementOf = (res: { headers: Record<string, unknown> }) =>
  decodeHeader<{ extra: { settlement: string } }>(res.headers['payment-response'] as string).extra.settlement;
const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('#1 charged only for an answer the payer can get', () => {
  it('behavior: a retry while the settle hangs is answered at once from the answer cache, and charged once', async () => {
    const a = await facilitatorApp();
    const m = mock!;
    m.mode = 'blackhole';
    const header = await headerFor(a);
    const first = get(a, header);
    await until(() => m.calls.settle === 1);
    const retry = await get(a, header);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['x-payment-idempotent-replay']).toBe('true');
    expect(settlementOf(retry)).toBe('pending');
    const res = await first;
    expect(res.statusCode).toBe(200);
    expect(retry.body).toBe(res.body);
    expect(a.served()).toBe(1);
    m.mode = 'ok';
    expect(await a.payments.reconcile()).toMatchObject({ settled: 1 });
    expect([...m.charges.values()]).toEqual([expect.objectContaining({ settleCalls: 1 })]);
  });

  it('behavior: a client gone during the settle is charged, and its retry gets the answer without a second charge', async () => {
    const a = await facilitatorApp();
    const m = mock!;
    m.mode = 'slow';
    m.delayMs = 200;
    const base = await a.listen({ host: '127.0.0.1', port: 0 });
    const offer = challengeOf({ headers: { 'payment-required': (await fetch(`${base}/v1/paid`)).headers.get('payment-required') } });
    const header = paymentHeader(await signPayment(account, requirementFor(offer)));
    const req = request(`${base}/v1/paid`, { headers: { 'payment-signature': header } });
    req.on('error', () => undefined);
    req.end();
    await until(() => m.calls.settle === 1);
    req.destroy();
    await until(() => a.payments.ledgerCounts().settled === 1);
    const retry = await fetch(`${base}/v1/paid`, { headers: { 'payment-signature': header } });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-payment-idempotent-replay')).toBe('true');
    expect(decodeHeader<{ extra: { settlement: string } }>(retry.headers.get('payment-response') ?? undefined).extra.settlement).toBe('settled');
    expect(m.calls.settle).toBe(1);
    expect(a.served()).toBe(1);
  });

  it('behavior: a pending row without an answer hash (written before its answer by an older build) is released at start, not settled', async () => {
    const a = await facilitatorApp();
    mock!.mode = 'blackhole';
    const header = await headerFor(a);
    expect((await get(a, header)).statusCode).toBe(200);
    await a.close();
    apps = [];
    const db = openPaymentsDb(tmp.dir);
    db.prepare('UPDATE payments SET answer_hash = NULL, request_hash = NULL').run();
    db.close();

    mock!.mode = 'ok';
    const b = await start({ X402_FACILITATOR_URL: mock!.url, X402_FACILITATOR_VERIFY: 'false' });
    expect(b.payments.health().recovery.releasedUnansweredRows).toBe(1);
    expect(b.payments.ledgerCounts()).toMatchObject({ pending: 0, settled: 0 });
    expect(mock!.charges.size).toBe(0);
    // The authorization is free again: the payer's retry is served and charged once.
    const res = await get(b, header);
    expect(res.statusCode).toBe(200);
    expect(settlementOf(res)).toBe('settled');
    expect(mock!.charges.size).toBe(1);
  });

  it('behavior: a facilitator failing on settle leaves the payment pending and the answer served, never a new 402', async () => {
    const a = await facilitatorApp();
    mock!.mode = 'error';
    const header = await headerFor(a);
    const res = await get(a, header);
    expect(res.statusCode).toBe(200);
    expect(settlementOf(res)).toBe('pending');
    expect(a.payments.ledgerCounts().pending).toBe(1);
  });
});

describe('#5 bounded state', () => {
  it(`behavior: an answer too large to keep is recomputed for a retry (at most ${MAX_RECOMPUTES} times), charged once`, async () => {
    const a = await start();
    const header = await headerFor(a, '/v1/big');
    expect((await get(a, header, '/v1/big')).statusCode).toBe(200);
    for (let i = 0; i < MAX_RECOMPUTES; i++) {
      const retry = await get(a, header, '/v1/big');
      expect(retry.statusCode).toBe(200);
      expect(retry.headers['x-payment-idempotent-replay']).toBe('true');
    }
    expect(a.served()).toBe(1 + MAX_RECOMPUTES);
    // Successful recomputes of an answer too large to keep are counted too: past them, a charged
    // payment is refused without a new challenge (issue 22.1: never a 402 for what was paid).
    const beyond = await get(a, header, '/v1/big');
    expect(beyond.statusCode).toBe(409);
    expect(beyond.json()).toMatchObject({ error: { code: 'PAYMENT_ANSWER_EXHAUSTED' } });
    expect(beyond.headers['payment-required']).toBeUndefined();
    expect(a.payments.ledgerCounts().unsettled).toBe(1);
    expect(a.payments.health().answerCache.entries).toBe(0);
  });

  it('behavior: the answer cache stays within X402_ANSWER_CACHE_BYTES in memory, least recently used dropped first (then read from disk)', async () => {
    const a = await start({ X402_ANSWER_CACHE_BYTES: '4096', X402_ANSWER_CACHE_ENTRY_BYTES: '1024' });
    const headers: string[] = [];
    for (let i = 0; i < 30; i++) {
      const h = await headerFor(a);
      headers.push(h);
      expect((await get(a, h)).statusCode).toBe(200);
      expect(a.payments.health().answerCache.bytes).toBeLessThanOrEqual(4096);
    }
    expect(a.payments.health().answerCache.entries).toBeLessThan(30);
    const served = a.served();
    expect((await get(a, headers[29]!)).statusCode).toBe(200); // still cached
    expect(a.served()).toBe(served);
    // Dropped from memory: the copy kept on disk answers it, not a recompute (issue 22.1).
    expect((await get(a, headers[0]!)).statusCode).toBe(200);
    expect(a.served()).toBe(served);
    expect(a.payments.ledgerCounts().unsettled).toBe(30);
  });

  it('behavior: payment-identifier records keep no answers: 20 paid 100 kB answers add little to the database', async () => {
    const a = await start();
    // Pages in use once the WAL is folded into the database file.
    const size = () => {
      const db = openPaymentsDb(tmp.dir);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const pages = Number(db.pragma('page_count', { simple: true })) - Number(db.pragma('freelist_count', { simple: true }));
      const bytes = pages * Number(db.pragma('page_size', { simple: true }));
      db.close();
      return bytes;
    };
    const before = size();
    for (let i = 0; i < 20; i++) {
      const h = await headerFor(a, '/v1/big', { 'payment-identifier': { info: { required: false, id: `pay_bounded_state_${String(i).padStart(4, '0')}` } } });
      expect((await get(a, h, '/v1/big')).statusCode).toBe(200);
    }
    // 20 answers are 2 MB; 20 ledger rows and records are a few kB each.
    expect(size() - before).toBeLessThan(200_000);
  });

  it('behavior: the scheduled purge drops expired records and old ledger rows, never a pending one', async () => {
    let clock = Date.now();
    const a = await start({ X402_LEDGER_RETENTION_DAYS: '1' }, () => clock);
    const h = await headerFor(a, '/v1/paid', { 'payment-identifier': { info: { required: false, id: 'pay_purged_0123456789' } } });
    expect((await get(a, h)).statusCode).toBe(200);
    expect((await get(a, await headerFor(a))).statusCode).toBe(200);
    clock += 2 * 86_400_000;
    await a.payments.purge();
    expect(a.payments.ledgerCounts().unsettled).toBe(0);
    const health = a.payments.health();
    expect(health.purge.removed).toBe(5); // two rows, their two kept answers and one payment-identifier record
    expect(health.purge.lastAt).not.toBeNull();

    const db = openPaymentsDb(':memory:');
    const ledger = new Ledger(db, () => clock);
    await ledger.record(ledgerEntry('p', 'pending'));
    await ledger.record(ledgerEntry('s', 'settled'));
    expect(ledger.purge(clock + 1, Math.floor(clock / 1000))).toBe(1);
    expect(ledger.countByStatus()).toMatchObject({ pending: 1, settled: 0 });
    db.close();
  });

  it('default: payments.sqlite and its WAL and shared-memory files are 0600 in a 0700 directory', async () => {
    const dataDir = join(tmp.dir, 'fresh');
    const a = await stubApp({ config: testConfig({ DATA_DIR: dataDir, PAY_TO, X402_NETWORKS: 'eip155:8453' }) });
    apps.push(a);
    const req = requirementFor(challengeOf(await a.inject({ method: 'GET', url: '/v1/paid' })));
    expect((await get(a, paymentHeader(await signPayment(account, req)))).statusCode).toBe(200);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const f of [PAYMENTS_DB_FILE, `${PAYMENTS_DB_FILE}-wal`, `${PAYMENTS_DB_FILE}-shm`]) {
      expect({ f, mode: statSync(join(dataDir, f)).mode & 0o777 }).toEqual({ f, mode: 0o600 });
    }
  });

  it('default: the ledger commits with synchronous=FULL', () => {
    const db = openPaymentsDb(tmp.dir);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    db.close();
  });
});

describe('#6 modes that never settle say so', () => {
  it('behavior: demo mode: the challenge, capabilities and /health all say settlement "demo"', async () => {
    const demo = await stubApp({ config: testConfig({ DATA_DIR: tmp.dir }), store: 'memory' });
    apps.push(demo);
    expect(challengeOf(await demo.inject({ method: 'GET', url: '/v1/paid' })).settlement).toBe('demo');
    expect(demo.payments.capabilities.payment.settlement).toBe('demo');
    expect(demo.payments.health().settlement).toBe('demo');
  });

  it('error: NODE_ENV=production refuses demo and local-unsettled modes, at start-up and in the plugin', async () => {
    const prod = { DATA_DIR: tmp.dir, NODE_ENV: 'production', X402_NETWORKS: 'eip155:8453' };
    expect(() => assertPaymentConfig(testConfig(prod))).toThrow(ConfigError);
    expect(() => assertPaymentConfig(testConfig({ ...prod, PAY_TO, X402_ALLOW_UNSETTLED: '1' }))).toThrow(/X402_FACILITATOR_URL/);
    const settled = { ...prod, PAY_TO, X402_FACILITATOR_URL: 'https://facilitator.example' };
    expect(() => assertPaymentConfig(testConfig(settled))).not.toThrow();
    await expect(stubApp({ config: testConfig(prod), store: 'memory' })).rejects.toThrow(/PAY_TO/);
  });
});
