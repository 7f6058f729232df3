/**
 * Determinism: with automatic activity off, the seed and the sequence of control calls fix the
 * chain (block hashes include times, merkle roots and witness commitments), the txids and wtxids
 * and the mempool; another seed gives another world.
 */
import { describe, expect, it } from 'vitest';
import { startSimnet } from '../../src/simnet/index.js';
import { bootstrapSimulator } from '../../src/simnet/node/bootstrap.js';
import { mempoolPolicy } from '../../src/optimizer/binding/coreV31Policy.js';
import { bitcoinNode, TEST_SIM } from './helpers.js';

async function run(seed: number): Promise<{ tips: string[]; mempool: string[]; wtxids: string[]; replaced: string[] }> {
  const sim = await startSimnet({ seed, initialTxs: 150, ...TEST_SIM });
  try {
    const node = bitcoinNode(sim.rpcUrl);
    const tips = [await node.getBestBlockHash()];
    await sim.control.addTransactions(60);
    const { replaced } = await sim.control.replaceTransaction();
    tips.push(...(await sim.control.mineBlocks(2)));
    await sim.control.addTransactions(60);
    const pool = await node.getRawMempoolVerbose();
    return { tips, mempool: Object.keys(pool), wtxids: Object.values(pool).map((e) => e.wtxid!), replaced };
  } finally {
    await sim.close();
  }
}

describe('determinism', () => {
  it('behavior: the same seed and control calls give the same chain, txids and mempool', async () => {
    const [a, b] = await Promise.all([run(5), run(5)]);
    expect(a.tips).toEqual(b.tips);
    expect(a.mempool).toEqual(b.mempool);
    expect(a.wtxids).toEqual(b.wtxids);
    expect(a.replaced).toEqual(b.replaced);
    expect(a.mempool.length).toBeGreaterThan(40);
  });

  it('args: seed — another seed gives other keys, blocks and transactions', async () => {
    const base = {
      blockIntervalSec: 0,
      txPerSec: 0,
      startTime: 1_767_225_600,
      addressCount: 64,
      fundingUtxos: 500,
      historyBlocks: 1,
      historyTxsPerBlock: 10,
      initialTxs: 20,
      policy: mempoolPolicy,
    };
    const [one, two] = await Promise.all([bootstrapSimulator({ ...base, seed: 1 }), bootstrapSimulator({ ...base, seed: 2 })]);
    expect(one.chain.blocks[1]!.hash).not.toBe(two.chain.blocks[1]!.hash);
    expect(one.wallet.addresses[0]!.address).not.toBe(two.wallet.addresses[0]!.address);
    const again = await bootstrapSimulator({ ...base, seed: 1 });
    expect(again.chain.tip.hash).toBe(one.chain.tip.hash);
    expect([...again.mempool.all()].map((e) => e.tx.wtxid)).toEqual([...one.mempool.all()].map((e) => e.tx.wtxid));
  });
});
