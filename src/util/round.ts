/** Rounds to `digits` decimals (for fee rates and percentages in answers). */
export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
