/**
 * Fee rate to confirm within N blocks, from two sources:
 * - the mempool projection (what is queued now, block by block): used for targets up to
 *   `PROJECTION_HORIZON_BLOCKS`, where the current queue decides;
 * - Core's `estimatesmartfee` (history of how fast past fee rates confirmed): used beyond the horizon,
 *   where arrivals over the coming hours matter more than today's queue, when the queue clears
 *   within the target (then arrivals decide; never below the floor), and whenever the projection
 *   is unavailable.
 * Both are returned so the caller sees the disagreement, with the one used named in `source`.
 */
import { btcPerKvbToSatVb } from '../bitcoin/units.js';
import { round } from '../util/round.js';
import type { ProjectedFeeRate } from './projectedFeeRate.js';

export const PROJECTION_HORIZON_BLOCKS = 8;

export interface SmartFeeAnswer {
  /** BTC/kvB as Core answers, absent without an estimate. */
  feerate?: number;
  blocks: number;
  errors?: string[];
}

export interface FeeEstimate {
  feeRateSatVb: number;
  source: 'mempool_projection' | 'estimatesmartfee';
  derivation: string;
  estimateSmartFee: { feeRateSatVb: number | null; blocks: number | null; mode: string; errors: string[]; raw: SmartFeeAnswer | null };
  mempoolProjection: ProjectedFeeRate | null;
}

/**
 * @param smart the node's `estimatesmartfee` answer, or null when the call failed
 * @param projection the mempool projection for `blocks`, or null when the mempool view is not ready
 * @returns null when neither source has an answer
 */
export function feeEstimate(blocks: number, smart: SmartFeeAnswer | null, mode: string, projection: ProjectedFeeRate | null): FeeEstimate | null {
  const smartRate = smart?.feerate !== undefined ? round(btcPerKvbToSatVb(smart.feerate)) : null;
  const estimateSmartFee = {
    feeRateSatVb: smartRate,
    blocks: smart?.blocks ?? null,
    mode,
    errors: smart?.errors ?? (smart ? [] : ['estimatesmartfee call failed']),
    raw: smart,
  };
  // A queue that clears within the target says only "the floor would do now"; arrivals before the
  // target decide, and Core's history of what confirmed is the better guide then.
  const queueClears = projection !== null && !projection.competitive && smartRate !== null;
  if (queueClears) {
    return {
      feeRateSatVb: Math.max(projection.feeRateSatVb, smartRate),
      source: 'estimatesmartfee',
      derivation: `the current queue clears within ${blocks} block(s) (${projection.derivation}); new arrivals decide, so Core's history-based estimatesmartfee(${blocks}, ${mode}) = ${smartRate} sat/vB, never below the floor`,
      estimateSmartFee,
      mempoolProjection: projection,
    };
  }
  const useProjection = projection !== null && (blocks <= PROJECTION_HORIZON_BLOCKS || smartRate === null);
  if (useProjection) {
    return {
      feeRateSatVb: projection.feeRateSatVb,
      source: 'mempool_projection',
      derivation:
        blocks <= PROJECTION_HORIZON_BLOCKS
          ? `target within ${PROJECTION_HORIZON_BLOCKS} blocks: the current queue decides. ${projection.derivation}`
          : `estimatesmartfee has no estimate; ${projection.derivation}`,
      estimateSmartFee,
      mempoolProjection: projection,
    };
  }
  if (smartRate === null) return null;
  return {
    feeRateSatVb: smartRate,
    source: 'estimatesmartfee',
    derivation:
      projection === null
        ? `mempool view not ready; Core estimatesmartfee(${blocks}, ${mode}) = ${smartRate} sat/vB for ${smart?.blocks} blocks`
        : `target beyond ${PROJECTION_HORIZON_BLOCKS} blocks: Core's history-based estimatesmartfee(${blocks}, ${mode}) = ${smartRate} sat/vB`,
    estimateSmartFee,
    mempoolProjection: projection,
  };
}
