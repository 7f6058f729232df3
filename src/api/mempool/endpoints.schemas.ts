/** The answers of the mempool routes (their examples: `endpoints.examples.ts`). */
import { z } from 'zod';
import { Freshness, Hash, IsoTime, Sat, SatVb, Success } from '../schemas.js';
import { MempoolTxAnalysis } from './mempoolTxAnalysis.js';

const Derivation = z.string();

export const StatsResponse = z.object({
  success: Success,
  ...Freshness,
  count: z.number().int(),
  vsize: z.number().int(),
  bytes: z.number().int(),
  usage: z.number().int(),
  maxMempool: z.number().int(),
  totalFeeSat: Sat,
  minFeeRateSatVb: SatVb,
  minRelayFeeRateSatVb: SatVb,
  congestion: z.object({ level: z.enum(['clear', 'normal', 'busy', 'congested', 'severe']), backlogBlocks: z.number(), explanation: z.string() }),
  /** Null percentiles: an empty mempool. */
  feeRates: z.object({
    unit: z.literal('sat/vB'),
    weighting: z.string(),
    min: SatVb.nullable(),
    p5: SatVb.nullable(),
    p10: SatVb.nullable(),
    p25: SatVb.nullable(),
    p50: SatVb.nullable(),
    p75: SatVb.nullable(),
    p90: SatVb.nullable(),
    p95: SatVb.nullable(),
    max: SatVb.nullable(),
  }),
  nextBlock: z.object({ feeRateSatVb: SatVb, full: z.boolean(), derivation: Derivation }).nullable(),
});

export const FeesResponse = z.object({
  success: Success,
  ...Freshness,
  target: z.number().int(),
  unit: z.literal('sat/vB'),
  recommended: z.object({ feeRateSatVb: SatVb, competitive: z.boolean(), vsizeAhead: z.number(), derivation: Derivation }),
  floorFeeRateSatVb: SatVb,
  totals: z.object({ count: z.number().int(), vsize: z.number().int(), feeSat: Sat }),
  /** Buckets from the highest fee rate down; `cumulativeVsize` = vsize at this rate or above. */
  histogram: z.array(
    z.object({
      minFeeRateSatVb: SatVb,
      maxFeeRateSatVb: SatVb.nullable(),
      count: z.number().int(),
      vsize: z.number().int(),
      feeSat: Sat,
      cumulativeVsize: z.number().int(),
    }),
  ),
});

const Version = z.object({ txid: Hash, feeSat: Sat, vsize: z.number().int(), feeRateSatVb: SatVb, firstSeen: IsoTime });
type ReplacedNodeShape = z.infer<typeof Version> & { replacedAt: string; replaces: ReplacedNodeShape[] };
const ReplacedNode: z.ZodType<ReplacedNodeShape> = Version.extend({
  replacedAt: IsoTime,
  get replaces() {
    return z.array(ReplacedNode);
  },
});

export const ReplacementsResponse = z.object({
  success: Success,
  status: z.enum(['replaced', 'in_mempool', 'evicted', 'not_in_mempool']),
  txid: Hash,
  replacedBy: Version.extend({ replacedAt: IsoTime, feeDeltaSat: Sat, feeRateDeltaSatVb: z.number() }).nullable(),
  latestTxid: Hash,
  replaces: z.array(ReplacedNode),
  evictedWithReplacementOf: Hash.nullable(),
  eventCount: z.number().int(),
  tracking: z.object({ since: z.string(), pollMs: z.number().int(), note: z.string() }),
  feeUnit: z.literal('sat'),
  feeRateUnit: z.literal('sat/vB'),
});

export const MempoolTxResponse = MempoolTxAnalysis.extend({ success: Success });
