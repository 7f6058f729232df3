/**
 * The effective fee rate of a mempool transaction: the rate it will be mined at, which is the fee
 * rate of the chunk it belongs to in its cluster's linearization (CPFP-aware), not its own rate.
 *
 * One precedence, freshest exact answer first:
 * 1. `node_chunk`: the chunk fee/weight in a v31 node's entry read just now (exact, current);
 * 2. `optimizer_chunk`: the chunk rate from our optimizer's last cycle (exact as of that cycle);
 * 3. `node_chunk_at_arrival`: a v31 node's chunk fee/weight as the mirror saw the entry arrive
 *    (stale as soon as a child pays for it or a parent leaves);
 * 4. `package_estimate`: without any chunk, from the ancestor/descendant package totals of an entry:
 *    min(own, ancestor package) when parents drag it down, the descendant package when children
 *    pay for it; an approximation;
 * 5. `own`: the transaction's own modified fee over its vsize.
 */
import { feeRateSatVbOfWeight } from '../bitcoin/units.js';

export type EffectiveRateSource = 'node_chunk' | 'optimizer_chunk' | 'node_chunk_at_arrival' | 'package_estimate' | 'own';

export interface FeeAndWeight {
  feeSat: number;
  weightWu: number;
}

export interface PackageTotals {
  ancestorFeeSat: number;
  ancestorVsize: number;
  descendantFeeSat: number;
  descendantVsize: number;
}

export interface EffectiveRateInputs {
  /** The transaction's own modified fee (sat) and vsize (vB). */
  own: { feeSat: number; vsize: number };
  liveNodeChunk?: FeeAndWeight | null;
  optimizerChunkRateSatVb?: number | null;
  arrivalNodeChunk?: FeeAndWeight | null;
  packages?: PackageTotals | null;
}

export interface EffectiveFeeRate {
  satVb: number;
  source: EffectiveRateSource;
}

/** Complexity: O(1). */
export function effectiveFeeRate(inputs: EffectiveRateInputs): EffectiveFeeRate {
  const { liveNodeChunk, optimizerChunkRateSatVb, arrivalNodeChunk, packages, own } = inputs;
  if (liveNodeChunk && liveNodeChunk.weightWu > 0) return { satVb: feeRateSatVbOfWeight(liveNodeChunk.feeSat, liveNodeChunk.weightWu), source: 'node_chunk' };
  if (optimizerChunkRateSatVb !== undefined && optimizerChunkRateSatVb !== null) return { satVb: optimizerChunkRateSatVb, source: 'optimizer_chunk' };
  if (arrivalNodeChunk && arrivalNodeChunk.weightWu > 0) {
    return { satVb: feeRateSatVbOfWeight(arrivalNodeChunk.feeSat, arrivalNodeChunk.weightWu), source: 'node_chunk_at_arrival' };
  }
  const ownRate = own.feeSat / own.vsize;
  if (packages) {
    const ancestor = packages.ancestorFeeSat / packages.ancestorVsize;
    const descendant = packages.descendantFeeSat / packages.descendantVsize;
    return { satVb: Math.max(Math.min(ownRate, ancestor), descendant > ownRate ? descendant : 0), source: 'package_estimate' };
  }
  return { satVb: ownRate, source: 'own' };
}
