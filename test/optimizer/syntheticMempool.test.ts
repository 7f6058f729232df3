import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeTxidRank } from '../../src/optimizer/snapshot/snapshot.js';
import { generateMempool, type GeneratorOptions, type SyntheticMempool } from '../../src/optimizer/snapshot/syntheticMempool.js';

/** SHA-256 over everything a caller reads: the txids as hex, every input array, the times. */
function digest(m: SyntheticMempool): string {
  const h = createHash('sha256');
  for (const t of m.txids) h.update(t);
  const { feeSat, weightWu, sigopCost, parentOffsets, parentIndices, txidRank } = m.input;
  for (const a of [feeSat, weightWu, sigopCost ?? new Uint32Array(0), parentOffsets, parentIndices, txidRank, m.time]) {
    h.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  }
  return h.digest('hex');
}

// Digests printed by the generator before it moved to typed arrays (JS arrays and txid strings,
// commit 6e0b96f): benches and tests compare against figures taken with these mempools.
const BEFORE: [GeneratorOptions, string][] = [
  [{ txCount: 1, seed: 1 }, '0d7dd92dbbe43e3d39dee426614a8b326add18ce0cf8971f43f3a6df18698635'],
  [{ txCount: 30, seed: 5, sigopHeavyShare: 0.1 }, '32bb1adce9bc38ec407a4a66fbe4e164b88f16dc23283325127662a77538fb50'],
  [{ txCount: 2000, seed: 7, sigopHeavyShare: 0.05, bareMultisigShare: 0.02 }, '26a9f12bfcdd39bf61218a73c49ba82bafbd76e211b6e083a9d7e4aa6a898de5'],
  [{ txCount: 5000, seed: 11, profile: 'cluster-heavy' }, '68c82f2519ef9d7e4c4143d28c722e9bbeb205f17bfe688a3772eaeb0a47523b'],
  [{ txCount: 4000, seed: 13, maxClusterSize: 10 }, 'f0b62188f79c34bacf38335acfe0a854cef772d35b1f1c6973e97f106ebf963f'],
  [
    { txCount: 20_000, seed: 2, profile: 'cluster-heavy', bareMultisigShare: 0.1, sigopHeavyShare: 0.03 },
    'dee788c1204aa3ee15b4ab6e4d75e0dc329fa10f7704a36561636425f6b4e5b0',
  ],
];

describe('generateMempool', () => {
  it('default: same seed and options, same mempool as the generator has always given', () => {
    for (const [options, want] of BEFORE) expect([options, digest(generateMempool(options))]).toEqual([options, want]);
  });

  it('default: exactly txCount transactions, valid CSR parents, txids distinct and ranked as Core', () => {
    const m = generateMempool({ txCount: 10_000, seed: 3, profile: 'cluster-heavy' });
    const n = m.txCount;
    expect(n).toBe(10_000);
    expect(m.txidBytes.length).toBe(32 * n);
    const { parentOffsets, parentIndices, feeSat, weightWu, txidRank } = m.input;
    expect([feeSat.length, weightWu.length, txidRank.length, m.time.length, parentOffsets.length]).toEqual([n, n, n, n, n + 1]);
    expect(parentOffsets[n]).toBe(parentIndices.length);
    expect(parentIndices.every((p) => p < n)).toBe(true);
    expect(new Set(m.txids).size).toBe(n);
    expect(m.txids.every((t, i) => t === m.txidAt(i) && /^[0-9a-f]{64}$/.test(t))).toBe(true);
    expect(Array.from(txidRank)).toEqual(Array.from(computeTxidRank(m.txids)));
  });

  it('edge: zero transactions give empty arrays; txidAt refuses an index out of range', () => {
    const m = generateMempool({ txCount: 0 });
    expect([m.txCount, m.input.parentOffsets.length, m.input.parentIndices.length, m.txids.length]).toEqual([0, 1, 0, 0]);
    expect(() => generateMempool({ txCount: 3 }).txidAt(3)).toThrow(RangeError);
  });
});
