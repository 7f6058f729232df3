import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PaymentError } from '../../src/payments/verify.js';
import { openPaymentsDb } from '../../src/payments/db.js';
import { Ledger, PURGE_SQL } from '../../src/payments/ledger.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';
import { startFacilitatorFor, type LocalFacilitator } from './localFacilitator.js';

const NETWORKS = 'eip155:8453,eip155:84532';
let tmp: ReturnType<typeof tempDir>;
let fac: LocalFacilitator;
const account = newAccount();

beforeEach(async () => {
  tmp = tempDir();
  fac = await startFacilitatorFor(NETWORKS);
});
afterEach(async () => {
  await fac.close();
  tmp.remove();
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: tmp.dir,
    PAY_TO,
    X402_NETWORKS: NETWORKS,
    X402_FACILITATOR_URL: fac.url,
    X402_FACILITATOR_VERIFY_TIMEOUT_MS: '1500',
    X402_FACILITATOR_SETTLE_TIMEOUT_MS: '1500',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

async function header(url: string): Promise<string> {
  const res = await fetch(url);
  const req = requirementFor(challengeOf({ headers: { 'payment-required': res.headers.get('payment-required') } }));
  return paymentHeader(await signPayment(account, req));
}

describe('ledger', () => {
  it('behavior: rows and claims survive a restart: the same request is answered again uncharged, another is refused', async () => {
    const config = testConfig({ DATA_DIR: tmp.dir, PAY_TO, X402_NETWORKS: NETWORKS, PUBLIC_BASE_URL: 'https://api.example.com' });
    const a = await stubApp({ config });
    await a.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(a.server.address() as { port: number }).port}/v1/paid`;
    const h = await header(url);
    expect((await fetch(url, { headers: { 'payment-signature': h } })).status).toBe(200);
    await a.close();

    const b = await stubApp({ config });
    try {
      expect(b.payments.ledgerCounts()).toMatchObject({ unsettled: 1 });
      // The answer outlived the process (kept on disk): given again as it was, not recomputed, not charged.
      const again = await b.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': h } });
      expect(again.statusCode).toBe(200);
      expect(again.headers['x-payment-idempotent-replay']).toBe('true');
      expect(again.json()).toMatchObject({ served: 1 });
      expect(b.served()).toBe(0);
      expect(b.payments.ledgerCounts()).toMatchObject({ unsettled: 1 });
      const replay = await b.inject({ method: 'GET', url: '/v1/paid?other=1', headers: { 'payment-signature': h } });
      expect(replay.statusCode).toBe(402);
      expect(challengeOf(replay).error).toBe(PaymentError.RESOURCE);
    } finally {
      await b.close();
    }
  });

  it('behavior: a process killed between the answer and the settlement is settled after restart', async () => {
    fac.hangSettles = 1; // the facilitator holds the first settle: the process dies while waiting
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/payments/fixtures/paidServer.ts'], {
      env: { ...process.env, ...env({ X402_FACILITATOR_SETTLE_TIMEOUT_MS: '60000' }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      while (!/PORT=\d+/.test(out)) {
        const [chunk] = await once(child.stdout, 'data');
        out += chunk.toString();
      }
      const url = `http://127.0.0.1:${/PORT=(\d+)/.exec(out)![1]}/v1/paid`;
      const h = await header(url);
      const paid = fetch(url, { headers: { 'payment-signature': h } }).catch((err: unknown) => err);
      // Wait until the server is inside /settle (the ledger row is written before that call).
      while (fac.calls.settle < 1) await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(await paid).toBeInstanceOf(Error); // the client never got an answer

      const db = openPaymentsDb(tmp.dir);
      const rows = new Ledger(db).list('pending');
      db.close();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ route: 'GET /v1/paid', payer: account.address.toLowerCase(), amount: '1000', network: 'eip155:8453' });

      const b = await stubApp({ config: testConfig(env()), reconcileIntervalMs: 3_600_000 });
      try {
        await b.ready();
        await b.payments.reconcile();
        expect(b.payments.ledgerCounts()).toMatchObject({ pending: 0, settled: 1 });
        expect(fac.transactions.size).toBe(1);
      } finally {
        await b.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('ledger retention', () => {
  it('behavior: the purge of old rows searches an index on created_at instead of scanning the ledger', () => {
    const db = openPaymentsDb(':memory:');
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${PURGE_SQL}`).all(1, 2) as Array<{
      detail: string;
    }>;
    expect(plan.map((p) => p.detail).join('; ')).toMatch(/USING INDEX payments_created/);
    db.close();
  });
});
