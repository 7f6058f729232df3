/** Where address balances and UTXOs come from. Implemented in ./esplora.ts and ./scanAddressSource.ts. */
export interface AddressSource {
  readonly kind: 'esplora' | 'scantxoutset';
}
