/**
 * The simulated node's mining policy through the project's native optimizer: Bitcoin Core v31's
 * block assembly (`baselineV31`: chunk order of spanning-forest linearizations, Core's skip and
 * give-up rules, 8,000 WU and 400 sigops reserved) and the chunk of every transaction. Only what
 * the node needs is computed: one projected block, no tail search, one native thread (the
 * simulator already runs in its own worker). Deterministic: same input, same result.
 */
import { buildTemplates, type OptimizerOptions } from './native.js';
import type { PolicyInput, PolicyResult } from '../simnet/mempool/policy.js';

const OPTIONS: OptimizerOptions = { threads: 1, projectedBlocks: 1, tailSearchBudget: 0, projectedSearchBudget: 0 };

export function nativePolicy(input: PolicyInput): PolicyResult {
  const result = buildTemplates(input, OPTIONS);
  return {
    templateIndices: result.baselineV31.indices,
    txChunkFeeSat: result.txChunkFeeSat,
    txChunkWeightWu: result.txChunkWeightWu,
    optimal: result.clusters.optimalCount === result.clusters.count,
  };
}
