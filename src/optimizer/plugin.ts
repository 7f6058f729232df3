/**
 * The optimizer concern: the receipt signer, the worker pool, the incremental engine's worker, and
 * the cycle service with its published cache. The first cycle starts when the app is ready; the pool closes with the app.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { IncrementalRunner } from './incrementalRunner.js';
import { OptimizerPool } from './optimizerPool.js';
import { OptimizerService } from './optimizerService.js';
import { loadReceiptSigner, type ReceiptSigner } from './receipts.js';

export interface OptimizerHandle {
  enabled: boolean;
  service: OptimizerService;
  signer: ReceiptSigner;
}

declare module 'fastify' {
  interface FastifyInstance {
    optimizer: OptimizerHandle;
  }
}

export interface OptimizerPluginOptions {
  config: Config;
  node: BitcoinNode;
  now?: () => number;
  /** Start the cycle schedule on ready (tests may call `service.refresh()` themselves). */
  autoStart?: boolean;
}

async function optimizerPlugin(app: FastifyInstance, { config, node, now, autoStart = true }: OptimizerPluginOptions): Promise<void> {
  const signer = loadReceiptSigner(config.RECEIPT_SECRET_KEY, config.DATA_DIR);
  const pool = new OptimizerPool(config.OPTIMIZER_THREADS, app.log);
  const mirror = app.mempool.mirror;
  // Incremental cycles: the engine's worker follows the mirror's diffs (OPTIMIZER_INCREMENTAL_MS = 0: full cycles only).
  const incremental = config.OPTIMIZER_ENABLED && config.OPTIMIZER_INCREMENTAL_MS > 0 ? new IncrementalRunner({ mirror, logger: app.log, now }) : undefined;
  const service = new OptimizerService({ config, mirror, node, pool, signer, incremental, logger: app.log, now });
  app.decorate('optimizer', { enabled: config.OPTIMIZER_ENABLED, service, signer } satisfies OptimizerHandle);
  if (config.OPTIMIZER_ENABLED && autoStart) {
    // The first cycle waits for the mempool view's first poll (it shares the poll).
    app.addHook('onReady', async () => service.start());
  }
  app.addHook('onClose', async () => {
    await service.stop();
    await incremental?.close();
    await pool.close();
  });
}

export default fp(optimizerPlugin, { name: 'optimizer', fastify: '5.x', dependencies: ['mempool'] });
