/**
 * Where a cycle's wtxids come from: the mempool view's entries (Core's `wtxid`), and, for a
 * template transaction that left the view while the cycle ran, the wtxids of the last removed
 * transactions (bounded, least recently removed dropped first).
 */
import { LRUCache } from 'lru-cache';
import type { MempoolDiff, MempoolMirror } from '../../mempool/mirror.js';
import type { WtxidOf } from './templateCache.js';

/** Removed transactions whose wtxid is kept. */
const REMOVED_KEPT = 50_000;

export class WtxidBook {
  private readonly removed = new LRUCache<string, string>({ max: REMOVED_KEPT });
  private readonly onDiff = (d: MempoolDiff): void => {
    for (const r of d.removed) if (r.tx.wtxid) this.removed.set(r.tx.txid, r.tx.wtxid);
  };

  constructor(private readonly mirror: MempoolMirror) {
    this.open();
  }

  /** Follows the view's removals; again after `close` (a leader that stepped down and leads again). */
  open(): void {
    this.mirror.off('diff', this.onDiff);
    this.mirror.on('diff', this.onDiff);
  }

  readonly wtxidOf: WtxidOf = (txid) => this.mirror.txs.get(txid)?.wtxid ?? this.removed.get(txid);

  close(): void {
    this.mirror.off('diff', this.onDiff);
  }
}
