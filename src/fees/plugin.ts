/**
 * The fees concern: the node's floor, the fee-rate sample of the mempool view (effective chunk rates
 * first, see `effectiveFeeRate.ts`), the queue projection, and cached `estimatesmartfee` answers.
 * Reads the mempool mirror and the optimizer's published cache; owns no I/O of its own beyond the
 * node's `estimatesmartfee`. Everything else in `src/fees/` is pure functions.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { btcPerKvbToSatVb } from '../bitcoin/units.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { txChunkFeeRate } from '../optimizer/cache/templateCache.js';
import { effectiveFeeRate } from './effectiveFeeRate.js';
import { feeRateSampleOf, type FeeRateSample } from './feeRateSample.js';
import { projectedFeeRate, type ProjectedFeeRate } from './projectedFeeRate.js';
import { SmartFeeCache } from './smartFeeCache.js';

/** `estimatesmartfee` answers are shared for this long (the estimate moves per block). */
export const SMART_FEE_TTL_MS = 30_000;
/** The floor before the first mempool poll: Core's historic default min relay fee, sat/vB. */
const DEFAULT_FLOOR_SAT_VB = 1;

export interface FeesService {
  /** The node's lowest accepted fee rate now (max of mempool minimum and min relay fee), sat/vB. */
  floorFeeRateSatVb(): number;
  /** The mempool view as (effective rate, vsize, fee) points, rebuilt only when the view or the optimizer cache changed. */
  sample(): FeeRateSample;
  /** Fee rate to be mined within `blocks` blocks from the current mempool, or null before the first view. */
  projection(blocks: number): ProjectedFeeRate | null;
  /** `estimatesmartfee` answers, briefly cached. */
  smartFees: SmartFeeCache;
}

declare module 'fastify' {
  interface FastifyInstance {
    fees: FeesService;
  }
}

export interface FeesPluginOptions {
  node: BitcoinNode;
  now?: () => number;
}

async function feesPlugin(app: FastifyInstance, { node, now = Date.now }: FeesPluginOptions): Promise<void> {
  const { mirror } = app.mempool;
  const optimizer = app.optimizer.service;
  let cached: { key: string; sample: FeeRateSample } | undefined;

  const floorFeeRateSatVb = (): number => {
    const info = mirror.info;
    return info ? btcPerKvbToSatVb(Math.max(info.mempoolminfee, info.minrelaytxfee)) : DEFAULT_FLOOR_SAT_VB;
  };

  const sample = (): FeeRateSample => {
    const cache = optimizer.cache;
    const key = `${mirror.version}:${cache?.cycle ?? 0}`;
    if (cached?.key === key) return cached.sample;
    const n = mirror.txs.size;
    const rates = new Float64Array(n);
    const vsizes = new Float64Array(n);
    const fees = new Float64Array(n);
    let i = 0;
    for (const tx of mirror.txs.values()) {
      rates[i] = effectiveFeeRate({
        own: { feeSat: tx.modifiedFeeSat, vsize: tx.vsize },
        optimizerChunkRateSatVb: cache ? txChunkFeeRate(cache, tx.txid) : undefined,
        arrivalNodeChunk: tx.chunkFeeSat !== null && tx.chunkWeight !== null ? { feeSat: tx.chunkFeeSat, weightWu: tx.chunkWeight } : null,
      }).satVb;
      vsizes[i] = tx.vsize;
      fees[i] = tx.feeSat;
      i++;
    }
    cached = { key, sample: feeRateSampleOf(rates, vsizes, fees) };
    return cached.sample;
  };

  app.decorate('fees', {
    floorFeeRateSatVb,
    sample,
    projection: (blocks: number) => (mirror.ready ? projectedFeeRate(sample(), blocks, floorFeeRateSatVb()) : null),
    smartFees: new SmartFeeCache(node, SMART_FEE_TTL_MS, now),
  } satisfies FeesService);
}

export const feesPluginName = 'fees';
export default fp(feesPlugin, { name: 'fees', fastify: '5.x', dependencies: ['mempool', 'optimizer'] });
