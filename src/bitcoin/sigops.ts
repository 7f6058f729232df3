/**
 * Core's sigop-adjusted size (`GetVirtualTransactionSize` with `-bytespersigop`): a transaction
 * weighs max(weight, 20 × sigop cost), and its `vsize` is that over 4, rounded up.
 */
import { BYTES_PER_SIGOP, WITNESS_SCALE_FACTOR } from './consensus.js';

/** Sigop-adjusted weight, WU (Core's chunk weights are in these units). */
export function sigopAdjustedWeight(weightWu: number, sigopCost: number): number {
  return Math.max(weightWu, sigopCost * BYTES_PER_SIGOP);
}

/** Sigop-adjusted virtual size, vB. */
export function sigopAdjustedVsize(weightWu: number, sigopCost: number): number {
  return Math.ceil(sigopAdjustedWeight(weightWu, sigopCost) / WITNESS_SCALE_FACTOR);
}

/**
 * The sigop cost implied by a node's sigop-adjusted `vsize` (and v31's `vsize_adjusted`, the same
 * number): when it exceeds ceil(weight / 4) sigops dominate and the cost is vsize × 4 / 20 (rounded
 * up); otherwise it is not known and does not change the fit, so 0.
 */
export function sigopCostFromVsize(adjustedVsize: number, weightWu: number): number {
  if (adjustedVsize <= Math.ceil(weightWu / WITNESS_SCALE_FACTOR)) return 0;
  return Math.ceil((adjustedVsize * WITNESS_SCALE_FACTOR) / BYTES_PER_SIGOP);
}
