/**
 * One transaction of the mempool view (`MirrorTx`), made from a node entry (`toMirrorTx`).
 */
import { sigopCostFromVsize } from '../bitcoin/sigops.js';
import { btcToSats } from '../bitcoin/units.js';
import type { MempoolEntry } from '../node/schemas.js';

export interface MirrorTx {
  txid: string;
  /** Witness txid (Core's `wtxid`); null when the node did not give it. */
  wtxid: string | null;
  feeSat: number;
  modifiedFeeSat: number;
  vsize: number;
  weight: number;
  /** Unix seconds the node first saw it. */
  time: number;
  /** Unconfirmed parents at entry time (kept while they are in the mempool). */
  parents: string[];
  /** Outpoints spent, `txid:vout`; null until fetched (large backlogs are fetched over several polls). */
  inputs: string[] | null;
  /** Chunk fee and weight reported by a v31 node. */
  chunkFeeSat: number | null;
  chunkWeight: number | null;
  /**
   * Sigop cost implied by the node's sigop-adjusted vsize (max(weight, 20 × sigops) / 4, Core's `vsize`
   * on every version, also v31's `vsize_adjusted`): exact when sigops dominate the size, 0 when the
   * weight dominates (then sigops do not change the fit).
   */
  sigopCostLowerBound: number;
  /** Scratch for the optimizer's snapshot builder: this tx's index in the snapshot being built. */
  snapshotIndex: number;
}

/** What an `added` event needs, fetched as soon as the event arrives (`fetchTxs`). */
export interface FetchedTx {
  tx: MirrorTx;
  /** In-mempool children when fetched. */
  spentby: string[];
}

/** A mirror entry from a `getmempoolentry` / `getrawmempool true` entry. */
export function toMirrorTx(txid: string, e: MempoolEntry): MirrorTx {
  return {
    txid,
    wtxid: e.wtxid ?? null,
    feeSat: btcToSats(e.fees.base),
    modifiedFeeSat: btcToSats(e.fees.modified),
    vsize: e.vsize,
    weight: e.weight ?? e.vsize * 4,
    time: e.time,
    parents: [...e.depends],
    inputs: null,
    chunkFeeSat: e.fees.chunk !== undefined ? btcToSats(e.fees.chunk) : null,
    chunkWeight: e.chunkweight ?? null,
    snapshotIndex: -1,
    sigopCostLowerBound: sigopCostLowerBound(e),
  };
}

/** The sigop cost a node's sigop-adjusted `vsize` implies (`sigopCostFromVsize`); 0 without a weight. */
function sigopCostLowerBound(e: MempoolEntry): number {
  if (e.weight === undefined) return 0;
  return sigopCostFromVsize(Math.max(e.vsize, e.vsize_adjusted ?? 0), e.weight);
}
