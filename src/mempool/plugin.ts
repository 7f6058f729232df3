/**
 * The mempool concern: the mirror of the node's mempool, the follower that keeps it current from
 * node events (Core's ZMQ `sequence` topic when `ZMQ_URL` is set, or the event source the embedder
 * passes, e.g. the simulated node's), and the replacement tracker with its durable store. Without
 * events the mirror polls every `MEMPOOL_POLL_MS`. Syncing starts when the app is ready and stops
 * on close. Fee statistics over the mirror belong to the fees concern (`src/fees/plugin.ts`).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { MempoolFollower } from './follower.js';
import type { MempoolEventSource } from './mempoolEvents.js';
import { MempoolMirror } from './mirror.js';
import { ReplacementStore } from './replacementStore.js';
import { ReplacementTracker } from './replacementTracker.js';
import { ZmqSequenceSource } from './zmqSequence.js';

export interface MempoolService {
  mirror: MempoolMirror;
  tracker: ReplacementTracker;
  /** Null when the view is kept by polling only (no event source). */
  follower: MempoolFollower | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    mempool: MempoolService;
  }
}

export interface MempoolPluginOptions {
  config: Pick<Config, 'DATA_DIR' | 'MEMPOOL_POLL_MS' | 'REPLACEMENT_HISTORY_MAX' | 'ZMQ_URL' | 'ZMQ_RAWTX_URL' | 'MEMPOOL_EVENTS_QUIET_MS'>;
  node: BitcoinNode;
  now?: () => number;
  /** Node events to follow; default: Core's ZMQ `sequence` topic at `ZMQ_URL`, if set. */
  eventSource?: MempoolEventSource;
  /** Start the scheduled syncs on ready (tests may drive `mirror.poll()` themselves; events are followed either way). */
  autoPoll?: boolean;
}

async function mempoolPlugin(app: FastifyInstance, { config, node, now, eventSource, autoPoll = true }: MempoolPluginOptions): Promise<void> {
  const store = new ReplacementStore(config.DATA_DIR, config.REPLACEMENT_HISTORY_MAX);
  const source = eventSource ?? (config.ZMQ_URL ? new ZmqSequenceSource(config.ZMQ_URL, config.ZMQ_RAWTX_URL) : undefined);
  let follower: MempoolFollower | null = null;
  const mirror = new MempoolMirror(node, {
    pollMs: config.MEMPOOL_POLL_MS,
    interval: () => follower?.nextSyncDelay() ?? config.MEMPOOL_POLL_MS,
    logger: app.log,
    now,
  });
  if (source) follower = new MempoolFollower(mirror, source, { quietMs: config.MEMPOOL_EVENTS_QUIET_MS, pollMs: config.MEMPOOL_POLL_MS, logger: app.log, now });
  const tracker = new ReplacementTracker(mirror, store);
  app.decorate('mempool', { mirror, tracker, follower } satisfies MempoolService);
  app.addHook('onReady', async () => {
    await follower?.start();
    if (autoPoll) mirror.start();
  });
  app.addHook('onClose', async () => {
    await follower?.stop();
    await mirror.stop();
    tracker.detach();
    store.close();
  });
}

export default fp(mempoolPlugin, { name: 'mempool', fastify: '5.x' });
