/**
 * What every template answer says about where it comes from (the optimizer cache), in the words of
 * SPEC §2, and the projected blocks' shape: shared by the template routes, the insight routes, cache
 * statistics and capabilities.
 */
import { z } from 'zod';
import { MAX_BLOCK_WEIGHT_WU } from '../../bitcoin/consensus.js';
import type { TemplateCache } from '../../optimizer/cache/templateCache.js';
import { Sat, SatVb } from '../schemas.js';

export const TEMPLATE_SOURCE = 'core_v31_optimizer_cache';
export const TEMPLATE_MODE = 'live_cached';
export const TEMPLATE_NOTE = 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction.';
/** A projected block at least this full (within 100,000 WU of the limit) has a real cutoff fee rate. */
const FULL_BLOCK_WU = MAX_BLOCK_WEIGHT_WU - 100_000;

export const ProjectedBlockRow = z.object({
  block: z.number().int().positive(),
  txCount: z.number().int(),
  feeSat: Sat,
  weightWu: z.number().int(),
  minFeeRateSatVb: SatVb,
  medianFeeRateSatVb: SatVb,
  maxFeeRateSatVb: SatVb,
});

/**
 * A projected block is full (its lowest rate is a real cutoff) when it reached the weight limit or
 * the cycle's transaction cap: projected blocks obey `max_tx_count` too, so in a mempool of small
 * txs they fill up by count first.
 */
export function projectedBlockSummaries(cache: TemplateCache) {
  return cache.projectedBlocks.map((b) => ({
    minFeeRateSatVb: b.minFeeRateSatVb,
    full: b.weightWu >= FULL_BLOCK_WU || (cache.maxTxCount !== null && b.txCount >= cache.maxTxCount),
  }));
}
