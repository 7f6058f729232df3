import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { btcToSats } from '../../src/bitcoin/units.js';
import { effectiveFeeRate } from '../../src/fees/effectiveFeeRate.js';
import { txChunkFeeRate } from '../../src/optimizer/cache/templateCache.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 300, seed: 5 });
  await refresh(world);
});
afterAll(() => world?.close());

describe('effectiveFeeRate', () => {
  const own = { feeSat: 1_000, vsize: 200 };
  const chunk = (feeSat: number, weightWu: number) => ({ feeSat, weightWu });

  it('default: the freshest exact answer wins: live node chunk, then optimizer, then the chunk at arrival', () => {
    const all = { own, liveNodeChunk: chunk(4_000, 800), optimizerChunkRateSatVb: 12, arrivalNodeChunk: chunk(1_000, 800) };
    expect(effectiveFeeRate(all)).toEqual({ satVb: 20, source: 'node_chunk' });
    expect(effectiveFeeRate({ ...all, liveNodeChunk: null })).toEqual({ satVb: 12, source: 'optimizer_chunk' });
    expect(effectiveFeeRate({ ...all, liveNodeChunk: null, optimizerChunkRateSatVb: undefined })).toEqual({ satVb: 5, source: 'node_chunk_at_arrival' });
    expect(effectiveFeeRate({ own })).toEqual({ satVb: 5, source: 'own' });
  });

  it('behavior: without a chunk, parents drag the rate down and children pull it up (package estimate)', () => {
    const packages = (ancestorFeeSat: number, ancestorVsize: number, descendantFeeSat: number, descendantVsize: number) => ({
      ancestorFeeSat,
      ancestorVsize,
      descendantFeeSat,
      descendantVsize,
    });
    expect(effectiveFeeRate({ own, packages: packages(1_200, 400, 1_000, 200) })).toEqual({ satVb: 3, source: 'package_estimate' });
    expect(effectiveFeeRate({ own, packages: packages(1_000, 200, 4_000, 400) })).toEqual({ satVb: 10, source: 'package_estimate' });
  });
});

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
    const cache = world.app.optimizer.service.cache;
    expect(cache && txChunkFeeRate(cache, parent.txid)).toBeCloseTo(chunkRate, 6);
    // The statistics read the same rate: the parent no longer sits in the cheap end of the sample.
    const sample = world.app.fees.sample();
    const i = sample.vsizes.findIndex((v, k) => v === parent.vsize && sample.fees[k] === parent.feeSat);
    expect(sample.rates[i]).toBeCloseTo(chunkRate, 6);
  });

  it('behavior: a poll that changes nothing keeps the sample (no rebuild)', async () => {
    await world.app.mempool.mirror.poll();
    const before = world.app.fees.sample();
    await world.app.mempool.mirror.poll();
    expect(world.app.fees.sample()).toBe(before);
    await world.simnet.control.addTransactions(1);
    await world.app.mempool.mirror.poll();
    expect(world.app.fees.sample()).not.toBe(before);
  });
});
