/** Settings the benchmarks read from the environment. */

/** An integer setting from the environment, at least `min`; `fallback` when unset or empty. */
export function intFromEnv(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${text}"`);
  return n;
}
