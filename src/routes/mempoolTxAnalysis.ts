/**
 * Our analysis of one mempool entry: fees and rates, the effective (package) fee rate it will be
 * mined at, age, RBF, ancestors and descendants, and how many blocks away it is.
 *
 * Effective fee rate, best source first:
 * 1. `node_chunk`: the chunk fee/weight a Core v31 node reports (exact cluster-mempool answer);
 * 2. `optimizer_chunk`: the chunk fee rate from our optimizer's last cycle;
 * 3. `package_estimate`: without either, min(own, ancestor package) when parents drag it down,
 *    or the descendant package rate when children pay for it (CPFP); an approximation.
 */
import type { MempoolService } from '../mempool/plugin.js';
import { btcToSats } from '../node/bitcoinNode.js';
import type { MempoolEntry } from '../node/schemas.js';
import { vsizeAbove } from '../fees/feeRateSample.js';
import { BLOCK_TX_VSIZE } from '../fees/projectedFeeRate.js';
import { round } from '../util/round.js';
import type { RouteContext } from './context.js';
import { isoFromUnix } from './schemas.js';

export type EffectiveRateSource = 'node_chunk' | 'optimizer_chunk' | 'package_estimate';

export function effectiveFeeRate(entry: MempoolEntry, optimizerRate: number | undefined): { satVb: number; source: EffectiveRateSource } {
  if (entry.fees.chunk !== undefined && entry.chunkweight) {
    return { satVb: (btcToSats(entry.fees.chunk) * 4) / entry.chunkweight, source: 'node_chunk' };
  }
  if (optimizerRate !== undefined) return { satVb: optimizerRate, source: 'optimizer_chunk' };
  const own = btcToSats(entry.fees.modified) / entry.vsize;
  const ancestor = btcToSats(entry.fees.ancestor) / entry.ancestorsize;
  const descendant = btcToSats(entry.fees.descendant) / entry.descendantsize;
  return { satVb: Math.max(Math.min(own, ancestor), descendant > own ? descendant : 0), source: 'package_estimate' };
}

export function mempoolTxAnalysis(txid: string, entry: MempoolEntry, nowMs: number, ctx: RouteContext, mempool: MempoolService) {
  const feeSat = btcToSats(entry.fees.base);
  const effective = effectiveFeeRate(entry, ctx.optimizerChunkRate(txid));
  const position = blocksAway(txid, effective.satVb, ctx, mempool);
  const floor = ctx.floorFeeRateSatVb();
  const fullRbf = mempool.mirror.info?.fullrbf ?? true;
  return {
    txid,
    feeSat,
    modifiedFeeSat: btcToSats(entry.fees.modified),
    vsize: entry.vsize,
    weight: entry.weight ?? entry.vsize * 4,
    feeRateSatVb: round(feeSat / entry.vsize),
    effectiveFeeRate: { satVb: round(effective.satVb), source: effective.source },
    firstSeen: isoFromUnix(entry.time),
    ageSeconds: Math.max(0, Math.floor(nowMs / 1000) - entry.time),
    entryHeight: entry.height,
    rbf: {
      // Full RBF is Core's default since v28: every mempool tx can be replaced, signalling or not;
      // a v28 node run with -mempoolfullrbf=0 (getmempoolinfo fullrbf: false) replaces only BIP125 signallers.
      replaceable: fullRbf || (entry['bip125-replaceable'] ?? true),
      bip125Signaling: entry['bip125-replaceable'] ?? null,
      fullRbf,
    },
    ancestors: {
      count: entry.ancestorcount - 1,
      vsize: entry.ancestorsize - entry.vsize,
      feeSat: btcToSats(entry.fees.ancestor) - btcToSats(entry.fees.modified),
    },
    descendants: {
      count: entry.descendantcount - 1,
      vsize: entry.descendantsize - entry.vsize,
      feeSat: btcToSats(entry.fees.descendant) - btcToSats(entry.fees.modified),
    },
    parents: entry.depends,
    children: entry.spentby,
    position,
    belowMinimum: effective.satVb < floor,
    unit: { fee: 'sat', feeRate: 'sat/vB', size: 'vB' },
  };
}

/** 1-based projected block: from the optimizer when it has placed the tx, else from the fee-rate queue. */
function blocksAway(txid: string, rate: number, ctx: RouteContext, mempool: MempoolService) {
  const projected = ctx.optimizerProjectedBlock(txid);
  if (projected !== undefined) {
    return { blocksAway: projected.block, beyondProjection: projected.beyond, source: 'optimizer' as const, vsizeAhead: null };
  }
  const vsizeAhead = vsizeAbove(mempool.sample(), rate);
  return { blocksAway: Math.floor(vsizeAhead / BLOCK_TX_VSIZE) + 1, beyondProjection: false, source: 'fee_rate_queue' as const, vsizeAhead };
}
