/**
 * A mempool reduced to what fee statistics need: one (effective fee rate, vsize, fee) per tx, sorted
 * by fee rate, highest first. The effective rate is the rate of the chunk the tx will be mined with
 * (CPFP-aware), when known; its own rate otherwise.
 */
export interface FeeRatePoint {
  /** sat/vB */
  feeRateSatVb: number;
  vsize: number;
  feeSat: number;
}

export interface FeeRateSample {
  /** Sorted by `feeRateSatVb`, descending. */
  points: FeeRatePoint[];
  count: number;
  vsize: number;
  feeSat: number;
}

export function feeRateSample(points: FeeRatePoint[]): FeeRateSample {
  points.sort((a, b) => b.feeRateSatVb - a.feeRateSatVb);
  let vsize = 0;
  let feeSat = 0;
  for (const p of points) {
    vsize += p.vsize;
    feeSat += p.feeSat;
  }
  return { points, count: points.length, vsize, feeSat };
}
