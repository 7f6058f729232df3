/**
 * Seeded pseudo-random numbers for the simulator: xoshiro128** seeded through splitmix32. Every
 * random choice the simulator makes goes through one of these, so a seed and the same sequence of
 * control calls reproduce the same chain. Not for cryptography (keys are derived by hashing).
 */

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal: number | undefined;

  /** @param seed any integer; streams with different `label`s are independent. */
  constructor(seed: number, label = '') {
    let x = (seed >>> 0) ^ hashLabel(label);
    const next = (): number => {
      // splitmix32
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Uniform 32-bit unsigned integer. Complexity: O(1). */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1), 53 bits. */
  float(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** Uniformly chosen element. Precondition: `items` is non-empty. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Index chosen with probability proportional to `weights[i]`. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** Exponential with the given mean (inter-arrival time of a Poisson process). */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** Standard normal (Box-Muller, the spare value is kept). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const v = this.spareNormal;
      this.spareNormal = undefined;
      return v;
    }
    const u = 1 - this.float();
    const v = this.float();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with the given median and shape `sigma`. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Log-uniform in [min, max]. */
  logUniform(min: number, max: number): number {
    return Math.exp(Math.log(min) + this.float() * (Math.log(max) - Math.log(min)));
  }

  /** Poisson count with mean `lambda` (Knuth below 30, normal approximation above). */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
