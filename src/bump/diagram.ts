/**
 * RBF rule 6 of Core v31 for the planner: the least fee at which a replacement's feerate diagram
 * strictly improves (the diagram itself is Core's rule, `src/bitcoin/feerateDiagram.ts`). The
 * planner judges it with our own linearizer: the service hands in the native optimizer's
 * (`nativeChunker`), tests may hand in their own.
 */
import { feerateDiagram, improvesDiagram, type Chunker, type DiagramTx } from '../bitcoin/feerateDiagram.js';

/**
 * The least fee ≥ `from` at which `after(fee)` strictly improves on `before` (rule 6), by
 * exponential then binary search: improvement is monotone in the new transaction's fee.
 * Infinity when even a huge fee does not improve it. About 2 log2(fee) chunker runs at worst.
 */
export function leastImprovingFee(before: readonly DiagramTx[], after: (feeSat: number) => DiagramTx[], from: number, chunker: Chunker): number {
  const prev = feerateDiagram(before, chunker);
  const improves = (fee: number): boolean => improvesDiagram(feerateDiagram(after(fee), chunker), prev);
  if (improves(from)) return from;
  let lo = from;
  let step = 64;
  let hi = from + step;
  while (!improves(hi)) {
    lo = hi;
    step *= 2;
    hi = from + step;
    if (step > 2 ** 40) return Number.POSITIVE_INFINITY;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (improves(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
