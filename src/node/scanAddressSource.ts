/**
 * Address balances and UTXOs from the node's `scantxoutset` (no address index needed). It sees the
 * confirmed UTXO set only, so `unconfirmedSat` is null. A scan walks the whole UTXO set (minutes on
 * mainnet), Core runs one at a time, so scans are serialized and each answer is cached briefly.
 * Concurrent requests for one address share its scan, and at most `maxQueued` scans wait: beyond
 * that the answer is 503 at once rather than a wait of many scan timeouts.
 */
import type { ParsedAddress } from '../bitcoin/address.js';
import { Errors } from '../errors.js';
import type { BitcoinNode } from './bitcoinNode.js';
import { btcToSats } from '../bitcoin/units.js';
import type { AddressBalance, AddressSource, AddressUtxo } from './addressSource.js';

interface CachedScan {
  at: number;
  utxos: AddressUtxo[];
}

export class ScanAddressSource implements AddressSource {
  readonly kind = 'scantxoutset' as const;
  private readonly cache = new Map<string, CachedScan>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Scans queued or running, by script. */
  private readonly pending = new Map<string, Promise<AddressUtxo[]>>();

  constructor(
    private readonly node: BitcoinNode,
    private readonly cacheMs = 15_000,
    private readonly cacheEntries = 1_000,
    private readonly now: () => number = Date.now,
    private readonly maxQueued = 8,
  ) {}

  async balance(address: ParsedAddress): Promise<AddressBalance> {
    const utxos = await this.utxos(address);
    return {
      confirmedSat: utxos.reduce((sum, u) => sum + u.valueSat, 0),
      unconfirmedSat: null,
      confirmedTxCount: null,
      unconfirmedTxCount: null,
    };
  }

  /** `scantxoutset` reads the UTXO set only: the mempool is invisible to it. */
  async mempoolTxids(): Promise<null> {
    return null;
  }

  async utxos(address: ParsedAddress): Promise<AddressUtxo[]> {
    const key = address.scriptPubKeyHex;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.utxos;
    const shared = this.pending.get(key);
    if (shared) return shared;
    if (this.pending.size >= this.maxQueued)
      throw new Errors.ADDRESS_SOURCE_UNAVAILABLE(`${this.pending.size} address scans are already queued; retry shortly`);
    // One scan at a time (Core refuses a second concurrent scan); the queue survives failures.
    const run = this.queue.then(() => this.scan(address));
    this.queue = run.catch(() => undefined);
    this.pending.set(key, run);
    void run.then(
      () => this.pending.delete(key),
      () => this.pending.delete(key),
    );
    return run;
  }

  private async scan(address: ParsedAddress): Promise<AddressUtxo[]> {
    const hit = this.cache.get(address.scriptPubKeyHex);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.utxos;
    const result = await this.node.scanTxOutSet([`raw(${address.scriptPubKeyHex})`]);
    const utxos = result.unspents.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      valueSat: btcToSats(u.amount),
      confirmed: true,
      height: u.height,
    }));
    if (this.cache.size >= this.cacheEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(address.scriptPubKeyHex, { at: this.now(), utxos });
    return utxos;
  }
}
