import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import * as S from '../../src/node/schemas.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';

let simnet: SimnetHandle;
let node: BitcoinNode;
beforeAll(async () => {
  simnet = await startSimnet({ seed: 4, blockIntervalSec: 0, txPerSec: 0, initialTxs: 300, fundingUtxos: 1000, policyModule: CORE_V31_POLICY_MODULE });
  node = new BitcoinNode({ url: simnet.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 5000 });
});
afterAll(() => simnet?.close());

describe('BitcoinNode.getBlock', () => {
  it('behavior: the fast JSON path reads a verbose block exactly as the client big-number parser does', async () => {
    const [hash] = await simnet.control.mineBlocks(1);
    for (const verbosity of [1, 2] as const) {
      const viaClient = (verbosity === 1 ? S.BlockVerbose1 : S.BlockVerbose2).parse(await node.transport.raw('getblock', [hash, verbosity]));
      expect(await node.getBlock(hash!, verbosity as 1)).toEqual(viaClient);
    }
  });

  it('error: BLOCK_NOT_FOUND for an unknown hash on the fast path', async () => {
    await expect(node.getBlock('00'.repeat(32), 2)).rejects.toMatchObject({ code: 'BLOCK_NOT_FOUND', statusCode: 404 });
  });
});
