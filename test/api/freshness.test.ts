/**
 * Honest freshness (issues 16, 21): answers derived from the mempool view or the optimizer cache say
 * how old they are; while the node is known down (its last poll or check failed) they are refused
 * with 503 NODE_UNAVAILABLE (Retry-After), never charged, and /health answers 503 so a load
 * balancer takes the replica out. The node sits behind a TCP proxy the test switches off; the
 * clock is the app's injectable `now`, moved forward instead of waiting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { EsploraAddressSource } from '../../src/node/esploraAddressSource.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment } from '../payments/helpers.js';
import { first } from '../helpers/first.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { switchableProxy, type SwitchableProxy } from '../helpers/switchableProxy.js';

const STALE_MS = 5000;

let sim: SimnetHandle;
let proxy: SwitchableProxy;
let offset = 0;
const now = () => Date.now() + offset;
const dirs: string[] = [];

async function appOn(env: Record<string, string>): Promise<App> {
  const dir = mkdtempSync(join(tmpdir(), 'freshness-'));
  dirs.push(dir);
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    NODE_STALE_AFTER_MS: String(STALE_MS),
    BITCOIN_RPC_TIMEOUT_MS: '1000',
    X402_NETWORKS: 'eip155:8453,eip155:84532',
    ...env,
  });
  const node = new BitcoinNode({ url: proxy.url, timeoutMs: 1000, scanTimeoutMs: 1000 });
  const app = await buildApp({
    config,
    node,
    addressSource: new EsploraAddressSource(sim.esploraUrl, 1000),
    nodeKind: 'simulated',
    autoStart: false,
    checkResponses: true,
    now,
  });
  await app.ready();
  return app;
}

/** One poll (and cycle) through the proxy; a failing poll only records its error. */
async function poll(app: App, cycle = false): Promise<void> {
  await app.mempool.mirror.poll().catch(() => undefined);
  if (cycle) await app.optimizer.service.refresh();
}

beforeAll(async () => {
  sim = await startSimnet({ seed: 5, blockIntervalSec: 0, txPerSec: 0, initialTxs: 60, policyModule: CORE_V31_POLICY_MODULE });
  proxy = await switchableProxy(sim.rpcUrl);
});
afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('honest freshness', () => {
  let app: App;
  const txid = () => first([...app.mempool.mirror.txs.keys()], 'mempool');
  beforeAll(async () => {
    proxy.up();
    offset = 0;
    app = await appOn({ PAYMENTS_ENABLED: 'false' });
    await poll(app, true);
  });
  afterAll(() => app?.close());

  const derived = () => [
    { method: 'GET' as const, url: '/v1/mempool/stats' },
    { method: 'GET' as const, url: '/v1/mempool/fees' },
    { method: 'GET' as const, url: '/v1/fee-estimate?blocks=2' },
    { method: 'POST' as const, url: '/v1/template/check', payload: { txid: txid() } },
    { method: 'POST' as const, url: '/v1/template/batch-check', payload: { txids: [txid()] } },
    { method: 'POST' as const, url: '/v1/template/fee-ladder', payload: {} },
    { method: 'POST' as const, url: '/v1/template/optimized-txids', payload: { maxTxids: 1 } },
  ];

  it('default: every answer derived from the mempool view or the optimizer cache carries asOf and ageMs', async () => {
    offset = 1234;
    const pollAt = app.mempool.mirror.lastPollAt ?? NaN;
    const cachedAt = app.optimizer.service.cache?.cachedAt ?? NaN;
    for (const request of derived()) {
      const res = await app.inject(request);
      expect(res.statusCode, request.url).toBe(200);
      const body = res.json<{ asOf: string; ageMs: number }>();
      const at = request.url.startsWith('/v1/template') ? cachedAt : pollAt;
      expect(body.asOf, request.url).toBe(new Date(at).toISOString());
      expect(body.ageMs, request.url).toBeGreaterThanOrEqual(1234);
      expect(body.ageMs, request.url).toBeLessThan(1234 + 60_000);
    }
  });

  it('error: the node known down (its last poll failed): refused at once, no staleness window (issue 21 item 7)', async () => {
    proxy.down();
    await poll(app);
    expect(app.mempool.mirror.lastError).not.toBeNull();
    const res = await app.inject({ method: 'GET', url: '/v1/mempool/stats' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('NODE_UNAVAILABLE');
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
  });

  it('error: the node still down later: derived routes answer 503 NODE_UNAVAILABLE with Retry-After', async () => {
    offset = STALE_MS + 1000;
    for (const request of derived()) {
      const res = await app.inject(request);
      expect(res.statusCode, request.url).toBe(503);
      expect(res.headers['retry-after'], request.url).toBeDefined();
      expect(res.json().error.code, request.url).toBe('NODE_UNAVAILABLE');
      expect(res.json().error.message, request.url).toMatch(/stale/);
    }
    const rpc = await app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] } });
    expect(rpc.json()).toMatchObject({ id: 1, error: { code: -32000, data: { code: 'NODE_UNAVAILABLE' } } });
    const capabilities = await app.inject({ method: 'GET', url: '/v1/template/capabilities' });
    expect(capabilities.json().optimizer).toMatchObject({ available: false, status: 'degraded' });
  });

  it('error: /health answers 503 with the reason once the replica cannot serve', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    const body = res.json<{ success: boolean; error: { code: string; message: string; details: { node: { reachable: boolean } } } }>();
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('NODE_UNAVAILABLE');
    expect(body.error.message).toMatch(/cannot serve/);
    expect(body.error.details.node.reachable).toBe(false);
  });

  it('behavior: the node back: served again and /health is 200', async () => {
    proxy.up();
    await poll(app);
    expect((await app.inject({ method: 'GET', url: '/v1/mempool/stats' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('a stale or failed answer is never charged', () => {
  let app: App;
  let base: string;
  const account = newAccount();
  beforeAll(async () => {
    proxy.up();
    offset = 0;
    app = await appOn({ PAY_TO });
    await poll(app, true);
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app?.close());

  async function paymentFor(path: string): Promise<string> {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(402);
    const challenge = challengeOf({ headers: { 'payment-required': res.headers.get('payment-required') } });
    return paymentHeader(await signPayment(account, requirementFor(challenge)));
  }
  const ledger = () => app.payments.ledgerCounts();

  it('error: a paid request for a stale snapshot answers 503 and its payment is neither taken nor spent', async () => {
    const header = await paymentFor('/v1/mempool/stats');
    proxy.down();
    await poll(app);
    offset = STALE_MS + 1000;
    const before = ledger();
    const res = await fetch(`${base}/v1/mempool/stats`, { headers: { 'payment-signature': header } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect(res.headers.get('payment-response')).toBeNull();
    expect(ledger()).toEqual(before);
    // The same payment still pays once the node is back.
    proxy.up();
    await poll(app);
    const again = await fetch(`${base}/v1/mempool/stats`, { headers: { 'payment-signature': header } });
    expect(again.status).toBe(200);
    expect(ledger().unsettled).toBe(before.unsettled + 1);
  });

  it('error: a paid live read that fails with 503 (node down) is verified but not charged', async () => {
    offset = 0;
    const header = await paymentFor('/v1/block-height');
    proxy.down();
    const before = ledger();
    const res = await fetch(`${base}/v1/block-height`, { headers: { 'payment-signature': header } });
    expect(res.status).toBe(503);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(ledger()).toEqual(before);
    proxy.up();
  });
});
