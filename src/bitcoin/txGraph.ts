/**
 * A set of unconfirmed transactions in the array form a linearizer takes (the native optimizer's
 * input, the simulated node's mining policy's input). Index i is one transaction.
 */
export interface TxGraphArrays {
  /** Fee of each transaction, satoshis (modified fee). */
  feeSat: Float64Array;
  /** BIP141 weight of each transaction, WU. */
  weightWu: Uint32Array;
  /** Sigop cost of each transaction (sizes are sigop-adjusted with 20 vB per sigop, as Core's `-bytespersigop`). */
  sigopCost: Uint32Array;
  /** CSR of parents in the set: the parents of i are `parentIndices[parentOffsets[i] .. parentOffsets[i+1])`. Length n + 1. */
  parentOffsets: Uint32Array;
  parentIndices: Uint32Array;
  /** Rank of each txid in Core's uint256 order (`txidOrder.ts`), for deterministic tie-breaks. */
  txidRank: Uint32Array;
}
