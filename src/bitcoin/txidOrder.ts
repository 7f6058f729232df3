/**
 * Bitcoin Core's txid order, the tie-break of its linearizations and templates. Core compares
 * uint256 values with memcmp over their internal little-endian bytes (`base_blob::Compare`), while
 * RPCs display the bytes reversed (`GetHex`); so the order is that of the byte-reversed display hex.
 */
import { at } from '../util/at.js';

/**
 * A string that sorts (`<`) in Core's order: the byte-reversed lowercase display hex. Through a
 * Buffer the result is a flat string; built by concatenation it was a rope, and comparing ropes made
 * sorting 150k keys ~30x slower (~1.3 s instead of ~40 ms).
 */
export function coreTxidKey(txid: string): string {
  return Buffer.from(txid, 'hex').reverse().toString('hex');
}

const HEX_VALUE = (() => {
  const t = new Uint8Array(128).fill(255);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[97 + c] = t[65 + c] = 10 + c;
  return t;
})();

/** Whether s is exactly 64 hex characters (a table loop: ~5x faster than a regex here). */
export function isTxidHex(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || HEX_VALUE[c] === 255) return false;
  }
  return true;
}

/** Value of one hex character code (callers pass txids checked or produced as hex). */
function hexDigit(c: number): number {
  return c <= 57 ? c - 48 : (c | 32) - 87;
}

/** Word w (0..7) of a txid in Core's memcmp order: internal bytes 4w..4w+3, big-endian. Internal
 *  byte j is display byte 31 - j. Input must be valid hex. */
function coreWord(hex: string, w: number): number {
  let word = 0;
  for (let k = 0; k < 4; k++) {
    const pos = 62 - 2 * (4 * w + k);
    word = word * 256 + hexDigit(hex.charCodeAt(pos)) * 16 + hexDigit(hex.charCodeAt(pos + 1));
  }
  return word;
}

/** Words per txid key: the txid's internal bytes as 8 big-endian uint32, so ascending keys are Core's order. */
export const KEY_WORDS = 8;

/** Writes the first `words` words of the txid's key at `out[offset ..)`. The txid must be hex. */
export function writeTxidKey(txid: string, out: Uint32Array, offset: number, words = KEY_WORDS): void {
  for (let w = 0; w < words; w++) out[offset + w] = coreWord(txid, w);
}

/** The txid whose key sits at `keys[i*8 ..]` (inverse of writeTxidKey). */
export function txidOfKey(keys: Uint32Array, i: number): string {
  let hex = '';
  for (let w = KEY_WORDS - 1; w >= 0; w--) {
    const v = keys[i * KEY_WORDS + w] ?? 0;
    for (let b = 0; b < 4; b++) hex += ((v >>> (8 * b)) & 0xff).toString(16).padStart(2, '0');
  }
  return hex;
}

/** Full comparison in Core's order (memcmp over the internal bytes). */
export function compareTxids(a: string, b: string): number {
  for (let w = 0; w < 8; w++) {
    const d = coreWord(a, w) - coreWord(b, w);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Rank of each txid in Core's order; the txids must be 64 hex characters (`isTxidHex`).
 * O(n log n), a numeric sort on a 29-bit prefix with exact ties: ~40 ms for 150k txids.
 * @returns rank[i] = position of txids[i] in that order (a permutation of 0..n-1)
 */
export function txidRanks(txids: readonly string[]): Uint32Array {
  const n = txids.length;
  const rank = new Uint32Array(n);
  if (n >= 2 ** 24) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareTxids(at(txids, a), at(txids, b)));
    order.forEach((tx, pos) => (rank[tx] = pos));
    return rank;
  }
  // Sort key: the first 29 bits in Core's order, times 2^24, plus the index: exact in a double, so
  // a plain numeric sort orders by prefix then index. Equal prefixes are then sorted exactly.
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = (coreWord(at(txids, i), 0) >>> 3) * 16777216 + i;
  keys.sort();
  const order = new Uint32Array(n);
  for (let pos = 0; pos < n; pos++) order[pos] = at(keys, pos) % 16777216;
  for (let pos = 0; pos < n;) {
    let end = pos + 1;
    const prefix = Math.floor(at(keys, pos) / 16777216);
    while (end < n && Math.floor(at(keys, end) / 16777216) === prefix) end++;
    if (end - pos > 1) order.subarray(pos, end).sort((a, b) => compareTxids(at(txids, a), at(txids, b)));
    pos = end;
  }
  order.forEach((tx, pos) => (rank[tx] = pos));
  return rank;
}
