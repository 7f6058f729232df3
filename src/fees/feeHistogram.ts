/**
 * Fee-rate histogram of a mempool: buckets of effective fee rate with the vsize, tx count and fees
 * they hold, highest rates first. The bucket edges extend mempool.space's 39 levels with sub-1 sat/vB
 * steps, since Core ≥ 29.1 relays down to 0.1 sat/vB.
 */
import { memoized, type FeeRateSample } from './feeRateSample.js';

export const FEE_LEVELS_SAT_VB: readonly number[] = [
  0, 0.1, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100, 125, 150, 175, 200, 250, 300, 350, 400, 500, 600, 700, 800, 900, 1000,
  1200, 1400, 1600, 1800, 2000,
];

export interface FeeBucket {
  /** Lowest fee rate in the bucket, sat/vB (inclusive). */
  minFeeRateSatVb: number;
  /** Upper edge, sat/vB (exclusive); null for the top bucket. */
  maxFeeRateSatVb: number | null;
  count: number;
  vsize: number;
  feeSat: number;
  /** vsize of this bucket and every higher one: how deep in the queue the bucket's bottom is. */
  cumulativeVsize: number;
}

/**
 * O(n + levels), once per sample for the default levels (the answer is shared: do not modify it).
 * Empty buckets are kept so clients can draw a fixed axis.
 */
export function feeHistogram(sample: FeeRateSample, levels: readonly number[] = FEE_LEVELS_SAT_VB): FeeBucket[] {
  if (levels === FEE_LEVELS_SAT_VB) return memoized(sample, 'feeHistogram', () => histogram(sample, levels));
  return histogram(sample, levels);
}

function histogram(sample: FeeRateSample, levels: readonly number[]): FeeBucket[] {
  const buckets: FeeBucket[] = levels.map((min, i) => ({
    minFeeRateSatVb: min,
    maxFeeRateSatVb: levels[i + 1] ?? null,
    count: 0,
    vsize: 0,
    feeSat: 0,
    cumulativeVsize: 0,
  }));
  const { rates, vsizes, fees } = sample;
  // Rates descend, so the bucket index only ever moves down.
  let b = buckets.length - 1;
  for (let i = 0; i < sample.count; i++) {
    const rate = rates[i] ?? 0;
    while (b > 0 && rate < (buckets[b]?.minFeeRateSatVb ?? 0)) b--;
    const bucket = buckets[b];
    if (!bucket) break;
    bucket.count += 1;
    bucket.vsize += vsizes[i] ?? 0;
    bucket.feeSat += fees[i] ?? 0;
  }
  buckets.reverse();
  let cumulative = 0;
  for (const bucket of buckets) {
    cumulative += bucket.vsize;
    bucket.cumulativeVsize = cumulative;
  }
  return buckets;
}
