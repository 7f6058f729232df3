/** The txid-keyed lookups of a published cache: found by txid whatever the snapshot's order. */
import { describe, expect, it } from 'vitest';
import { findTxidKey, lookupFromSnapshot, lookupSize } from '../../src/optimizer/cache/txLookup.js';

describe('txid-keyed lookups', () => {
  it('behavior: every txid is found with its own values; others (same first word included) are not', () => {
    // The last 8 hex characters are the key's first word: these three share it (the second differs).
    const shared = 'deadbeef';
    const txids = ['11', '22', '33', '44', '55'].map((c, i) => (i < 3 ? c.repeat(28) + shared : c.repeat(32)));
    const n = txids.length;
    const rates = Float64Array.from(txids.map((_, i) => i + 1));
    const lookup = lookupFromSnapshot(txids, rates, new Uint32Array(n).fill(4), Int32Array.from(txids.map((_, i) => i - 1)));
    expect(lookupSize(lookup)).toBe(n);
    for (const [i, txid] of txids.entries()) {
      const k = findTxidKey(lookup.keys, txid);
      expect(lookup.chunkFeeRateSatVb[k]).toBe(i + 1);
      expect(lookup.projectedBlock[k]).toBe(i - 1);
    }
    expect(findTxidKey(lookup.keys, '66'.repeat(28) + shared)).toBe(-1);
    expect(findTxidKey(lookup.keys, '00'.repeat(32))).toBe(-1);
    expect(findTxidKey(lookup.keys, 'zz'.repeat(32))).toBe(-1);
    expect(findTxidKey(lookup.keys, '11')).toBe(-1);
    expect(findTxidKey(lookupFromSnapshot([], new Float64Array(0), new Uint32Array(0), new Int32Array(0)).keys, txids[0]!)).toBe(-1);
  });
});
