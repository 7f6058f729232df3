/**
 * The optimizer concern: the receipt signer, the worker pool, the incremental engine's worker, and
 * the cycle service with its published cache. The first cycle starts when the app is ready; the
 * pool closes with the app. With `REDIS_URL`, the replicas elect one leader that runs the cycles;
 * the others serve its cache (leadership.ts).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { BlockAuditor } from './blockAudit.js';
import { IncrementalRunner } from './incremental/incrementalRunner.js';
import { newReplicaId, OptimizerLeadership, singleStatus, type LeaseStatus } from './leadership/leadership.js';
import { OptimizerPool } from './full/optimizerPool.js';
import { OptimizerService } from './optimizerService.js';
import { loadReceiptSigner, type ReceiptSigner } from './cache/receipts.js';

export interface OptimizerHandle {
  enabled: boolean;
  service: OptimizerService;
  signer: ReceiptSigner;
  /** This replica's part in the optimizer lead (`single` without Redis). */
  lease: LeaseStatus;
  /** Every new block next to our last template for its parent (the last BLOCK_AUDIT_KEEP). */
  audits: BlockAuditor;
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
  const clock = now ?? Date.now;
  const startedAt = clock();
  // As /health judges it (api/freshness.ts): polls failing for longer than NODE_STALE_AFTER_MS.
  const nodeReachable = (): boolean => {
    const { mirror } = app.mempool;
    return mirror.lastError === null || clock() - (mirror.lastPollAt ?? startedAt) <= config.NODE_STALE_AFTER_MS;
  };
  const leadership =
    config.REDIS_URL && config.OPTIMIZER_ENABLED
      ? new OptimizerLeadership({
          redisUrl: config.REDIS_URL,
          leaseMs: config.OPTIMIZER_LEASE_MS,
          // A follower starting later still finds the last cache for a while; not forever.
          cacheTtlMs: Math.max(10 * config.OPTIMIZER_INTERVAL_SEC * 1000, 10 * config.OPTIMIZER_LEASE_MS),
          service,
          signer,
          canLead: nodeReachable,
          logger: app.log,
          now,
        })
      : undefined;
  const lease = leadership?.status ?? singleStatus(newReplicaId());
  const audits = new BlockAuditor({ mirror, node, optimizer: service, keep: config.BLOCK_AUDIT_KEEP, logger: app.log, now });
  app.decorate('optimizer', { enabled: config.OPTIMIZER_ENABLED, service, signer, lease, audits } satisfies OptimizerHandle);
  if (config.OPTIMIZER_ENABLED && autoStart) {
    // The first cycle waits for the mempool view's first poll (it shares the poll). With a leader
    // lease, cycles run only while this replica holds it.
    app.addHook('onReady', async () => (leadership ? leadership.start() : service.start()));
  }
  app.addHook('onClose', async () => {
    audits.close();
    await leadership?.stop();
    await service.stop();
    await incremental?.close();
    await pool.close();
  });
}

export default fp(optimizerPlugin, { name: 'optimizer', fastify: '5.x', dependencies: ['mempool'] });
