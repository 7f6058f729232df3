/**
 * Readiness and honesty about the node (issue 21 item 7, issue 22 item 7): `/health` is 503 until
 * the node has been reached and the view loaded and whenever the node is known down; paid routes
 * answer 503 NODE_UNAVAILABLE with Retry-After before the payment gate (never the 402 challenge)
 * whenever the node is known down, found by the background check within a second or two, not after
 * a staleness window; `/health` reports the last check and never waits on a hung node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { EsploraAddressSource } from '../../src/node/esploraAddressSource.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { switchableProxy, type SwitchableProxy } from '../helpers/switchableProxy.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';
const dirs: string[] = [];
let sim: SimnetHandle;

async function appOn(url: string, env: Record<string, string> = {}): Promise<App> {
  const dir = mkdtempSync(join(tmpdir(), 'readiness-'));
  dirs.push(dir);
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    PAYMENTS_ENABLED: 'true',
    PAY_TO,
    X402_NETWORKS: 'eip155:84532',
    NODE_CHECK_INTERVAL_MS: '250',
    ...env,
  });
  const node = new BitcoinNode({ url, timeoutMs: config.BITCOIN_RPC_TIMEOUT_MS, scanTimeoutMs: config.BITCOIN_RPC_TIMEOUT_MS });
  const app = await buildApp({ config, node, addressSource: new EsploraAddressSource(sim.esploraUrl, 1000), nodeKind: 'real', autoStart: false });
  await app.ready();
  return app;
}

/** A port that accepts connections and never answers (a blackholed node). */
async function silentServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://u:p@127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

async function closedPortUrl(): Promise<string> {
  const s = await silentServer();
  await s.stop();
  return s.url;
}

const rpc = (app: App, method: string) => app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method, params: [] } });

/** Polls `probe` until it returns true or `ms` passes. */
async function within(ms: number, probe: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return probe();
}

beforeAll(async () => {
  sim = await startSimnet({ seed: 3, blockIntervalSec: 0, txPerSec: 0, initialTxs: 30, policyModule: CORE_V31_POLICY_MODULE });
});
afterAll(async () => {
  await sim?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a node unreachable at start', () => {
  let app: App;
  beforeAll(async () => {
    app = await appOn(await closedPortUrl());
  });
  afterAll(() => app?.close());

  it('/health is 503 NODE_UNAVAILABLE, the node reported unreachable', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('NODE_UNAVAILABLE');
    expect(res.json().error.details.node).toMatchObject({ reachable: false });
  });

  it('a paid route answers 503 with Retry-After, not the 402 challenge', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/block-height' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.headers['payment-required']).toBeUndefined();
    expect(res.json().error.code).toBe('NODE_UNAVAILABLE');
    expect((await rpc(app, 'eth_blockNumber')).json().error).toMatchObject({ code: -32000, data: { code: 'NODE_UNAVAILABLE' } });
  });
});

describe('a node that stops while the service runs', () => {
  let proxy: SwitchableProxy;
  let app: App;
  beforeAll(async () => {
    proxy = await switchableProxy(sim.rpcUrl);
    app = await appOn(proxy.url);
    await app.mempool.mirror.poll();
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  it('ready: /health 200, a paid route asks for payment', async () => {
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v1/mempool/stats' })).statusCode).toBe(402);
  });

  it('stopped: the background check finds it within seconds (no request, no poll needed); paid routes 503 before payment', async () => {
    proxy.down();
    const refused = await within(3000, async () => (await app.inject({ method: 'GET', url: '/v1/mempool/stats' })).statusCode === 503);
    expect(refused).toBe(true);
    const res = await app.inject({ method: 'GET', url: '/v1/mempool/stats' });
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.headers['payment-required']).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
  });

  it('back: served again once a check succeeds', async () => {
    proxy.up();
    expect(await within(3000, async () => (await app.inject({ method: 'GET', url: '/v1/mempool/stats' })).statusCode === 402)).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('a blackholed node', () => {
  it('/health answers from the last check while checks hang', async () => {
    const silent = await silentServer();
    // Each check hangs for 3 s; /health must not wait for one.
    const app = await appOn(silent.url, { NODE_CHECK_TIMEOUT_MS: '3000', BITCOIN_RPC_TIMEOUT_MS: '20000' });
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await Promise.race([
          app.inject({ method: 'GET', url: '/health' }).then((r) => r.statusCode),
          new Promise<'waited'>((r) => setTimeout(() => r('waited'), 1000)),
        ]);
        expect(answer).toBe(503);
      }
    } finally {
      await app.close();
      await silent.stop();
    }
  });
});
