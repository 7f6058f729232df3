/**
 * The simulated node's mining policy through the project's native optimizer: Bitcoin Core v31's
 * block assembly (`baselineV31`: chunk order of spanning-forest linearizations, Core's skip and
 * give-up rules, 8,000 WU and 400 sigops reserved) and the chunk of every transaction. Only what
 * the node needs is computed: one projected block, no tail search, one native thread (the
 * simulator already runs in its own worker). Deterministic: same input, same result.
 *
 * The simulator (`src/simnet`) imports no product code: its worker `import()`s this module by
 * URL (`startSimnet({ policyModule })`) and calls `mempoolPolicy`, whose types match simnet's
 * `MempoolPolicy` (`src/simnet/mempool/policy.ts`) structurally.
 */
import { buildTemplates, type OptimizerInput, type OptimizerOptions } from './native.js';

/** What the node needs of one run (simnet's `PolicyResult`). */
export interface CoreV31PolicyResult {
  /** Core v31's block template, indices into the input in block order (parents first). */
  templateIndices: Uint32Array;
  /** Fee of the chunk each transaction belongs to in its cluster's linearization, satoshis. */
  txChunkFeeSat: Float64Array;
  /** Sigop-adjusted weight of that chunk, WU. */
  txChunkWeightWu: Uint32Array;
  /** Whether every cluster's linearization is proven optimal (`getmempoolinfo.optimal`). */
  optimal: boolean;
}

const OPTIONS: OptimizerOptions = { threads: 1, projectedBlocks: 1, tailSearchBudget: 0, projectedSearchBudget: 0 };

/** Core v31's template and chunks of `input`. @throws OptimizerError for malformed input */
export function mempoolPolicy(input: OptimizerInput): CoreV31PolicyResult {
  const result = buildTemplates(input, OPTIONS);
  return {
    templateIndices: result.baselineV31.indices,
    txChunkFeeSat: result.txChunkFeeSat,
    txChunkWeightWu: result.txChunkWeightWu,
    optimal: result.clusters.optimalCount === result.clusters.count,
  };
}
