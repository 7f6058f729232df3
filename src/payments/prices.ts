/**
 * Price arithmetic of the gate. The prices themselves are declared with each route and JSON-RPC
 * method in the registry (`src/api/`); a route carries its price to the gate in `config.payment`.
 */

/** USD → atomic token units as a decimal string (USDC: 6 decimals, 0.001 → "1000"). */
export function usdToAtomic(priceUsd: number, decimals = 6): string {
  // Prices are fixed decimals; rounding at 10^-decimals removes binary float noise (0.1+0.2).
  const scaled = Math.round(priceUsd * 10 ** decimals);
  if (!Number.isSafeInteger(scaled) || scaled < 0) throw new RangeError(`price ${priceUsd} out of range`);
  return String(scaled);
}

/** Sum of USD prices without float drift (in micro-dollars). */
export function sumUsd(prices: readonly number[]): number {
  return prices.reduce((acc, p) => acc + Math.round(p * 1e6), 0) / 1e6;
}

/** What a route tells the gate about one request when its price depends on the body. */
export interface PaymentQuote {
  /** Price of this request in USD; 0 = no payment needed. */
  priceUsd: number;
  /** Shown in the challenge's `resource.description`. */
  description: string;
  /** JSON-RPC: the methods of the quoted body, in order; the payment is bound to them. */
  methods?: readonly string[];
}
