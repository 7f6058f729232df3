/**
 * Our analysis of one mempool entry: fees and rates, the effective (chunk) fee rate it will be
 * mined at (`src/fees/effectiveFeeRate.ts` for the precedence), age, RBF, ancestors and
 * descendants, and how many blocks away it is.
 */
import { z } from 'zod';
import { BLOCK_TX_VSIZE } from '../../bitcoin/consensus.js';
import { btcToSats, isoFromUnix } from '../../bitcoin/units.js';
import { effectiveFeeRate } from '../../fees/effectiveFeeRate.js';
import { vsizeAbove } from '../../fees/feeRateSample.js';
import type { MempoolEntry } from '../../node/schemas.js';
import { txChunkFeeRate, txProjectedPlacement } from '../../optimizer/cache/templateCache.js';
import { round } from '../../util/round.js';
import type { ApiContext } from '../define.js';
import { Hash, IsoTime, Sat, SatVb } from '../schemas.js';

/** The transaction's unconfirmed ancestors (or descendants) in the mempool, the transaction itself not counted (Core counts it). */
const Package = z.object({ count: z.number().int().nonnegative(), vsize: z.number().int().nonnegative(), feeSat: Sat });

export const MempoolTxAnalysis = z.object({
  txid: Hash,
  feeSat: Sat,
  modifiedFeeSat: Sat,
  vsize: z.number().int(),
  weight: z.number().int(),
  feeRateSatVb: SatVb,
  effectiveFeeRate: z.object({ satVb: SatVb, source: z.enum(['node_chunk', 'optimizer_chunk', 'node_chunk_at_arrival', 'package_estimate', 'own']) }),
  firstSeen: IsoTime,
  ageSeconds: z.number().int().nonnegative(),
  entryHeight: z.number().int(),
  rbf: z.object({ replaceable: z.boolean(), bip125Signaling: z.boolean().nullable(), fullRbf: z.boolean() }),
  ancestors: Package,
  descendants: Package,
  parents: z.array(Hash),
  children: z.array(Hash),
  position: z.object({
    blocksAway: z.number().int().positive(),
    beyondProjection: z.boolean(),
    source: z.enum(['optimizer', 'fee_rate_queue']),
    vsizeAhead: z.number().nullable(),
  }),
  belowMinimum: z.boolean(),
  unit: z.object({ fee: z.literal('sat'), feeRate: z.literal('sat/vB'), size: z.literal('vB') }),
});

export function mempoolTxAnalysis(ctx: ApiContext, txid: string, entry: MempoolEntry): z.input<typeof MempoolTxAnalysis> {
  const feeSat = btcToSats(entry.fees.base);
  const modifiedFeeSat = btcToSats(entry.fees.modified);
  const cache = ctx.optimizer.service.cache;
  const effective = effectiveFeeRate({
    own: { feeSat: modifiedFeeSat, vsize: entry.vsize },
    // The entry was read just now: a v31 node's chunk is the exact current answer.
    liveNodeChunk: entry.fees.chunk !== undefined && entry.chunkweight ? { feeSat: btcToSats(entry.fees.chunk), weightWu: entry.chunkweight } : null,
    optimizerChunkRateSatVb: cache ? txChunkFeeRate(cache, txid) : undefined,
    packages: {
      ancestorFeeSat: btcToSats(entry.fees.ancestor),
      ancestorVsize: entry.ancestorsize,
      descendantFeeSat: btcToSats(entry.fees.descendant),
      descendantVsize: entry.descendantsize,
    },
  });
  const nowSeconds = Math.floor(ctx.now() / 1000);
  const fullRbf = ctx.mempool.mirror.info?.fullrbf ?? true;
  return {
    txid,
    feeSat,
    modifiedFeeSat,
    vsize: entry.vsize,
    weight: entry.weight ?? entry.vsize * 4,
    feeRateSatVb: round(feeSat / entry.vsize),
    effectiveFeeRate: { satVb: round(effective.satVb), source: effective.source },
    firstSeen: isoFromUnix(entry.time),
    ageSeconds: Math.max(0, nowSeconds - entry.time),
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
      feeSat: btcToSats(entry.fees.ancestor) - modifiedFeeSat,
    },
    descendants: {
      count: entry.descendantcount - 1,
      vsize: entry.descendantsize - entry.vsize,
      feeSat: btcToSats(entry.fees.descendant) - modifiedFeeSat,
    },
    parents: entry.depends,
    children: entry.spentby,
    position: blocksAway(ctx, txid, effective.satVb),
    belowMinimum: effective.satVb < ctx.fees.floorFeeRateSatVb(),
    unit: { fee: 'sat', feeRate: 'sat/vB', size: 'vB' },
  };
}

/** 1-based projected block: from the optimizer when it has placed the tx, else from the fee-rate queue. */
function blocksAway(ctx: ApiContext, txid: string, rate: number): z.input<typeof MempoolTxAnalysis>['position'] {
  const cache = ctx.optimizer.service.cache;
  const projected = cache ? txProjectedPlacement(cache, txid) : undefined;
  if (projected !== undefined) return { blocksAway: projected.block, beyondProjection: projected.beyond, source: 'optimizer', vsizeAhead: null };
  const vsizeAhead = vsizeAbove(ctx.fees.sample(), rate);
  return { blocksAway: Math.floor(vsizeAhead / BLOCK_TX_VSIZE) + 1, beyondProjection: false, source: 'fee_rate_queue', vsizeAhead };
}
