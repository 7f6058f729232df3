/**
 * Mempool transactions kept in Bitcoin Core's txid order, so each optimizer snapshot gets its
 * tie-break ranks in O(n) instead of sorting 150k txids every cycle. Core compares txids with
 * memcmp over their internal little-endian bytes (`base_blob::Compare`), i.e. in the order of the
 * byte-reversed display hex; `coreTxidKey` is that string.
 *
 * Insert and remove are O(log n) searches plus an O(n) array move (pointers only: ~0.1 ms at
 * 150k); a large batch is merged with one sort instead.
 */
export function coreTxidKey(txid: string): string {
  let key = '';
  for (let i = 62; i >= 0; i -= 2) key += txid.slice(i, i + 2);
  return key;
}

interface Entry<T> {
  key: string;
  value: T;
}

/** Above this many pending inserts, re-sort instead of inserting one by one. */
const BULK = 2048;

export class TxidOrder<T> {
  private entries: Entry<T>[] = [];

  get size(): number {
    return this.entries.length;
  }

  private search(key: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds values with their txids. O(k log n + k n) for small k, O((n + k) log(n + k)) for large k. */
  addAll(items: ReadonlyArray<{ txid: string; value: T }>): void {
    if (items.length > BULK) {
      for (const { txid, value } of items) this.entries.push({ key: coreTxidKey(txid), value });
      this.entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return;
    }
    for (const { txid, value } of items) {
      const key = coreTxidKey(txid);
      this.entries.splice(this.search(key), 0, { key, value });
    }
  }

  /** Removes the entry of `txid`, if present. O(log n + n). */
  delete(txid: string): void {
    const key = coreTxidKey(txid);
    const i = this.search(key);
    if (this.entries[i]?.key === key) this.entries.splice(i, 1);
  }

  /** Values in Core's txid order. */
  *values(): IterableIterator<T> {
    for (const e of this.entries) yield e.value;
  }
}
