import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MirrorTx } from '../../src/mempool/mirror.js';
import type { WtxidBook } from '../../src/optimizer/cache/wtxidBook.js';
import { OptimizerPool } from '../../src/optimizer/full/optimizerPool.js';
import { snapshotFromMirror } from '../../src/optimizer/snapshot/mirrorSnapshot.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  // Full cycles only (the piscina pool path); incremental cycles: incrementalService.test.ts.
  world = await startTestWorld({ initialTxs: 300, seed: 13, env: { OPTIMIZER_TIMEOUT_SEC: '1', OPTIMIZER_INCREMENTAL_MS: '0' } });
  await world.app.mempool.mirror.poll();
});
afterAll(() => world?.close());

describe('OptimizerPool', () => {
  it('behavior: input buffers are transferred to the worker, not copied', async () => {
    const pool = new OptimizerPool(1);
    try {
      const { input } = snapshotFromMirror(world.app.mempool.mirror, Date.now());
      const fee = input.feeSat;
      const result = await pool.run(input, {});
      expect(fee.buffer.byteLength).toBe(0);
      expect(input.parentOffsets.buffer.byteLength).toBe(0);
      expect(result.optimized.txCount).toBeGreaterThan(0);
      expect(result.txChunkFeeSat).toBeInstanceOf(Float64Array);
    } finally {
      await pool.close();
    }
  });

  it('behavior: an aborted task fails alone; the pool keeps working', async () => {
    const pool = new OptimizerPool(1);
    try {
      const first = snapshotFromMirror(world.app.mempool.mirror, Date.now());
      await expect(pool.run(first.input, {}, AbortSignal.abort(new Error('cycle timeout')))).rejects.toThrow();
      const second = snapshotFromMirror(world.app.mempool.mirror, Date.now());
      expect((await pool.run(second.input, {})).optimized.txCount).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });
});

describe('OptimizerService', () => {
  it('default: a cycle publishes a cache with phases, history and a receipt', async () => {
    const service = world.app.optimizer.service;
    const cache = await service.refresh();
    expect(cache).toBeDefined();
    expect(service.lastStatus).toBe('ok');
    expect(service.history[0]).toMatchObject({ cycle: 1, status: 'ok', txCount: world.app.mempool.mirror.txs.size });
    expect(cache!.receipt.payload.cycle).toBe(1);
  });

  it('behavior: refreshes never overlap: concurrent callers share one cycle', async () => {
    const service = world.app.optimizer.service;
    const before = service.cycleCount;
    const [a, b] = await Promise.all([service.refresh(), service.refresh()]);
    expect(a).toBe(b);
    expect(service.cycleCount).toBe(before + 1);
  });

  it('behavior: a crashed worker fails the cycle with lastError; the previous cache keeps serving', async () => {
    const service = world.app.optimizer.service;
    const served = service.cache!;
    const pool = (service as unknown as { options: { pool: OptimizerPool } }).options.pool;
    const run = pool.run.bind(pool);
    pool.run = () => Promise.reject(new Error('worker exited with code 134'));
    try {
      expect(await service.refresh()).toBeUndefined();
    } finally {
      pool.run = run;
    }
    expect(service.lastStatus).toBe('error');
    expect(service.lastError).toMatch(/worker exited/);
    expect(service.cache).toBe(served);
    const check = await world.app.inject({ method: 'POST', url: '/v1/template/check', payload: { txid: served.optimized.txids[0] } });
    expect(check.statusCode).toBe(200);
    expect(check.json().cachedAt).toBe(new Date(served.cachedAt).toISOString());
  });

  it('behavior: a cycle over OPTIMIZER_TIMEOUT_SEC is abandoned as a timeout', async () => {
    const service = world.app.optimizer.service;
    const served = service.cache!;
    const pool = (service as unknown as { options: { pool: OptimizerPool } }).options.pool;
    const run = pool.run.bind(pool);
    // A worker that never finishes until the cycle aborts it.
    pool.run = (_input, _options, signal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
    try {
      expect(await service.refresh()).toBeUndefined();
    } finally {
      pool.run = run;
    }
    expect(service.lastStatus).toBe('timeout');
    expect(service.lastError).toMatch(/exceeded 1 s/);
    expect(service.cache).toBe(served);
    expect(await service.refresh()).toBeDefined();
    expect(service.lastStatus).toBe('ok');
  });

  it('behavior: a stale mempool view (node down since) is not published as a fresh cache', async () => {
    const service = world.app.optimizer.service;
    const { mirror } = world.app.mempool;
    await service.refresh();
    const served = service.cache!;
    const { getBestBlockHash } = world.node;
    world.node.getBestBlockHash = async () => {
      throw new Error('ECONNREFUSED');
    };
    const lastPollAt = mirror.lastPollAt!;
    mirror.lastPollAt = Date.now() - 10 * 60_000; // the last good poll was 10 minutes ago
    try {
      expect(await service.refresh()).toBeUndefined();
      expect(service.lastStatus).toBe('error');
      expect(service.lastError).toMatch(/mempool view is \d+ s old/);
      expect(service.cache).toBe(served);
      // A poll that failed right after a good one: the recent view is still optimized.
      mirror.lastPollAt = Date.now() - 1_000;
      const cache = await service.refresh();
      expect(cache).toBeDefined();
      expect(cache!.snapshot.takenAt).toBe(mirror.lastPollAt);
    } finally {
      world.node.getBestBlockHash = getBestBlockHash;
      mirror.lastPollAt = lastPollAt;
    }
  });

  it('behavior: stopped and started again (a leader that stepped down and leads again), it still knows the wtxids of transactions that left the view', async () => {
    const service = world.app.optimizer.service;
    const { mirror } = world.app.mempool;
    const book = (service as unknown as { wtxids: WtxidBook }).wtxids;
    const gone = (n: number) => ({ txid: `${n}`.repeat(64), wtxid: `${n + 1}`.repeat(64) });
    const leave = ({ txid, wtxid }: { txid: string; wtxid: string }) =>
      mirror.emit('diff', { at: Date.now(), added: [], removed: [{ tx: { txid, wtxid } as MirrorTx, reason: 'evicted' }], blocks: [] });
    await service.stop();
    service.start();
    try {
      leave(gone(1));
      expect(book.wtxidOf(gone(1).txid)).toBe(gone(1).wtxid);
    } finally {
      await service.stop();
    }
    // Stopped: a follower keeps no book.
    leave(gone(3));
    expect(book.wtxidOf(gone(3).txid)).toBeUndefined();
  });
});
