import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { btcToSats } from '../../src/node/bitcoinNode.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 300, seed: 5 });
  await refresh(world);
});
afterAll(() => world?.close());

describe('effective fee rates of the mempool view', () => {
  it('behavior: a parent that a later child pays for (CPFP) gets the new chunk rate, not the one it arrived with', async () => {
    const { mirror } = world.app.mempool;
    // A lone, cheap tx: its chunk is itself.
    const parent = [...mirror.txs.values()]
      .filter((tx) => tx.parents.length === 0 && tx.chunkFeeSat !== null && tx.chunkFeeSat === tx.modifiedFeeSat)
      .sort((a, b) => a.modifiedFeeSat / a.vsize - b.modifiedFeeSat / b.vsize)[0]!;
    const lone = parent.modifiedFeeSat / parent.vsize;
    const child = await world.simnet.control.createSpend({ fromTxid: parent.txid, kind: 'child', feeRateSatVb: 150 });
    await world.node.sendRawTransaction(child.hex);
    await refresh(world);

    const live = await world.node.getMempoolEntry(parent.txid);
    const chunkRate = (btcToSats(live.fees.chunk!) * 4) / live.chunkweight!;
    expect(chunkRate).toBeGreaterThan(lone * 2);
    expect(world.app.mempool.effectiveRate(parent.txid)).toBeCloseTo(chunkRate, 6);
    // The statistics read the same rate: the parent no longer sits in the cheap end of the sample.
    const sample = world.app.mempool.sample();
    const i = sample.vsizes.findIndex((v, k) => v === parent.vsize && sample.fees[k] === parent.feeSat);
    expect(sample.rates[i]).toBeCloseTo(chunkRate, 6);
  });

  it('behavior: a poll that changes nothing keeps the sample (no rebuild)', async () => {
    await world.app.mempool.mirror.poll();
    const before = world.app.mempool.sample();
    await world.app.mempool.mirror.poll();
    expect(world.app.mempool.sample()).toBe(before);
    await world.simnet.control.addTransactions(1);
    await world.app.mempool.mirror.poll();
    expect(world.app.mempool.sample()).not.toBe(before);
  });
});
