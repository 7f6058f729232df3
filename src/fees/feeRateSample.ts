/**
 * A mempool reduced to what fee statistics need: one (effective fee rate, vsize, fee) per tx, sorted
 * by fee rate, highest first. The effective rate is the rate of the chunk the tx will be mined with
 * (CPFP-aware), when known; its own rate otherwise.
 *
 * Built once per mempool view (structure of arrays, with the running vsize), then read by every
 * request: the depth at a rate or the rate at a depth is a binary search, and whole-sample answers
 * (histogram, percentiles) are computed once per sample through `memo`. A 150k-tx mempool costs one
 * ~50 ms build per poll instead of tens of ms per request.
 */
export interface FeeRatePoint {
  /** sat/vB */
  feeRateSatVb: number;
  vsize: number;
  feeSat: number;
}

export interface FeeRateSample {
  count: number;
  vsize: number;
  feeSat: number;
  /** Effective fee rates, sat/vB, descending. */
  rates: Float64Array;
  /** vsize of each point, in the same order. */
  vsizes: Float64Array;
  /** Fee (sat) of each point, in the same order. */
  fees: Float64Array;
  /** `cumulativeVsize[i]` = vsize of points 0..i: the queue down to and including point i. */
  cumulativeVsize: Float64Array;
  /** Whole-sample answers, computed once per sample (see `memoized`). */
  readonly memo: Map<string, unknown>;
}

/** A sample from points in any order (tests, small inputs). */
export function feeRateSample(points: readonly FeeRatePoint[]): FeeRateSample {
  const n = points.length;
  const rates = new Float64Array(n);
  const vsizes = new Float64Array(n);
  const fees = new Float64Array(n);
  for (const [i, p] of points.entries()) {
    rates[i] = p.feeRateSatVb;
    vsizes[i] = p.vsize;
    fees[i] = p.feeSat;
  }
  return feeRateSampleOf(rates, vsizes, fees);
}

/** A sample from parallel arrays in any order (read, not modified). O(n log n). */
export function feeRateSampleOf(rates: Float64Array, vsizes: Float64Array, fees: Float64Array): FeeRateSample {
  const n = rates.length;
  const order = descendingOrder(rates);
  const sorted = { rates: new Float64Array(n), vsizes: new Float64Array(n), fees: new Float64Array(n), cumulativeVsize: new Float64Array(n) };
  let vsize = 0;
  let feeSat = 0;
  // Typed-array reads below are in range by construction (`?? 0` only satisfies the compiler).
  for (const [k, i] of order.entries()) {
    const v = vsizes[i] ?? 0;
    const f = fees[i] ?? 0;
    sorted.rates[k] = rates[i] ?? 0;
    sorted.vsizes[k] = v;
    sorted.fees[k] = f;
    vsize += v;
    feeSat += f;
    sorted.cumulativeVsize[k] = vsize;
  }
  return { count: n, vsize, feeSat, ...sorted, memo: new Map() };
}

/** The sample's answer for `key`, computed on first use. */
export function memoized<T>(sample: FeeRateSample, key: string, compute: () => T): T {
  if (!sample.memo.has(key)) sample.memo.set(key, compute());
  return sample.memo.get(key) as T;
}

/** Index of the first point (from the top) whose running vsize reaches `vsize`; `count` if none. O(log n). */
export function indexAtDepth(sample: FeeRateSample, vsize: number): number {
  let lo = 0;
  let hi = sample.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sample.cumulativeVsize[mid] ?? 0) >= vsize) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** vsize of the points paying strictly more than `rate`: the queue ahead of a tx at that rate. O(log n). */
export function vsizeAbove(sample: FeeRateSample, rate: number): number {
  let lo = 0;
  let hi = sample.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sample.rates[mid] ?? 0) > rate) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : (sample.cumulativeVsize[lo - 1] ?? 0);
}

const INDEX_BITS = 20n;
const INDEX_MASK = (1n << INDEX_BITS) - 1n;
const KEY_MASK = ~INDEX_MASK & ((1n << 64n) - 1n);

/**
 * Indices of `rates`, highest rate first. A native numeric sort of 64-bit keys (the rate's IEEE bits,
 * which order like the rates for rates >= 0, with the index in the low 20 mantissa bits: ties closer
 * than ~2e-10 relative are broken by index) is several times faster than a comparator sort; past
 * 2^20 points, or with a negative rate (a negative prioritisetransaction delta), the comparator.
 */
function descendingOrder(rates: Float64Array): Uint32Array {
  const n = rates.length;
  const order = new Uint32Array(n);
  let packable = n <= Number(INDEX_MASK) + 1;
  for (const rate of rates) {
    if (!(rate >= 0) || Object.is(rate, -0)) {
      packable = false;
      break;
    }
  }
  if (!packable) {
    for (let i = 0; i < n; i++) order[i] = i;
    return order.sort((a, b) => (rates[b] ?? 0) - (rates[a] ?? 0) || a - b);
  }
  const bits = new BigUint64Array(rates.buffer, rates.byteOffset, n);
  const keys = new BigUint64Array(n);
  for (const [i, b] of bits.entries()) keys[i] = (b & KEY_MASK) | BigInt(i);
  keys.sort();
  for (const [k, key] of keys.entries()) order[n - 1 - k] = Number(key & INDEX_MASK);
  return order;
}
