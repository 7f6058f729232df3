/**
 * Turns the mempool mirror into the optimizer's typed arrays, once per cycle: fee (Core's modified
 * fee, sat), weight (WU), sigop cost (lower bound from a v31 node's sigop-adjusted vsize, else 0),
 * in-mempool parents as CSR, and the txid tie-break ranks. These arrays are the only thing that
 * crosses into the worker and the native module.
 */
import type { MempoolMirror } from '../mempool/mirror.js';
import type { OptimizerInput } from './native.js';
import { computeTxidRank } from './snapshot.js';

export interface CycleSnapshot {
  source: string;
  /** ms since the epoch */
  takenAt: number;
  tipHeight: number;
  tipHash: string;
  /** txid of each index of the input arrays */
  txids: string[];
  input: OptimizerInput;
  totals: { txCount: number; vsize: number; weightWu: number; feeSat: number };
}

/** O(n + parent links). The mirror must be ready. */
export function snapshotFromMirror(mirror: MempoolMirror, now: number): CycleSnapshot {
  const txs = [...mirror.txs.values()];
  const n = txs.length;
  const index = new Map<string, number>();
  txs.forEach((tx, i) => index.set(tx.txid, i));
  const feeSat = new Float64Array(n);
  const weightWu = new Uint32Array(n);
  const sigopCost = new Uint32Array(n);
  const parentOffsets = new Uint32Array(n + 1);
  let links = 0;
  for (const tx of txs) links += tx.parents.length;
  const parentIndices = new Uint32Array(links);
  let vsize = 0;
  let fees = 0;
  let weight = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const tx = txs[i]!;
    feeSat[i] = tx.modifiedFeeSat;
    weightWu[i] = tx.weight;
    sigopCost[i] = tx.sigopCostLowerBound;
    parentOffsets[i] = k;
    for (const parent of tx.parents) {
      const p = index.get(parent);
      if (p !== undefined) parentIndices[k++] = p;
    }
    vsize += tx.vsize;
    fees += tx.feeSat;
    weight += tx.weight;
  }
  parentOffsets[n] = k;
  const txids = txs.map((tx) => tx.txid);
  return {
    source: 'mempool_mirror',
    takenAt: now,
    tipHeight: mirror.tipHeight ?? 0,
    tipHash: mirror.tipHash ?? '',
    txids,
    input: {
      feeSat,
      weightWu,
      sigopCost,
      parentOffsets,
      parentIndices: k === links ? parentIndices : parentIndices.slice(0, k),
      txidRank: computeTxidRank(txids),
    },
    totals: { txCount: n, vsize, weightWu: weight, feeSat: fees },
  };
}
