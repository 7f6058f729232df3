/**
 * Per-tx lookups of a published cache, keyed by txid and serializable (typed arrays, no
 * process-local indices): the txids' keys in Core's order with parallel value arrays, looked up by
 * binary search. A txid's full key is its internal bytes (the byte-reversed display hex) as 8
 * big-endian uint32 words, so ascending keys are Core's memcmp order; a lookup keeps the first
 * LOOKUP_WORDS of it (64 bits: 1.2 MB per 150k transactions instead of 4.8, sent every cycle).
 * Two mempool transactions sharing 64 bits can only be made on purpose (2^32 work, both by the
 * same author); a txid that matches someone else's takes a 2^64 search.
 */
import { KEY_WORDS, writeTxidKey } from '../../bitcoin/txidOrder.js';
import { feeRateSatVbOfWeight } from '../../bitcoin/units.js';

// Txid keys are Core's txid order, stated in src/bitcoin/txidOrder.ts.
export { KEY_WORDS, txidOfKey, writeTxidKey } from '../../bitcoin/txidOrder.js';

export interface TxLookup {
  /** LOOKUP_WORDS per tx (the key's first words), ascending (Core's txid order). */
  keys: Uint32Array;
  /** The tx's chunk fee rate (Core's sigop-adjusted chunk), sat/vB. */
  chunkFeeRateSatVb: Float64Array;
  /** 0-based projected block, -1 beyond the projected blocks. */
  projectedBlock: Int32Array;
}

/** Words of a key kept by lookups. */
export const LOOKUP_WORDS = 2;

const probe = new Uint32Array(LOOKUP_WORDS);
const HEX64 = /^[0-9a-f]{64}$/i;

/** Index of `txid` in a lookup's ascending keys, or -1. O(log n). */
export function findTxidKey(keys: Uint32Array, txid: string): number {
  if (txid.length !== 64 || !HEX64.test(txid)) return -1;
  writeTxidKey(txid, probe, 0, LOOKUP_WORDS);
  const w0 = probe[0] ?? 0;
  const w1 = probe[1] ?? 0;
  let lo = 0;
  let hi = keys.length / LOOKUP_WORDS;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const a = keys[mid * LOOKUP_WORDS] ?? 0;
    if (a < w0 || (a === w0 && (keys[mid * LOOKUP_WORDS + 1] ?? 0) < w1)) lo = mid + 1;
    else hi = mid;
  }
  return lo < keys.length / LOOKUP_WORDS && keys[lo * LOOKUP_WORDS] === w0 && keys[lo * LOOKUP_WORDS + 1] === w1 ? lo : -1;
}

/** Number of transactions in a lookup. */
export function lookupSize(lookup: TxLookup): number {
  return lookup.keys.length / LOOKUP_WORDS;
}

/**
 * The lookup of a snapshot's cycle (index i = txids[i]); txids already in Core's order (the mirror
 * snapshot's) are used as they are, others are sorted first. O(n), or O(n log n) when unsorted.
 */
export function lookupFromSnapshot(
  txids: readonly string[],
  txChunkFeeSat: Float64Array,
  txChunkWeightWu: Uint32Array,
  txProjectedBlock: Int32Array,
): TxLookup {
  const n = txids.length;
  const raw = new Uint32Array(n * KEY_WORDS);
  txids.forEach((t, i) => writeTxidKey(t, raw, i * KEY_WORDS));
  const cmp = (a: number, b: number) => {
    for (let w = 0; w < KEY_WORDS; w++) {
      const x = raw[a * KEY_WORDS + w] ?? 0;
      const y = raw[b * KEY_WORDS + w] ?? 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = cmp(i - 1, i) < 0;
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  if (!sorted) order.sort(cmp);
  const keys = new Uint32Array(n * LOOKUP_WORDS);
  const chunkFeeRateSatVb = new Float64Array(n);
  const projectedBlock = new Int32Array(n);
  order.forEach((i, pos) => {
    keys[pos * LOOKUP_WORDS] = raw[i * KEY_WORDS] ?? 0;
    keys[pos * LOOKUP_WORDS + 1] = raw[i * KEY_WORDS + 1] ?? 0;
    chunkFeeRateSatVb[pos] = feeRateSatVbOfWeight(txChunkFeeSat[i] ?? 0, txChunkWeightWu[i] ?? 0);
    projectedBlock[pos] = txProjectedBlock[i] ?? -1;
  });
  return { keys, chunkFeeRateSatVb, projectedBlock };
}
