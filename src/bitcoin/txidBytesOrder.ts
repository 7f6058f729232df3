/**
 * Core's txid order (see txidOrder.ts) over txids held as raw bytes, 32 per tx in display order
 * (byte k of txid i at `bytes[32 i + k]`, so its hex is the RPC's txid): the synthetic generator
 * keeps a million txids this way (32 MB) instead of as a million 64-character strings.
 */

/** Bytes per txid. */
export const TXID_BYTES = 32;

/** Word w (0..7) of txid i in Core's memcmp order: internal bytes 4w..4w+3 (display bytes 31-4w down to 28-4w), big-endian. */
function coreWordOfBytes(bytes: Uint8Array, i: number, w: number): number {
  const end = i * TXID_BYTES + 31 - 4 * w;
  return (((bytes[end] ?? 0) << 24) | ((bytes[end - 1] ?? 0) << 16) | ((bytes[end - 2] ?? 0) << 8) | (bytes[end - 3] ?? 0)) >>> 0;
}

/** Full comparison of txids a and b in Core's order. */
function compareTxidBytes(bytes: Uint8Array, a: number, b: number): number {
  for (let w = 0; w < 8; w++) {
    const d = coreWordOfBytes(bytes, a, w) - coreWordOfBytes(bytes, b, w);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Rank of each of the `n` txids in Core's order: the same permutation `txidRanks` gives for their hex.
 * Same method: a numeric sort on a 29-bit prefix times 2^24 plus the index (exact in a double), then
 * runs of equal prefixes sorted exactly. O(n log n), no per-tx objects.
 * @throws RangeError when `bytes` holds fewer than 32 n bytes or n >= 2^24
 */
export function txidRanksFromBytes(bytes: Uint8Array, n: number): Uint32Array {
  if (bytes.length < n * TXID_BYTES) throw new RangeError(`${bytes.length} bytes hold fewer than ${n} txids`);
  if (n >= 2 ** 24) throw new RangeError(`${n} txids: the prefix sort key holds indices below 2^24`);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = (coreWordOfBytes(bytes, i, 0) >>> 3) * 16777216 + i;
  keys.sort();
  const order = new Uint32Array(n);
  for (let pos = 0; pos < n; pos++) order[pos] = (keys[pos] ?? 0) % 16777216;
  for (let pos = 0; pos < n;) {
    let end = pos + 1;
    const prefix = Math.floor((keys[pos] ?? 0) / 16777216);
    while (end < n && Math.floor((keys[end] ?? 0) / 16777216) === prefix) end++;
    if (end - pos > 1) order.subarray(pos, end).sort((a, b) => compareTxidBytes(bytes, a, b));
    pos = end;
  }
  const rank = new Uint32Array(n);
  for (let pos = 0; pos < n; pos++) rank[order[pos] ?? 0] = pos;
  return rank;
}
