/**
 * The optimizer concern: the receipt signer, the worker pool, and the cycle service with its
 * published cache. The first cycle starts when the app is ready; the pool closes with the app.
 * Each published cache also feeds the mempool view its chunk (CPFP-aware) fee rates.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.js';
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
  deps: AppDeps;
  /** Start the cycle schedule on ready (tests may call `service.refresh()` themselves). */
  autoStart?: boolean;
}

async function optimizerPlugin(app: FastifyInstance, { deps, autoStart = true }: OptimizerPluginOptions): Promise<void> {
  const { config } = deps;
  const signer = loadReceiptSigner(config.RECEIPT_SECRET_KEY, config.DATA_DIR);
  const pool = new OptimizerPool(config.OPTIMIZER_THREADS, app.log);
  const service = new OptimizerService({ config, mirror: app.mempool.mirror, node: deps.node, pool, signer, logger: app.log, now: deps.now });
  service.on('published', (cache) => {
    app.mempool.setEffectiveRates((txid) => {
      const i = cache.txIndex.get(txid);
      return i === undefined ? undefined : cache.txChunkFeeRateSatVb[i];
    }, cache.cycle);
  });
  app.decorate('optimizer', { enabled: config.OPTIMIZER_ENABLED, service, signer });
  if (config.OPTIMIZER_ENABLED && autoStart) {
    app.addHook('onReady', async () => {
      // The first cycle waits for the mempool view's first poll (it shares the poll).
      service.start();
    });
  }
  app.addHook('onClose', async () => {
    await service.stop();
    await pool.close();
  });
}

export default fp(optimizerPlugin, { name: 'optimizer', fastify: '5.x', dependencies: ['mempool'] });
