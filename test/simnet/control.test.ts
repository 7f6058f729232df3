/**
 * The owner's control handle: calls validated in the worker with clear errors, automatic activity
 * on/off, and a clean, idempotent close after which calls reject.
 */
import { describe, expect, it } from 'vitest';
import { startSimnet, type SimnetOptions } from '../../src/simnet/index.js';
import { bitcoinNode, POLICY, TEST_SIM } from './helpers.js';

describe('simnet control', () => {
  it('behavior: automatic activity adds transactions and mines on its timers; close is clean and idempotent', async () => {
    const logs: string[] = [];
    const sim = await startSimnet({ seed: 51, initialTxs: 50, txPerSec: 40, blockIntervalSec: 1.5, ...TEST_SIM, log: (_l, m) => logs.push(m) });
    const node = bitcoinNode(sim.rpcUrl);
    const start = await sim.control.stats();
    expect(start).toMatchObject({ automatic: true });
    const startHeight = await node.getBlockCount();
    const deadline = Date.now() + 20_000;
    let mined = false;
    let arrived = false;
    while (Date.now() < deadline && !(mined && arrived)) {
      await new Promise((r) => setTimeout(r, 250));
      const s = await sim.control.stats();
      mined ||= s.height > startHeight;
      arrived ||= s.mempoolSize > start.mempoolSize || mined;
    }
    expect(mined).toBe(true);
    expect(arrived).toBe(true);
    // Block times follow the wall clock in automatic mode.
    expect(Math.abs((await node.getBlockHeader(await node.getBestBlockHash())).time - Date.now() / 1000)).toBeLessThan(120);
    await sim.control.setAutomatic(false);
    const frozen = await sim.control.stats();
    await new Promise((r) => setTimeout(r, 700));
    expect(await sim.control.stats()).toMatchObject({ automatic: false, height: frozen.height, mempoolSize: frozen.mempoolSize });
    await sim.close();
    await sim.close();
    await expect(sim.control.stats()).rejects.toThrow(/closed/);
    await expect(node.getBlockCount()).rejects.toMatchObject({ code: 'NODE_UNAVAILABLE' });
    expect(logs.filter((l) => /failed/.test(l))).toEqual([]);
  });

  it('error: invalid options are refused before a worker starts', async () => {
    await expect(startSimnet({ seed: -1, ...POLICY })).rejects.toThrow(/invalid simnet option seed/);
    await expect(startSimnet({ txPerSec: Number.NaN, ...POLICY })).rejects.toThrow(/invalid simnet option txPerSec/);
    await expect(startSimnet({ fundingUtxos: 5, ...POLICY })).rejects.toThrow(/invalid simnet option fundingUtxos/);
  });

  it('error: a node is never built without a mining policy that the worker can load', async () => {
    await expect(startSimnet({ seed: 1 } as SimnetOptions)).rejects.toThrow(
      /invalid simnet option policyModule: required: the URL of a module exporting mempoolPolicy/,
    );
    await expect(startSimnet({ policyModule: 'coreV31Policy' })).rejects.toThrow(/invalid simnet option policyModule: not a URL/);
    const quick = { initialTxs: 0, fundingUtxos: 100, log: () => undefined };
    await expect(startSimnet({ ...quick, policyModule: 'data:text/javascript,export const other = 1' })).rejects.toThrow(
      /simnet worker failed: .*the policy module data:text\/javascript,export const other = 1 does not export a function mempoolPolicy/,
    );
    await expect(startSimnet({ ...quick, policyModule: new URL('./noSuchPolicy.js', import.meta.url).href })).rejects.toThrow(
      /simnet worker failed: .*cannot load the policy module .*noSuchPolicy\.js/,
    );
  });

  it('error: invalid control calls reject with clear messages and leave the node working', async () => {
    const sim = await startSimnet({ seed: 52, initialTxs: 30, ...TEST_SIM });
    try {
      await expect(sim.control.mineBlocks(-1)).rejects.toThrow(/bad control call mineBlocks/);
      await expect(sim.control.addTransactions(1.5)).rejects.toThrow(/bad control call/);
      await expect(sim.control.replaceTransaction('ab'.repeat(32))).rejects.toThrow(/not in the mempool/);
      await expect(sim.control.createSpend({ fromTxid: 'cd'.repeat(32), feeRateSatVb: 2 })).rejects.toThrow(/not in the mempool/);
      await expect(sim.control.createSpend({ fromTxid: 'cd'.repeat(32), feeRateSatVb: -2 })).rejects.toThrow(/bad control call/);
      const added = await sim.control.addTransactions(5);
      expect(added).toHaveLength(5);
      expect(new Set(added).size).toBe(5);
      const hashes = await sim.control.mineBlocks(2);
      expect(hashes).toHaveLength(2);
      expect((await sim.control.stats()).mempoolSize).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
