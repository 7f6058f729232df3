/**
 * A test world: the embedded simulated node (automatic activity off, so tests drive it) and the
 * app built on it with a fresh data directory. No mocks: tests talk to a real node protocol.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppDeps } from '../../src/deps.js';
import type { AddressSource } from '../../src/node/addressSource.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { EsploraAddressSource } from '../../src/node/esploraAddressSource.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from './policyModule.js';

export interface TestWorld {
  simnet: SimnetHandle;
  node: BitcoinNode;
  app: App;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

export interface TestWorldOptions {
  seed?: number;
  initialTxs?: number;
  env?: Record<string, string>;
  addressSource?: 'esplora' | 'scantxoutset';
  /** Build the app with background polling/cycles on (default off: tests call poll/refresh). */
  autoStart?: boolean;
  /** Follow the simulated node's ZMQ notifications (as `npm start` does). */
  events?: boolean;
  /** fastify logger option (default: none). */
  logger?: AppDeps['logger'];
}

export async function startTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const simnet = await startSimnet({
    seed: options.seed ?? 7,
    blockIntervalSec: 0,
    txPerSec: 0,
    initialTxs: options.initialTxs ?? 300,
    fundingUtxos: 4000,
    policyModule: CORE_V31_POLICY_MODULE,
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'btc-intel-test-'));
  // Rate limits off unless a test sets them: tests send hundreds of requests from one address.
  const config = loadConfig({
    DATA_DIR: dataDir,
    PAYMENTS_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    ...(options.events ? { ZMQ_URL: simnet.zmqUrl, ZMQ_RAWTX_URL: simnet.zmqUrl } : {}),
    ...options.env,
  });
  const node = new BitcoinNode({ url: simnet.rpcUrl, timeoutMs: config.BITCOIN_RPC_TIMEOUT_MS, scanTimeoutMs: config.BITCOIN_RPC_SCAN_TIMEOUT_MS });
  const addressSource: AddressSource =
    options.addressSource === 'scantxoutset' ? new ScanAddressSource(node, 0) : new EsploraAddressSource(simnet.esploraUrl, config.ESPLORA_TIMEOUT_MS);
  const app = await buildApp({
    config,
    node,
    addressSource,
    nodeKind: 'simulated',
    autoStart: options.autoStart ?? false,
    checkResponses: true,
    logger: options.logger ?? false,
  });
  await app.ready();
  return {
    simnet,
    node,
    app,
    config,
    dataDir,
    async close() {
      await app.close();
      await simnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls the mempool view and runs one optimizer cycle, so reads see the sim's current state. */
export async function refresh(world: TestWorld): Promise<void> {
  await world.app.mempool.mirror.poll();
  await world.app.optimizer.service.refresh();
}
