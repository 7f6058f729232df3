/**
 * The mempool concern: the mirror of the node's mempool (polled every `MEMPOOL_POLL_MS`) and the
 * replacement tracker with its durable store. Polling starts when the app is ready and stops on close.
 * Fee statistics over the mirror belong to the fees concern (`src/fees/plugin.ts`).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { MempoolMirror } from './mirror.js';
import { ReplacementStore } from './replacementStore.js';
import { ReplacementTracker } from './replacementTracker.js';

export interface MempoolService {
  mirror: MempoolMirror;
  tracker: ReplacementTracker;
}

declare module 'fastify' {
  interface FastifyInstance {
    mempool: MempoolService;
  }
}

export interface MempoolPluginOptions {
  config: Pick<Config, 'DATA_DIR' | 'MEMPOOL_POLL_MS' | 'REPLACEMENT_HISTORY_MAX'>;
  node: BitcoinNode;
  now?: () => number;
  /** Start polling on ready (tests may drive `mirror.poll()` themselves). */
  autoPoll?: boolean;
}

async function mempoolPlugin(app: FastifyInstance, { config, node, now, autoPoll = true }: MempoolPluginOptions): Promise<void> {
  const store = new ReplacementStore(config.DATA_DIR, config.REPLACEMENT_HISTORY_MAX);
  const mirror = new MempoolMirror(node, { pollMs: config.MEMPOOL_POLL_MS, logger: app.log, now });
  const tracker = new ReplacementTracker(mirror, store);
  app.decorate('mempool', { mirror, tracker } satisfies MempoolService);
  if (autoPoll) app.addHook('onReady', async () => mirror.start());
  app.addHook('onClose', async () => {
    await mirror.stop();
    tracker.detach();
    store.close();
  });
}

export default fp(mempoolPlugin, { name: 'mempool', fastify: '5.x' });
