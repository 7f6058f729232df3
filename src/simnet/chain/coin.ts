/** A transaction output as the UTXO set, undo data, indexes and the mempool hold it. */
export interface Coin {
  txid: string;
  vout: number;
  valueSat: number;
  script: Uint8Array;
  /** Height of the block that created it (`MEMPOOL_HEIGHT` for an output of a mempool transaction). */
  height: number;
  coinbase: boolean;
}
