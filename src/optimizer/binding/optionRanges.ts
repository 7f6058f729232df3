/**
 * The range of each optimizer option, once. `checkOptions` (native.ts) reads it here; the addon
 * reads the same table from `native/option_ranges.h`, which `npm run gen:native` writes from this
 * file (scripts/genOptionRanges.ts; test/optimizer/optionRanges.test.ts fails when it is stale).
 * Relations between options (coinbase reservations below their limits) are checked on both sides.
 */
export interface OptionRange {
  min: number;
  max: number;
  /** Whole numbers only (every option but the fee rate). */
  integer: boolean;
}

const int = (min: number, max: number): OptionRange => ({ min, max, integer: true });

/** Block-sized counts (weight, sigops, transactions): a block's own limits are far below 4e9. */
const BLOCK_COUNT_MAX = 4e9;

export const OPTION_RANGES = {
  weightLimitWu: int(1, BLOCK_COUNT_MAX),
  coinbaseReserveWu: int(0, BLOCK_COUNT_MAX),
  maxSigopCost: int(1, BLOCK_COUNT_MAX),
  coinbaseSigopCost: int(0, BLOCK_COUNT_MAX),
  maxTxCount: int(0, BLOCK_COUNT_MAX),
  minFeeRateSatVb: { min: 0, max: 1e9, integer: false },
  projectedBlocks: int(1, 1000),
  linearizeBudget: int(0, Number.MAX_SAFE_INTEGER),
  linearizeExtraBudget: int(0, Number.MAX_SAFE_INTEGER),
  tailSearchBudget: int(0, Number.MAX_SAFE_INTEGER),
  projectedSearchBudget: int(0, Number.MAX_SAFE_INTEGER),
  tailWindowPct: int(0, 1e6),
  seed: int(0, Number.MAX_SAFE_INTEGER),
  threads: int(1, 2),
} as const satisfies Record<string, OptionRange>;

export type OptionName = keyof typeof OPTION_RANGES;
