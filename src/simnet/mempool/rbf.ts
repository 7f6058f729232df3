/**
 * Replacement checks of Bitcoin Core v31 (`MemPoolAccept::ReplacementChecks`, src/policy/rbf.cpp),
 * with Core's reasons and messages:
 * - no spending of what is being replaced ("bad-txns-spends-conflicting-tx");
 * - rule 5: the direct conflicts touch at most 100 clusters ("too many potential replacements");
 * - rule 3: fee ≥ the fees of everything evicted (direct conflicts and their descendants);
 * - rule 4: the extra fee pays the incremental relay fee (0.1 sat/vB) for the replacement's size
 *   (both "insufficient fee");
 * - rule 6: the feerate diagram of the affected clusters strictly improves ("replacement-failed").
 *   What is checked: the clusters of the direct conflicts and of the replacement's in-mempool
 *   parents, as they are, against the same transactions minus everything evicted plus the
 *   replacement; both sides are chunked by the node's `MempoolPolicy` (the native optimizer's
 *   spanning-forest linearization, as Core's TxGraph) and compared point by point
 *   (`src/bitcoin/feerateDiagram.ts`), strictly better somewhere and nowhere worse, as `CompareChunks`.
 */
import { formatMoney } from '../consensus/amount.js';
import { feeForVsize, INCREMENTAL_RELAY_FEE_SAT_KVB, MAX_REPLACEMENT_CANDIDATES } from '../consensus/params.js';
import { feerateDiagram, improvesDiagram, type DiagramTx } from '../../bitcoin/feerateDiagram.js';
import type { Mempool, MempoolEntry } from './mempool.js';
import { policyChunker, type MempoolPolicy } from './policy.js';
import type { Rejection } from './standardness.js';
import type { SimTx } from '../tx/txCodec.js';

export interface ReplacementCandidate {
  tx: SimTx;
  feeSat: number;
  vsizeAdjusted: number;
  sigopCost: number;
  /** Txids of the mempool transactions whose outputs it spends. */
  parents: ReadonlySet<string>;
}

/** Everything a replacement evicts: the direct conflicts and all their descendants. */
export function evictionSet(mempool: Mempool, directConflicts: ReadonlySet<string>): Set<string> {
  const all = new Set<string>();
  for (const txid of directConflicts) {
    all.add(txid);
    for (const d of mempool.descendants(txid)) all.add(d);
  }
  return all;
}

/** Rules 5, 3, 4 and the spends-conflicting check. Complexity: O(affected clusters). */
export function checkReplacementFees(
  mempool: Mempool,
  candidate: ReplacementCandidate,
  directConflicts: ReadonlySet<string>,
  originals: ReadonlySet<string>,
): Rejection | undefined {
  const txid = candidate.tx.txid;
  for (const parent of candidate.parents) {
    for (const ancestor of [parent, ...mempool.ancestors(parent)]) {
      if (directConflicts.has(ancestor)) {
        return { reason: 'bad-txns-spends-conflicting-tx', details: `${txid} spends conflicting transaction ${ancestor}` };
      }
    }
  }
  const clusters = countClusters(mempool, directConflicts);
  if (clusters > MAX_REPLACEMENT_CANDIDATES) {
    return {
      reason: 'too many potential replacements',
      details: `rejecting replacement ${txid}; too many conflicting clusters (${clusters} > ${MAX_REPLACEMENT_CANDIDATES})`,
    };
  }
  let originalFees = 0;
  for (const o of originals) originalFees += mempool.entry(o).feeSat;
  if (candidate.feeSat < originalFees) {
    return {
      reason: 'insufficient fee',
      details: `rejecting replacement ${txid}, less fees than conflicting txs; ${formatMoney(candidate.feeSat)} < ${formatMoney(originalFees)}`,
    };
  }
  const additional = candidate.feeSat - originalFees;
  const required = feeForVsize(INCREMENTAL_RELAY_FEE_SAT_KVB, candidate.vsizeAdjusted);
  if (additional < required) {
    return {
      reason: 'insufficient fee',
      details: `rejecting replacement ${txid}, not enough additional fees to relay; ${formatMoney(additional)} < ${formatMoney(required)}`,
    };
  }
  return undefined;
}

/** Rule 6 (see the file comment). Complexity: two policy runs over the affected clusters (≤ 64 txs each). */
export function checkDiagram(
  mempool: Mempool,
  candidate: ReplacementCandidate,
  directConflicts: ReadonlySet<string>,
  originals: ReadonlySet<string>,
  policy: MempoolPolicy,
): Rejection | undefined {
  const affected = new Set<string>();
  for (const seed of [...directConflicts, ...candidate.parents]) {
    if (affected.has(seed)) continue;
    for (const t of mempool.cluster(seed)) affected.add(t);
  }
  const before: DiagramTx[] = [];
  const after: DiagramTx[] = [];
  for (const txid of affected) {
    const row = diagramRow(mempool.entry(txid));
    before.push(row);
    if (!originals.has(txid)) after.push(row);
  }
  after.push({
    txid: candidate.tx.txid,
    feeSat: candidate.feeSat,
    weightWu: candidate.tx.weight,
    sigopCost: candidate.sigopCost,
    parents: [...candidate.parents],
  });
  const chunker = policyChunker(policy);
  if (!improvesDiagram(feerateDiagram(after, chunker), feerateDiagram(before, chunker))) {
    return { reason: 'replacement-failed', details: 'insufficient feerate: does not improve feerate diagram' };
  }
  return undefined;
}

function diagramRow(e: MempoolEntry): DiagramTx {
  return { txid: e.tx.txid, feeSat: e.feeSat, weightWu: e.tx.weight, sigopCost: e.sigopCost, parents: [...e.parents] };
}

function countClusters(mempool: Mempool, txids: ReadonlySet<string>): number {
  const seen = new Set<string>();
  let count = 0;
  for (const txid of txids) {
    if (seen.has(txid)) continue;
    count++;
    for (const t of mempool.cluster(txid)) seen.add(t);
  }
  return count;
}
