/**
 * The fee landscape of a mempool: fee-rate percentiles weighted by vsize (the rate below which p %
 * of the pending block space sits) and a congestion level.
 *
 * Congestion is measured in blocks of backlog: pending vsize ÷ 1,000,000 vB (one block of
 * transactions). `clear` (< 1 block: the next block will not be full), `normal` (1–3),
 * `busy` (3–10), `congested` (10–50), `severe` (≥ 50).
 */
import { round } from '../util/round.js';
import type { FeeRateSample } from './feeRateSample.js';

/** Virtual bytes one block holds (4,000,000 WU ÷ 4). */
export const BLOCK_VSIZE = 1_000_000;

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

/**
 * Fee rates at vsize-weighted percentiles: `p50` is the rate such that half of the pending vsize pays
 * less. Keys `p5`…`p95`; null for an empty mempool. Also the min and max rate. O(n).
 */
export function feeRatePercentiles(sample: FeeRateSample): { min: number | null; max: number | null } & Record<`p${(typeof PERCENTILES)[number]}`, number | null> {
  const out = { min: null, max: null } as { min: number | null; max: number | null } & Record<string, number | null>;
  for (const p of PERCENTILES) out[`p${p}`] = null;
  const points = sample.points;
  if (points.length === 0) return out as never;
  out.max = round(points[0]!.feeRateSatVb);
  out.min = round(points[points.length - 1]!.feeRateSatVb);
  // Walk from the cheapest end, where percentile 0 sits.
  let below = 0;
  let next = 0;
  for (let i = points.length - 1; i >= 0 && next < PERCENTILES.length; i--) {
    below += points[i]!.vsize;
    while (next < PERCENTILES.length && below >= (PERCENTILES[next]! / 100) * sample.vsize) {
      out[`p${PERCENTILES[next]!}`] = round(points[i]!.feeRateSatVb);
      next++;
    }
  }
  return out as never;
}
