/**
 * Where address balances and UTXOs come from. Bitcoin Core has no address index, so an Esplora
 * (electrs / mempool backend) is used when configured (`EsploraAddressSource`), otherwise
 * `scantxoutset` on the node (`ScanAddressSource`, confirmed outputs only). Every answer says which
 * source produced it.
 */
import type { ParsedAddress } from '../bitcoin/address.js';

export type AddressSourceKind = 'esplora' | 'scantxoutset';

export interface AddressUtxo {
  txid: string;
  vout: number;
  valueSat: number;
  confirmed: boolean;
  /** Block height of a confirmed output, null in the mempool. */
  height: number | null;
}

export interface AddressBalance {
  /** Sum of confirmed unspent outputs, sat. */
  confirmedSat: number;
  /** Net mempool change (received − spent by unconfirmed txs), sat; null when the source cannot see the mempool. */
  unconfirmedSat: number | null;
  /** Outputs ever funded / spent on chain, when the source counts them. */
  confirmedTxCount: number | null;
  unconfirmedTxCount: number | null;
}

export interface AddressSource {
  readonly kind: AddressSourceKind;
  balance(address: ParsedAddress): Promise<AddressBalance>;
  utxos(address: ParsedAddress): Promise<AddressUtxo[]>;
  /** Txids of mempool transactions paying to or spending from it (at most 50), or null when the source cannot see the mempool. */
  mempoolTxids(address: ParsedAddress): Promise<string[] | null>;
}
