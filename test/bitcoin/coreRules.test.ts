import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagramGraph, feerateDiagram, improvesDiagram, type DiagramTx } from '../../src/bitcoin/feerateDiagram.js';
import { sigopAdjustedVsize, sigopAdjustedWeight, sigopCostFromVsize } from '../../src/bitcoin/sigops.js';
import { KEY_WORDS, compareTxids, coreTxidKey, isTxidHex, txidOfKey, txidRanks, writeTxidKey } from '../../src/bitcoin/txidOrder.js';

describe("Core's txid order", () => {
  it('default: txidRanks sorts as the byte-reversed display hex (memcmp over the internal bytes)', () => {
    // Display hex ends in 01, 02, ff: the internal first byte is that last display byte.
    const ids = ['00'.repeat(31) + 'ff', 'ff'.repeat(31) + '02', 'ab'.repeat(31) + '01', '00'.repeat(32)];
    expect(Array.from(txidRanks(ids))).toEqual([3, 2, 1, 0]);
  });

  it('behavior: txidRanks, compareTxids and coreTxidKey agree on random and shared-prefix txids', () => {
    const prefix = randomBytes(20).toString('hex');
    const ids = [
      ...Array.from({ length: 300 }, () => randomBytes(32).toString('hex')),
      ...Array.from({ length: 50 }, () => randomBytes(12).toString('hex') + prefix),
    ];
    const byKey = [...ids].sort((a, b) => (coreTxidKey(a) < coreTxidKey(b) ? -1 : 1));
    const rank = txidRanks(ids);
    const byRank = new Array<string>(ids.length);
    ids.forEach((t, i) => (byRank[rank[i] ?? -1] = t));
    expect(byRank).toEqual(byKey);
    expect([...ids].sort(compareTxids)).toEqual(byKey);
    // The word keys the native engine and the cache lookups sort by: the same order, and reversible.
    const keys = new Uint32Array(ids.length * KEY_WORDS);
    byKey.forEach((t, i) => writeTxidKey(t, keys, i * KEY_WORDS));
    for (let i = 1; i < byKey.length; i++) {
      const a = Array.from(keys.subarray((i - 1) * KEY_WORDS, i * KEY_WORDS));
      const b = Array.from(keys.subarray(i * KEY_WORDS, (i + 1) * KEY_WORDS));
      const d = a.findIndex((w, k) => w !== b[k]);
      expect(d >= 0 && (a[d] ?? 0) < (b[d] ?? 0)).toBe(true);
      expect(txidOfKey(keys, i)).toBe(byKey[i]);
    }
  });

  it('error: isTxidHex refuses what is not 64 hex characters', () => {
    expect(isTxidHex('a'.repeat(64))).toBe(true);
    expect(isTxidHex('A'.repeat(64))).toBe(true);
    expect(isTxidHex('g'.repeat(64))).toBe(false);
    expect(isTxidHex('a'.repeat(63))).toBe(false);
    expect(isTxidHex(42)).toBe(false);
  });
});

describe('sigop-adjusted size', () => {
  it('default: a transaction weighs max(weight, 20 × sigops); vsize rounds up', () => {
    expect(sigopAdjustedWeight(800, 10)).toBe(800);
    expect(sigopAdjustedWeight(800, 100)).toBe(2000);
    expect(sigopAdjustedVsize(801, 0)).toBe(201);
    expect(sigopAdjustedVsize(400, 100)).toBe(500);
  });

  it('behavior: sigopCostFromVsize recovers the sigop cost when sigops dominate, 0 when weight does', () => {
    for (const sigops of [41, 100, 999, 4000]) {
      const vsize = sigopAdjustedVsize(800, sigops);
      expect(sigopCostFromVsize(vsize, 800)).toBe(sigops);
    }
    expect(sigopCostFromVsize(sigopAdjustedVsize(800, 40), 800)).toBe(0);
    // A vsize not divisible by 5 gives the least sigop cost consistent with it.
    expect(sigopCostFromVsize(503, 800)).toBe(101);
  });
});

describe('feerate diagram', () => {
  const tx = (txid: string, feeSat: number, weightWu: number, parents: string[] = []): DiagramTx => ({ txid, feeSat, weightWu, sigopCost: 0, parents });
  const a = 'a'.repeat(64);
  const b = 'b'.repeat(64);

  it('default: diagramGraph keeps parents inside the set only, as CSR', () => {
    const g = diagramGraph([tx(a, 100, 400, ['c'.repeat(64)]), tx(b, 900, 400, [a])]);
    expect(Array.from(g.parentOffsets)).toEqual([0, 0, 1]);
    expect(Array.from(g.parentIndices)).toEqual([0]);
    expect(Array.from(g.txidRank)).toEqual([0, 1]);
  });

  it('behavior: a chunk of parent and child is one segment; a richer replacement improves the diagram', () => {
    // Chunker: parent and child form one chunk (CPFP), as any linearizer would chunk them.
    const oneChunk = (txs: readonly DiagramTx[]) => {
      const fee = txs.reduce((s, t) => s + t.feeSat, 0);
      const weight = txs.reduce((s, t) => s + t.weightWu, 0);
      return { chunkFeeSat: txs.map(() => fee), chunkWeightWu: txs.map(() => weight) };
    };
    const before = feerateDiagram([tx(a, 100, 400), tx(b, 900, 400, [a])], oneChunk);
    expect(before).toEqual([{ weight: 800, fee: 1000 }]);
    expect(improvesDiagram(feerateDiagram([tx(a, 100, 400), tx(b, 901, 400, [a])], oneChunk), before)).toBe(true);
    expect(improvesDiagram(before, before)).toBe(false);
  });
});
