/**
 * The last raw transactions a node published (Core's ZMQ `rawtx` topic), kept to rebuild a mempool
 * version that was already replaced when we asked the node for it. Txids are computed lazily, only
 * when a txid is looked up (rare: a version gone within milliseconds), so the common path is a push.
 * Bounded by count: the oldest raw is dropped first.
 */
import { createHash } from 'node:crypto';
import { RawTx } from '@scure/btc-signer';

/** The txid (display hex) of a serialized transaction: sha256d of its form without witnesses. */
export function txidOfRaw(raw: Uint8Array): string {
  const tx = RawTx.decode(raw);
  const stripped = RawTx.encode({ ...tx, segwitFlag: false, witnesses: undefined });
  const once = createHash('sha256').update(stripped).digest();
  return Buffer.from(createHash('sha256').update(once).digest()).reverse().toString('hex');
}

export class RawTxRing {
  private readonly raws: Array<Buffer | undefined>;
  private readonly txids: Array<string | undefined>;
  /** txid → slot, for slots whose txid has been computed. */
  private readonly index = new Map<string, number>();
  private next = 0;

  constructor(readonly capacity = 20_000) {
    this.raws = new Array<Buffer | undefined>(capacity);
    this.txids = new Array<string | undefined>(capacity);
  }

  /** O(1). */
  push(raw: Buffer): void {
    const slot = this.next;
    const old = this.txids[slot];
    if (old !== undefined && this.index.get(old) === slot) this.index.delete(old);
    this.raws[slot] = raw;
    this.txids[slot] = undefined;
    this.next = (slot + 1) % this.capacity;
  }

  /** The raw hex of `txid`, newest first. O(k) hashes for the k raws not hashed before (each once). */
  get(txid: string): string | undefined {
    const known = this.index.get(txid);
    if (known !== undefined) return this.raws[known]?.toString('hex');
    for (let k = 1; k <= this.capacity; k++) {
      const slot = (this.next - k + this.capacity) % this.capacity;
      const raw = this.raws[slot];
      if (!raw) break;
      if (this.txids[slot] !== undefined) continue;
      let id: string;
      try {
        id = txidOfRaw(raw);
      } catch {
        id = '';
      }
      this.txids[slot] = id;
      this.index.set(id, slot);
      if (id === txid) return raw.toString('hex');
    }
    return undefined;
  }
}
