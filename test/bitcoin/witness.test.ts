import { describe, expect, it } from 'vitest';
import { merkleRoot, witnessCommitmentScript, wtxidOfRaw } from '../../src/bitcoin/witness.js';
import { BLOCK_100000 } from '../helpers/knownBlocks.js';

describe('BIP 141 witness commitment', () => {
  it('default: an empty template commits to the well-known value of every empty segwit block', () => {
    // The coinbase's commitment in empty mainnet blocks since 2017 (witness root of [0] = 0).
    expect(witnessCommitmentScript([])).toBe('6a24aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf9');
  });

  it('default: the merkle root of mainnet block 100,000 matches its header', () => {
    expect(merkleRoot([...BLOCK_100000.txids])).toBe(BLOCK_100000.merkleRoot);
  });

  it('behavior: an odd level pairs its last node with itself, as Core does', () => {
    const a = 'aa'.repeat(32);
    const b = 'bb'.repeat(32);
    const c = 'cc'.repeat(32);
    expect(merkleRoot([a, b, c])).toBe(merkleRoot([a, b, c, c]));
    expect(merkleRoot([a])).toBe(a);
  });

  it('default: the wtxid of a non-witness transaction is its txid', () => {
    // Mainnet block 170's spend (the first person-to-person transaction).
    const raw =
      '0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac00000000';
    expect(wtxidOfRaw(raw)).toBe('f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16');
  });
});
