/**
 * The mempool concern: the mirror of the node's mempool (polled every `MEMPOOL_POLL_MS`), the
 * replacement tracker with its durable store, and a cached fee-rate sample for statistics.
 * Polling starts when the app is ready and stops on close.
 */
import fp from 'fastify-plugin';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.js';
import { feeRateSampleOf, type FeeRateSample } from '../fees/feeRateSample.js';
import { MempoolMirror } from './mirror.js';
import { ReplacementStore } from './replacementStore.js';
import { ReplacementTracker } from './replacementTracker.js';

/** Effective (chunk) fee rate of a tx in sat/vB, when something better than its own rate is known. */
export type EffectiveRateLookup = (txid: string) => number | undefined;

export interface MempoolService {
  mirror: MempoolMirror;
  tracker: ReplacementTracker;
  /** Fee-rate sample of the mirror, cached until a poll changes the txs (or the effective rates change). */
  sample(): FeeRateSample;
  /** Lets the optimizer supply chunk fee rates (CPFP-aware) once it has them. */
  setEffectiveRates(lookup: EffectiveRateLookup | undefined, version: number): void;
  effectiveRate(txid: string): number | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    mempool: MempoolService;
  }
}

export interface MempoolPluginOptions {
  deps: AppDeps;
  /** Start polling on ready (tests may drive `mirror.poll()` themselves). */
  autoPoll?: boolean;
}

async function mempoolPlugin(app: FastifyInstance, { deps, autoPoll = true }: MempoolPluginOptions): Promise<void> {
  const { config } = deps;
  const file = config.DATA_DIR === ':memory:' ? ':memory:' : (mkdirSync(config.DATA_DIR, { recursive: true }), join(config.DATA_DIR, 'replacements.sqlite'));
  const store = new ReplacementStore(file, config.REPLACEMENT_HISTORY_MAX);
  const mirror = new MempoolMirror(deps.node, { pollMs: config.MEMPOOL_POLL_MS, logger: app.log, now: deps.now });
  const tracker = new ReplacementTracker(mirror, store);

  let lookup: EffectiveRateLookup | undefined;
  let lookupVersion = 0;
  let cached: { key: string; sample: FeeRateSample } | undefined;

  // The optimizer's last cycle first: it chunked the whole current view (at most one interval ago),
  // whereas a v31 node's fees.chunk/chunkweight in the mirror are from the tx's arrival and go
  // stale as soon as a child pays for it (CPFP) or a parent leaves. The arrival data still serves
  // txs newer than the last cycle.
  const effectiveRate = (txid: string): number | undefined => {
    const fromOptimizer = lookup?.(txid);
    if (fromOptimizer !== undefined) return fromOptimizer;
    const tx = mirror.txs.get(txid);
    if (tx?.chunkFeeSat != null && tx.chunkWeight) return (tx.chunkFeeSat * 4) / tx.chunkWeight;
    return undefined;
  };

  const service: MempoolService = {
    mirror,
    tracker,
    effectiveRate,
    setEffectiveRates(next, version) {
      lookup = next;
      lookupVersion = version;
    },
    sample() {
      // Rebuilt when the transactions or the effective rates changed, not on every poll.
      const key = `${mirror.version}:${lookupVersion}`;
      if (cached?.key === key) return cached.sample;
      const n = mirror.txs.size;
      const rates = new Float64Array(n);
      const vsizes = new Float64Array(n);
      const fees = new Float64Array(n);
      let i = 0;
      for (const tx of mirror.txs.values()) {
        rates[i] = effectiveRate(tx.txid) ?? tx.modifiedFeeSat / tx.vsize;
        vsizes[i] = tx.vsize;
        fees[i] = tx.feeSat;
        i++;
      }
      cached = { key, sample: feeRateSampleOf(rates, vsizes, fees) };
      return cached.sample;
    },
  };
  app.decorate('mempool', service);
  if (autoPoll) app.addHook('onReady', async () => mirror.start());
  app.addHook('onClose', async () => {
    await mirror.stop();
    tracker.detach();
    store.close();
  });
}

export default fp(mempoolPlugin, { name: 'mempool', fastify: '5.x' });
