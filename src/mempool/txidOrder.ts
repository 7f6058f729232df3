/**
 * Mempool transactions kept in Bitcoin Core's txid order (`coreTxidKey`, src/bitcoin/txidOrder.ts),
 * so each optimizer snapshot gets its tie-break ranks in O(n) instead of sorting 150k txids every
 * cycle.
 *
 * Changes are O(1) each and wait; the next read merges them: a few inserts or removals are O(log n)
 * searches plus an O(n) array move each (pointers only); more are one O(n) merge or filter.
 */
import { coreTxidKey } from '../bitcoin/txidOrder.js';

interface Entry<T> {
  key: string;
  value: T;
}

/** Up to this many changes are made in place (binary search + splice); more are merged in one pass. */
const IN_PLACE = 32;

const byKey = <T>(a: Entry<T>, b: Entry<T>): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export class TxidOrder<T> {
  private entries: Entry<T>[] = [];
  /**
   * Changes not merged yet (the last one per txid wins; null = removed): the order is only read
   * by full optimizer snapshots, while the mirror changes on every event batch, so the O(n)
   * merge runs once per read instead of once per batch (incremental cycles never read it).
   */
  private pending = new Map<string, T | null>();

  get size(): number {
    this.flush();
    return this.entries.length;
  }

  private flush(): void {
    if (this.pending.size === 0) return;
    const pending = this.pending;
    this.pending = new Map();
    this.removeNow([...pending.keys()]);
    const adds: Array<{ txid: string; value: T }> = [];
    for (const [txid, value] of pending) if (value !== null) adds.push({ txid, value });
    this.addNow(adds);
  }

  private search(key: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid]?.key ?? '') < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds values with their txids (replacing a value of the same txid). O(k) now; merged on the next read. */
  addAll(items: ReadonlyArray<{ txid: string; value: T }>): void {
    for (const { txid, value } of items) this.pending.set(txid, value);
  }

  /** O(k log n + k n) for k <= 32, else O(k log k + n) (sort, then merge). */
  private addNow(items: ReadonlyArray<{ txid: string; value: T }>): void {
    if (items.length <= IN_PLACE) {
      for (const { txid, value } of items) {
        const key = coreTxidKey(txid);
        this.entries.splice(this.search(key), 0, { key, value });
      }
      return;
    }
    const fresh = items.map(({ txid, value }) => ({ key: coreTxidKey(txid), value })).sort(byKey);
    const old = this.entries;
    const merged: Array<Entry<T>> = [];
    let i = 0;
    let j = 0;
    for (let a = old[0], b = fresh[0]; a !== undefined || b !== undefined; a = old[i], b = fresh[j]) {
      if (b === undefined || (a !== undefined && a.key <= b.key)) {
        merged.push(a as Entry<T>);
        i++;
      } else {
        merged.push(b);
        j++;
      }
    }
    this.entries = merged;
  }

  /** Removes the entry of `txid`, if present. O(log n + n). */
  delete(txid: string): void {
    this.deleteAll([txid]);
  }

  /** Removes the entries of these txids (absent ones are ignored). O(k) now; merged on the next read. */
  deleteAll(txids: readonly string[]): void {
    for (const txid of txids) this.pending.set(txid, null);
  }

  /** O(k (log n + n)) for k <= 32, else O(k log n + n). */
  private removeNow(txids: readonly string[]): void {
    if (txids.length <= IN_PLACE) {
      for (const txid of txids) {
        const key = coreTxidKey(txid);
        const i = this.search(key);
        if (this.entries[i]?.key === key) this.entries.splice(i, 1);
      }
      return;
    }
    // Mark by binary search, then compact in place: no hashing of the n keys, no new array.
    const entries = this.entries;
    const gone = new Uint8Array(entries.length);
    for (const txid of txids) {
      const key = coreTxidKey(txid);
      const i = this.search(key);
      if (entries[i]?.key === key) gone[i] = 1;
    }
    let w = 0;
    entries.forEach((entry, r) => {
      if (gone[r] === 0) entries[w++] = entry;
    });
    entries.length = w;
  }

  /** Values in Core's txid order. */
  *values(): IterableIterator<T> {
    this.flush();
    for (const e of this.entries) yield e.value;
  }
}
