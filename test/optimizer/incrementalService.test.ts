/**
 * Incremental optimizer cycles in the running service (simulated node): a broadcast transaction
 * appears in the served template within the incremental cadence, with no full cycle in between;
 * the cache says what it is and carries a valid receipt; a full cycle then agrees with the
 * incremental state; cache-stats and capabilities show both cadences.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import { IncrementalRunner } from '../../src/optimizer/incremental/incrementalRunner.js';
import { verifyReceipt } from '../../src/optimizer/cache/receipts.js';
import type { TemplateCache } from '../../src/optimizer/cache/templateCache.js';
import { txChunkFeeRate, txProjectedPlacement } from '../../src/optimizer/cache/templateCache.js';
import { lookupSize } from '../../src/optimizer/cache/txLookup.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 600, seed: 21, env: { OPTIMIZER_INCREMENTAL_MS: '100' } });
  await world.app.mempool.mirror.poll();
});
afterAll(() => world?.close());

/** The next published cache that satisfies `ok`. */
function nextCache(ok: (c: TemplateCache) => boolean): Promise<TemplateCache> {
  const service = world.app.optimizer.service;
  return new Promise((resolve) => {
    const on = (c: TemplateCache) => {
      if (!ok(c)) return;
      service.off('published', on);
      resolve(c);
    };
    service.on('published', on);
  });
}

describe('incremental optimizer cycles', () => {
  it('behavior: a broadcast tx is in the served template after the next incremental cycle, without a full cycle', async () => {
    const service = world.app.optimizer.service;
    const first = nextCache(() => true);
    service.start(); // the first cycle is full
    const full = await first;
    expect(full.kind).toBe('full');
    const fullCycles = service.fullCycleCount;

    const { mirror } = world.app.mempool;
    const parent = [...mirror.txs.values()].find((tx) => tx.parents.length === 0);
    expect(parent).toBeDefined();
    const child = await world.simnet.control.createSpend({ fromTxid: parent!.txid, kind: 'child', feeRateSatVb: 400 });
    const served = nextCache((c) => c.optimized.txidSet.has(child.txid));
    await world.node.sendRawTransaction(child.hex);
    await mirror.poll(); // the mirror sees it (as a ZMQ event would tell it)
    const cache = await served;
    expect(lookupSize(full.lookup)).toBe(full.snapshot.txCount);
    expect(txProjectedPlacement(full, child.txid)).toBeUndefined(); // new since the full cycle

    expect(cache.kind).toBe('incremental');
    expect(service.fullCycleCount).toBe(fullCycles);
    expect(cache.cycle).toBeGreaterThan(full.cycle);
    // The child pays for its parent: both in block 1, at their chunk's rate.
    expect(cache.optimized.txidSet.has(parent!.txid)).toBe(true);
    expect(txProjectedPlacement(cache, child.txid)).toEqual({ block: 1, beyond: false });
    expect(txChunkFeeRate(cache, parent!.txid)).toBeCloseTo(txChunkFeeRate(cache, child.txid)!, 9);
    // Compared with our v31 model of the same state; signed like any cache.
    expect(cache.baseline.source).toBe('native_v31');
    expect(cache.nativeV30).toBeNull();
    expect(cache.snapshot.txCount).toBe(mirror.txs.size);
    expect(verifyReceipt(cache.receipt, world.app.optimizer.signer.publicKeyBase64)).toBe(true);
    expect(cache.optimized.feeSat).toBeGreaterThanOrEqual(cache.nativeV31.feeSat);

    const check = await world.app.inject({ method: 'POST', url: '/v1/template/check', payload: { txid: child.txid } });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toMatchObject({ cachedAt: new Date(cache.cachedAt).toISOString() });
  });

  it('behavior: a mined block: the next incremental template is for the new tip, without the mined txs', async () => {
    const service = world.app.optimizer.service;
    const { mirror } = world.app.mempool;
    const before = service.cache!;
    const mined = before.optimized.txids.slice(0, 50);
    const [hash] = await world.simnet.control.mineBlocks(1);
    const served = nextCache((c) => c.previousBlockHash === hash);
    await mirror.poll();
    void service.refreshIncremental();
    const cache = await served;
    expect(cache.kind).toBe('incremental');
    expect(cache.height).toBe(before.height + 1);
    const block = await world.node.getBlock(hash!, 1);
    const confirmed = mined.filter((t) => block.tx.includes(t));
    expect(confirmed.length).toBeGreaterThan(0);
    for (const t of confirmed) expect(txProjectedPlacement(cache, t)).toBeUndefined();
    expect(cache.snapshot.txCount).toBe(mirror.txs.size);
  });

  it('behavior: a full cycle checks the incremental state and agrees with it', async () => {
    const service = world.app.optimizer.service;
    await world.simnet.control.addTransactions(40);
    await world.simnet.control.replaceTransaction();
    await world.app.mempool.mirror.poll();
    const cache = await service.refresh();
    expect(cache?.kind).toBe('full');
    expect(service.incrementalStats.checks).toBeGreaterThan(0);
    expect(service.incrementalStats.mismatches).toBe(0);
    expect(cache?.snapshot.txCount).toBe(world.app.mempool.mirror.txs.size);
  });

  it('behavior: a crashed engine worker is replaced; the next cycle resends the mempool and publishes', async () => {
    const service = world.app.optimizer.service;
    const { mirror } = world.app.mempool;
    const runner = (service as unknown as { options: { incremental: IncrementalRunner } }).options.incremental;
    const worker = (runner as unknown as { worker: Worker | undefined }).worker;
    expect(worker).toBeDefined();
    const { resets, failures } = runner.counters;
    await worker!.terminate();
    expect(runner.counters.failures).toBe(failures + 1);
    const added = await world.simnet.control.addTransactions(5);
    const served = nextCache((c) => c.kind === 'incremental' && added.every((t) => txProjectedPlacement(c, t) !== undefined));
    await mirror.poll();
    void service.refreshIncremental();
    const cache = await served;
    expect(runner.counters.resets).toBe(resets + 1);
    expect(cache.snapshot.txCount).toBe(mirror.txs.size);
  });

  it('behavior: a full cycle that finds the engine out of step with the mempool view resends the view', async () => {
    const service = world.app.optimizer.service;
    const { mirror } = world.app.mempool;
    const runner = (service as unknown as { options: { incremental: IncrementalRunner } }).options.incremental;
    const onDiff = (runner as unknown as { onDiff: (...args: unknown[]) => void }).onDiff;
    // The engine misses a diff.
    mirror.off('diff', onDiff);
    const missed = await world.simnet.control.addTransactions(3);
    try {
      await mirror.poll();
    } finally {
      mirror.on('diff', onDiff);
    }
    const { resyncs } = service.incrementalStats;
    const first = (await service.refresh())!;
    expect(service.incrementalStats.resyncs).toBe(resyncs + 1);
    expect(missed.some((t) => txProjectedPlacement(first, t) !== undefined)).toBe(false);
    const second = (await service.refresh())!;
    for (const t of missed) expect(txProjectedPlacement(second, t)).toBeDefined();
    expect(second.snapshot.txCount).toBe(mirror.txs.size);
    expect(service.incrementalStats.resyncs).toBe(resyncs + 1);
  });

  it('behavior: a reset sent in slices builds the same templates as the service', async () => {
    const service = world.app.optimizer.service;
    const cache = (await service.refresh())!;
    const runner = new IncrementalRunner({ mirror: world.app.mempool.mirror, resetSlice: 7 });
    try {
      expect(world.app.mempool.mirror.txs.size).toBeGreaterThan(3 * 7);
      const step = await runner.step({ ...service.optimizerOptions, seed: cache.cycle }, { full: true, check: false });
      expect(step.reset).toBe(true);
      expect(step.totals.txCount).toBe(cache.snapshot.txCount);
      expect(step.optimized.feeSat).toBe(cache.optimized.feeSat);
      expect(step.optimized.txids).toEqual(cache.optimized.txids);
      expect(step.upperBound).toEqual(cache.upperBound);
    } finally {
      await runner.close();
    }
  });

  it('default: cache-stats and capabilities show both cadences and the template age', async () => {
    const stats = (await world.app.inject({ method: 'GET', url: '/v1/template/cache-stats' })).json();
    expect(stats.cadence).toMatchObject({
      fullIntervalSec: 60,
      incrementalIntervalMs: 100,
      full: { count: expect.any(Number) },
      incremental: { count: expect.any(Number), mismatches: 0 },
    });
    expect(stats.cadence.incremental.count).toBeGreaterThan(0);
    expect(stats.cache.kind).toMatch(/^(full|incremental)$/);
    expect(stats.cache.templateAgeMs).toBeGreaterThanOrEqual(0);
    const caps = (await world.app.inject({ method: 'GET', url: '/v1/template/capabilities' })).json();
    expect(caps.optimizerCache.cadence).toMatchObject({ fullIntervalSec: 60, incrementalIntervalMs: 100 });
    expect(caps.optimizerCache.cadence.templateAgeMs).toBeGreaterThanOrEqual(0);
  });
});
