/** Small statistics shared by the benchmarks. */

/** The median of a sample (the lower middle for an even count); NaN for an empty sample. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
}
