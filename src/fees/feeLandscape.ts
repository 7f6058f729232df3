/**
 * The fee landscape of a mempool: fee-rate percentiles weighted by vsize (the rate below which p %
 * of the pending block space sits) and a congestion level.
 *
 * Congestion is measured in blocks of backlog: pending vsize ÷ 1,000,000 vB (one block of
 * transactions). `clear` (< 1 block: the next block will not be full), `normal` (1–3),
 * `busy` (3–10), `congested` (10–50), `severe` (≥ 50).
 */
import { MAX_BLOCK_WEIGHT_WU, WITNESS_SCALE_FACTOR } from '../bitcoin/consensus.js';
import { round } from '../util/round.js';
import { memoized, type FeeRateSample } from './feeRateSample.js';

/** Virtual bytes one block holds (4,000,000 WU ÷ 4). */
export const BLOCK_VSIZE = MAX_BLOCK_WEIGHT_WU / WITNESS_SCALE_FACTOR;

export type CongestionLevel = 'clear' | 'normal' | 'busy' | 'congested' | 'severe';

export interface Congestion {
  level: CongestionLevel;
  /** Pending vsize ÷ one block. */
  backlogBlocks: number;
  explanation: string;
}

const LEVELS: Array<[number, CongestionLevel]> = [
  [1, 'clear'],
  [3, 'normal'],
  [10, 'busy'],
  [50, 'congested'],
];

export function congestion(vsize: number): Congestion {
  const backlogBlocks = vsize / BLOCK_VSIZE;
  const level = LEVELS.find(([limit]) => backlogBlocks < limit)?.[1] ?? 'severe';
  return {
    level,
    backlogBlocks: round(backlogBlocks, 2),
    explanation:
      'backlogBlocks = pending vsize / 1,000,000 vB (one block); clear < 1 (next block not full), normal 1-3, busy 3-10, congested 10-50, severe >= 50',
  };
}

export const PERCENTILES = [5, 10, 25, 50, 75, 90, 95] as const;

type Percentiles = { min: number | null; max: number | null } & Record<`p${(typeof PERCENTILES)[number]}`, number | null>;

/**
 * Fee rates at vsize-weighted percentiles: `p50` is the rate such that half of the pending vsize pays
 * less. Keys `p5`…`p95`; null for an empty mempool. Also the min and max rate. O(n), once per sample.
 */
export function feeRatePercentiles(sample: FeeRateSample): Percentiles {
  return memoized(sample, 'feeRatePercentiles', () => percentiles(sample));
}

function percentiles(sample: FeeRateSample): Percentiles {
  const out = { min: null, max: null } as { min: number | null; max: number | null } & Record<string, number | null>;
  for (const p of PERCENTILES) out[`p${p}`] = null;
  const n = sample.count;
  if (n === 0) return out as Percentiles;
  const { rates, vsizes } = sample;
  out.max = round(rates[0] ?? 0);
  out.min = round(rates[n - 1] ?? 0);
  // Walk from the cheapest end, where percentile 0 sits.
  let below = 0;
  let next = 0;
  for (let i = n - 1; i >= 0; i--) {
    below += vsizes[i] ?? 0;
    for (let p = PERCENTILES[next]; p !== undefined && below >= (p / 100) * sample.vsize; p = PERCENTILES[next]) {
      out[`p${p}`] = round(rates[i] ?? 0);
      next++;
    }
    if (next === PERCENTILES.length) break;
  }
  return out as Percentiles;
}
