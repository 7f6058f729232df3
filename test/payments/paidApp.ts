/**
 * The real application (buildApp, the real routes) charging through the embedded simulated node's
 * policy, listening on 127.0.0.1:0 with its mempool view loaded: the world of the HTTP payment tests.
 */
import { buildApp, type App } from '../../src/app.js';
import type { AddressSource } from '../../src/node/addressSource.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { PAY_TO, tempDir, testConfig } from './helpers.js';

export interface PaidApp {
  app: App;
  sim: SimnetHandle;
  /** http://127.0.0.1:PORT */
  base: string;
  close(): Promise<void>;
}

export async function listenPaidApp(opts: {
  seed: number;
  initialTxs: number;
  /** The address index; the node's own scan by default. */
  addressSource?: (node: BitcoinNode) => AddressSource;
  checkResponses?: boolean;
}): Promise<PaidApp> {
  const tmp = tempDir();
  const sim = await startSimnet({ seed: opts.seed, initialTxs: opts.initialTxs, policyModule: CORE_V31_POLICY_MODULE });
  const config = testConfig({ DATA_DIR: tmp.dir, PAY_TO, BITCOIN_RPC_URL: sim.rpcUrl });
  const node = new BitcoinNode({ url: sim.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 30_000 });
  const addressSource = opts.addressSource?.(node) ?? new ScanAddressSource(node);
  const app = await buildApp({ config, node, addressSource, nodeKind: 'simulated', autoStart: false, checkResponses: opts.checkResponses ?? false });
  // /health is 503 until the mempool view has loaded.
  await app.ready();
  await app.mempool.mirror.poll();
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    sim,
    base,
    close: async () => {
      await app.close();
      await sim.close();
      tmp.remove();
    },
  };
}
