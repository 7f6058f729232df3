/**
 * The planner's linearizer: the native optimizer's spanning-forest linearization (the same one the
 * cycles and the simulated node's rule 6 use), run synchronously on one small cluster (≤ 64 txs on
 * a v31 node; microseconds).
 */
import { diagramGraph, type Chunker, type DiagramTx } from '../bitcoin/feerateDiagram.js';
import { buildTemplates } from '../optimizer/binding/native.js';

export const nativeChunker: Chunker = (txs: readonly DiagramTx[]) => {
  const result = buildTemplates(diagramGraph(txs), { threads: 1, projectedBlocks: 1, tailSearchBudget: 0, projectedSearchBudget: 0 });
  return { chunkFeeSat: result.txChunkFeeSat, chunkWeightWu: result.txChunkWeightWu };
};
