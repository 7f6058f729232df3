/**
 * Turns the mempool mirror into the optimizer's typed arrays, once per cycle: fee (Core's modified
 * fee, sat), weight (WU), sigop cost (lower bound from a v31 node's sigop-adjusted vsize, else 0),
 * in-mempool parents as CSR, and the txid tie-break ranks. These arrays are the only thing that
 * crosses into the worker and the native module.
 *
 * Indices follow the mirror's Core txid order, so the tie-break rank of index i is i: no sort and
 * no txid → index map per cycle (parents resolve through the mirror's own map).
 */
import type { MempoolMirror, MirrorTx } from '../../mempool/mirror.js';
import type { OptimizerInput } from '../binding/native.js';

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
  const n = mirror.txs.size;
  const txs: MirrorTx[] = [];
  let links = 0;
  for (const tx of mirror.txidOrder.values()) {
    tx.snapshotIndex = txs.length;
    txs.push(tx);
    links += tx.parents.length;
  }
  const txids = new Array<string>(n);
  const feeSat = new Float64Array(n);
  const weightWu = new Uint32Array(n);
  const sigopCost = new Uint32Array(n);
  const parentOffsets = new Uint32Array(n + 1);
  const parentIndices = new Uint32Array(links);
  const txidRank = new Uint32Array(n);
  let vsize = 0;
  let fees = 0;
  let weight = 0;
  let k = 0;
  for (const [i, tx] of txs.entries()) {
    txids[i] = tx.txid;
    txidRank[i] = i;
    feeSat[i] = tx.modifiedFeeSat;
    weightWu[i] = tx.weight;
    sigopCost[i] = tx.sigopCostLowerBound;
    parentOffsets[i] = k;
    for (const parent of tx.parents) {
      const p = mirror.txs.get(parent);
      if (p) parentIndices[k++] = p.snapshotIndex;
    }
    vsize += tx.vsize;
    fees += tx.feeSat;
    weight += tx.weight;
  }
  parentOffsets[n] = k;
  return {
    source: 'mempool_mirror',
    takenAt: now,
    tipHeight: mirror.tipHeight ?? 0,
    tipHash: mirror.tipHash ?? '',
    txids,
    input: { feeSat, weightWu, sigopCost, parentOffsets, parentIndices: k === links ? parentIndices : parentIndices.slice(0, k), txidRank },
    totals: { txCount: n, vsize, weightWu: weight, feeSat: fees },
  };
}
