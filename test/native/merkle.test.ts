import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { merkleRoot, witnessCommitmentScript } from '../../src/bitcoin/witness.js';
import { loadBinding, nativeMerkleRoot } from '../../src/optimizer/binding/native.js';
import { templateWitness } from '../../src/optimizer/cache/templateCache.js';
import { BLOCK_100000 } from '../helpers/knownBlocks.js';

/** Deterministic 32-byte ids in display hex. */
const ids = (n: number, salt = 'm') => Array.from({ length: n }, (_, i) => createHash('sha256').update(`${salt}${i}`).digest('hex'));

describe('native merkle root (the published template witness commitment)', () => {
  it('default: the merkle root of mainnet block 100,000 matches its header', () => {
    expect(nativeMerkleRoot([...BLOCK_100000.txids])).toBe(BLOCK_100000.merkleRoot);
  });

  it('behavior: equals the JavaScript tree for every size from 1 to 70 and for a 3,501-leaf template (odd levels included)', () => {
    for (let n = 1; n <= 70; n++) expect(nativeMerkleRoot(ids(n)), `n=${n}`).toBe(merkleRoot(ids(n)));
    const big = ids(3_501, 'big');
    expect(nativeMerkleRoot(big)).toBe(merkleRoot(big));
    expect(nativeMerkleRoot(['AB'.repeat(32)])).toBe('ab'.repeat(32)); // one leaf is the root; upper-case hex read as hex
  });

  it('behavior: the published witness commitment equals the JavaScript one', () => {
    const wtxids = ids(1_234, 'w');
    const byTxid = new Map(wtxids.map((w, i) => [`t${i}`, w]));
    const txids = [...byTxid.keys()];
    expect(templateWitness(txids, (t) => byTxid.get(t))?.commitment).toBe(witnessCommitmentScript(wtxids));
    expect(templateWitness([], (t) => byTxid.get(t))?.commitment).toBe(witnessCommitmentScript([]));
  });

  it('errors: no ids, a length not a multiple of 64 and a non-hex character are refused with a clear code', () => {
    const root = loadBinding().merkleRoot;
    expect(root).toBeTypeOf('function');
    if (!root) return;
    for (const bad of ['', 'ab'.repeat(31), `${'ab'.repeat(31)}zz`]) {
      expect(() => root(bad)).toThrow(expect.objectContaining({ code: 'ERR_OPTIMIZER_INVALID_ARGUMENT' }));
    }
    expect(() => (root as unknown as (x: unknown) => string)(42)).toThrow(expect.objectContaining({ code: 'ERR_OPTIMIZER_INVALID_ARGUMENT' }));
    // The same as bytes (what nativeMerkleRoot passes): the same refusals; other typed arrays are refused.
    for (const bad of ['', 'ab'.repeat(31), `${'ab'.repeat(31)}zz`]) {
      expect(() => root(Buffer.from(bad))).toThrow(expect.objectContaining({ code: 'ERR_OPTIMIZER_INVALID_ARGUMENT' }));
    }
    expect(() => (root as unknown as (x: unknown) => string)(new Uint32Array(16))).toThrow(expect.objectContaining({ code: 'ERR_OPTIMIZER_INVALID_ARGUMENT' }));
    expect(root(Buffer.from(BLOCK_100000.txids.join('')))).toBe(BLOCK_100000.merkleRoot);
  });
});
