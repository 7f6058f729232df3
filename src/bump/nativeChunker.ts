/**
 * The planner's linearizer: the native optimizer's spanning-forest linearization (the same one the
 * cycles and the simulated node's rule 6 use), run synchronously on one small cluster (≤ 64 txs on
 * a v31 node; microseconds).
 */
import { buildTemplates } from '../optimizer/native.js';
import { computeTxidRank } from '../optimizer/snapshot.js';
import type { Chunker, DiagramTx } from './diagram.js';

export const nativeChunker: Chunker = (txs: readonly DiagramTx[]) => {
  const index = new Map(txs.map((t, i) => [t.txid, i]));
  const parentOffsets = new Uint32Array(txs.length + 1);
  const parents: number[] = [];
  txs.forEach((t, i) => {
    for (const p of t.parents) {
      const j = index.get(p);
      if (j !== undefined) parents.push(j);
    }
    parentOffsets[i + 1] = parents.length;
  });
  const result = buildTemplates(
    {
      feeSat: Float64Array.from(txs, (t) => t.feeSat),
      weightWu: Uint32Array.from(txs, (t) => t.weightWu),
      sigopCost: Uint32Array.from(txs, (t) => t.sigopCost),
      parentOffsets,
      parentIndices: Uint32Array.from(parents),
      txidRank: computeTxidRank(txs.map((t) => t.txid)),
    },
    { threads: 1, projectedBlocks: 1, tailSearchBudget: 0, projectedSearchBudget: 0 },
  );
  return { chunkFeeSat: result.txChunkFeeSat, chunkWeightWu: result.txChunkWeightWu };
};
