/**
 * Txids found by their 64 hex bytes inside a buffer, without making strings: an open-addressing
 * table of indices (coreMempoolScan.ts). A Map of 150k txid strings was a quarter of the scan.
 * Matching ignores the case of hex letters, as parseCoreMempool does (keys lowercased, a parent
 * looked up as given and then lowercased). The hash covers all 64 bytes, so txids sharing a
 * prefix do not pile up in one probe run.
 */
const TXID_HEX = 64;

export class TxidTable {
  /** Index + 1 of the txid in each slot, 0 = empty; a power of two, at most half full. */
  private slots: Int32Array;
  /** Offset in the buffer of each added txid. */
  private offsets: Uint32Array;
  size = 0;

  constructor(
    private readonly b: Uint8Array,
    expected: number,
  ) {
    let capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.offsets = new Uint32Array(Math.max(16, expected));
  }

  /** FNV-1a over the 64 bytes with hex letters folded to lowercase (| 0x20 keeps digits). */
  private hash(offset: number): number {
    const b = this.b;
    let h = 0x811c9dc5;
    for (let k = 0; k < TXID_HEX; k++) h = Math.imul(h ^ ((b[offset + k] ?? 0) | 0x20), 0x01000193);
    return h >>> 0;
  }

  /**
   * Whether the bytes at `a` equal the txid at `t`, ignoring hex case. The caller has checked the
   * txid is hex; the other side only needs printable bytes (the scan's strings): x | 0x20 is a hex
   * character only when x is one.
   */
  private same(a: number, t: number): boolean {
    const b = this.b;
    for (let k = 0; k < TXID_HEX; k++) if (((b[a + k] ?? 0) | 0x20) !== ((b[t + k] ?? 0) | 0x20)) return false;
    return true;
  }

  /** Adds the (hex-checked) txid at `offset` as index `size`; false when it is already there. */
  add(offset: number): boolean {
    if (2 * (this.size + 1) > this.slots.length) this.grow();
    const mask = this.slots.length - 1;
    for (let s = this.hash(offset) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s] ?? 0;
      if (v === 0) {
        if (this.size === this.offsets.length) {
          const next = new Uint32Array(this.offsets.length * 2);
          next.set(this.offsets);
          this.offsets = next;
        }
        this.offsets[this.size] = offset;
        this.slots[s] = ++this.size;
        return true;
      }
      if (this.same(offset, this.offsets[v - 1] ?? 0)) return false;
    }
  }

  /** Index of the txid spelled by the 64 bytes at `offset`, or -1. */
  find(offset: number): number {
    const mask = this.slots.length - 1;
    for (let s = this.hash(offset) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s] ?? 0;
      if (v === 0) return -1;
      if (this.same(offset, this.offsets[v - 1] ?? 0)) return v - 1;
    }
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let i = 0; i < this.size; i++) {
      let s = this.hash(this.offsets[i] ?? 0) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = i + 1;
    }
    this.slots = slots;
  }
}
