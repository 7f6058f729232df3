/**
 * The service built on a real regtest Bitcoin Core (no simulated node): the same app as
 * production with `BITCOIN_RPC_URL` pointing at Core and `scantxoutset` for addresses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';
import type { Regtest } from './regtest.js';

export interface CoreWorld {
  app: App;
  node: BitcoinNode;
  config: Config;
  close(): Promise<void>;
}

/** The app on `core`, background work off (tests call `refreshFromCore`). */
export async function startServiceOnCore(core: Regtest, env: Record<string, string> = {}): Promise<CoreWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'btc-intel-core-app-'));
  const config = loadConfig({ DATA_DIR: dataDir, BITCOIN_RPC_URL: core.rpcUrl, PAYMENTS_ENABLED: 'false', LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '0', ...env });
  const node = new BitcoinNode({ url: core.rpcUrl, timeoutMs: config.BITCOIN_RPC_TIMEOUT_MS, scanTimeoutMs: config.BITCOIN_RPC_SCAN_TIMEOUT_MS });
  const app = await buildApp({ config, node, addressSource: new ScanAddressSource(node, 0), nodeKind: 'real', autoStart: false, checkResponses: true });
  await app.ready();
  return {
    app,
    node,
    config,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls the mempool view and runs one optimizer cycle, so the service's answers see Core's state now. */
export async function refreshFromCore(world: CoreWorld): Promise<void> {
  await world.app.mempool.mirror.poll();
  await world.app.optimizer.service.refresh();
}

/** GET or POST through the app; returns status and the answer (parsed when it is JSON, else its text). */
export async function ask(world: CoreWorld, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<{ status: number; body: any }> {
  const res = await world.app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  const json = String(res.headers['content-type'] ?? '').startsWith('application/json');
  return { status: res.statusCode, body: json ? res.json() : res.body };
}

/** One JSON-RPC call through `POST /v1/rpc`; returns the envelope. */
export async function rpcCall(world: CoreWorld, method: string, params: unknown[] = []): Promise<any> {
  const { body } = await ask(world, 'POST', '/v1/rpc', { jsonrpc: '2.0', id: 1, method, params });
  return body;
}
