/**
 * A made-up mempool-view transaction, as the mirror holds one after reading the node: for tests and
 * benchmarks that feed the mirror (or its `diff` listeners) directly.
 */
import type { MirrorTx } from '../../src/mempool/mirror.js';

export function mirrorTx(txid: string, feeSat: number, weight: number, parents: string[] = []): MirrorTx {
  return {
    txid,
    wtxid: txid,
    feeSat,
    modifiedFeeSat: feeSat,
    vsize: Math.ceil(weight / 4),
    weight,
    time: 0,
    parents,
    inputs: null,
    chunkFeeSat: null,
    chunkWeight: null,
    sigopCostLowerBound: 0,
    snapshotIndex: -1,
  };
}
