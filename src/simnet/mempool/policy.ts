/**
 * The one seam between the simulated node and an implementation of Core's mining algorithm.
 * Everything that needs a linearization calls the node's `MempoolPolicy`: the block template
 * (`getblocktemplate`, and so every mined block), the v31 chunk fields of mempool entries
 * (`fees.chunk`, `chunkweight`), `getmempoolinfo.optimal`, the fee estimator's mempool projection
 * and RBF rule 6 (in Core v31 the mempool itself keeps clusters linearized, hence this file's place).
 *
 * The simulator does not choose the policy: it is handed in when the node is built
 * (`SimulatorOptions.policy`, or `startSimnet({ policyModule })`, a module exporting
 * `mempoolPolicy`). The project hands in the native optimizer's Core-v31 baseline
 * (`src/optimizer/binding/coreV31Policy.ts`), which matches these types structurally; the input is exactly
 * the typed arrays that optimizer takes, so there is one implementation of Core's algorithm.
 */
import { diagramGraph, type Chunker } from '../../bitcoin/feerateDiagram.js';
import type { TxGraphArrays } from '../../bitcoin/txGraph.js';
import { at } from '../../util/at.js';

/** A mempool (or any set of unconfirmed transactions) in the optimizer's array form; the simulator
 *  has no prioritisation, so fees are base fees. */
export type PolicyInput = TxGraphArrays;

export interface PolicyResult {
  /** The block template's transactions (indices into the input), in block order (parents first). */
  templateIndices: Uint32Array;
  /** Fee of the chunk each transaction belongs to in its cluster's linearization, satoshis. */
  txChunkFeeSat: Float64Array;
  /** Sigop-adjusted weight of that chunk, WU. */
  txChunkWeightWu: Uint32Array;
  /** Whether every cluster's linearization is proven optimal (Core's `getmempoolinfo.optimal`). */
  optimal: boolean;
}

export type MempoolPolicy = (input: PolicyInput) => PolicyResult;

/** The policy as the chunker of a feerate diagram (RBF rule 6 judges with the node's own linearization). */
export function policyChunker(policy: MempoolPolicy): Chunker {
  return (txs) => {
    const result = policy(diagramGraph(txs));
    return { chunkFeeSat: result.txChunkFeeSat, chunkWeightWu: result.txChunkWeightWu };
  };
}

/** Checks the CSR shape of `input` (lengths, monotone offsets, indices in range and not self-loops). */
export function assertPolicyInput(input: PolicyInput): void {
  const { feeSat, weightWu, sigopCost, txidRank, parentOffsets, parentIndices } = input;
  const n = feeSat.length;
  if (weightWu.length !== n || sigopCost.length !== n || txidRank.length !== n || parentOffsets.length !== n + 1) {
    throw new Error('policy input: array lengths disagree');
  }
  if (parentOffsets[0] !== 0 || parentOffsets[n] !== parentIndices.length) throw new Error('policy input: bad offsets');
  for (let i = 0; i < n; i++) {
    const from = at(parentOffsets, i);
    const to = at(parentOffsets, i + 1);
    if (to < from) throw new Error('policy input: offsets not monotone');
    for (let k = from; k < to; k++) {
      const p = at(parentIndices, k);
      if (p >= n || p === i) throw new Error('policy input: parent index out of range');
    }
  }
}

/** Checks that `result` fits `input`: per-transaction arrays of length n, template indices in range and distinct. */
export function assertPolicyResult(input: PolicyInput, result: PolicyResult): void {
  const n = input.feeSat.length;
  if (result.txChunkFeeSat.length !== n || result.txChunkWeightWu.length !== n) throw new Error('policy result: chunk arrays do not match the input');
  if (result.templateIndices.length > n) throw new Error('policy result: template longer than the input');
  const seen = new Uint8Array(n);
  for (const i of result.templateIndices) {
    if (i >= n || seen[i] === 1) throw new Error('policy result: template index out of range or repeated');
    seen[i] = 1;
  }
}

/**
 * `policy` with its input and result checked on every call (a handed-in policy is a boundary).
 * Complexity: O(n + parents) per call on top of the policy's own cost.
 */
export function checkedPolicy(policy: MempoolPolicy): MempoolPolicy {
  return (input) => {
    assertPolicyInput(input);
    const result = policy(input);
    assertPolicyResult(input, result);
    return result;
  };
}
