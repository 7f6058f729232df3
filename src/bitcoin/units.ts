/**
 * Units and conversions, once. Core reports amounts in BTC and fee rates in BTC/kvB; the service
 * answers in satoshis and sat/vB. Chunk and package fee rates are fee over weight (WU), so one
 * function turns a (fee, weight) pair into sat/vB.
 */
import { WITNESS_SCALE_FACTOR } from './consensus.js';

export const SATS_PER_BTC = 100_000_000;

/** BTC (as Core reports amounts) → integer satoshis. */
export function btcToSats(btc: number): number {
  return Math.round(btc * SATS_PER_BTC);
}

/** BTC/kvB (Core's fee-rate unit) → sat/vB. */
export function btcPerKvbToSatVb(rate: number): number {
  return rate * 1e5;
}

/**
 * Fee rate in sat/vB of a fee paid for a weight in WU: the rate of a chunk, a package or a
 * transaction when its weight (not its rounded vsize) is known. 0 for an empty weight.
 * @example feeRateSatVbOfWeight(1_000, 1_600) // 2.5 (1,000 sat over 400 vB)
 */
export function feeRateSatVbOfWeight(feeSat: number, weightWu: number): number {
  return weightWu > 0 ? (feeSat * WITNESS_SCALE_FACTOR) / weightWu : 0;
}

/** ISO 8601 UTC from unix seconds (Core's times): the one timestamp format of every answer. */
export function isoFromUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** ISO 8601 UTC from milliseconds since the epoch (null stays null). */
export function isoFromMs(ms: number): string;
export function isoFromMs(ms: number | null | undefined): string | null;
export function isoFromMs(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
