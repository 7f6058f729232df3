/**
 * The dashboard's live feed: aggregate telemetry that agrees with the API's own answers, pushed
 * again when the mempool or the optimizer changes, and released when the client goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';
import { openFeed } from '../helpers/feed.js';

describe('GET /dashboard/feed', () => {
  let world: TestWorld;
  let base: string;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 300, seed: 11 });
    await refresh(world);
    base = await world.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => world.close());

  it('default: an event stream whose first snapshot shows what cache-stats and mempool stats show', async () => {
    const feed = await openFeed(base);
    try {
      expect(feed.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(feed.headers['cache-control']).toBe('no-cache');
      const snapshot = await feed.next();
      const stats = (await world.app.inject({ method: 'GET', url: '/v1/template/cache-stats' })).json();
      const latest = snapshot.optimizer.latest;
      expect(latest?.cycle).toBe(stats.cache.cycle);
      expect(latest?.optimizedFeeSat).toBe(stats.cache.templates.optimized.feeSat);
      expect(latest?.baselineFeeSat).toBe(stats.cache.templates.baseline.feeSat);
      expect(latest?.upperBoundFeeSat).toBe(stats.cache.templates.upperBound.feeSat);
      expect(snapshot.projectedBlocks).toEqual(stats.cache.projectedBlocks);
      expect(snapshot.phases.map((p) => p.cycle)).toEqual(stats.history.map((h: { cycle: number }) => h.cycle));
      expect(snapshot.mempool.count).toBe(world.app.mempool.mirror.txs.size);
      const histogramVsize = snapshot.histogram.reduce((s, b) => s + b.vsize, 0);
      expect(histogramVsize).toBe(snapshot.mempool.vsize);
      expect(snapshot.clients).toBe(1);
    } finally {
      feed.close();
    }
  });

  it('behavior: a replacement, a block and a new cycle are pushed to an open feed', async () => {
    const feed = await openFeed(base);
    try {
      const first = await feed.next();
      const replaced = await world.simnet.control.replaceTransaction();
      await refresh(world);
      await world.simnet.control.mineBlocks(1);
      await refresh(world);
      let next = await feed.next();
      while (next.optimizer.latest?.cycle !== world.app.optimizer.service.cycleCount) next = await feed.next();
      const cycles = next.cycles.map((c) => c.cycle);
      const before = first.optimizer.latest?.cycle ?? 0;
      expect(cycles.slice(-3)).toEqual([before, before + 1, before + 2]);
      expect(before + 2).toBe(world.app.optimizer.service.cycleCount);
      expect(next.blocks[0]?.height).toBe((first.node.height ?? 0) + 1);
      expect(next.node.height).toBe(next.blocks[0]?.height);
      expect(next.replacements.length).toBeGreaterThan(0);
      expect(JSON.stringify(next.replacements)).not.toContain('undefined');
      expect(replaced).toBeDefined();
    } finally {
      feed.close();
    }
  });

  it('behavior: a closed feed is released (metrics count open feeds)', async () => {
    const feed = await openFeed(base);
    await feed.next();
    const open = (await world.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(open).toMatch(/^stream_clients\{kind="dashboard"\} 1$/m);
    feed.close();
    // The server learns of the closed socket asynchronously.
    const metrics = async () => (await world.app.inject({ method: 'GET', url: '/metrics' })).body;
    let closed = await metrics();
    for (let i = 0; i < 100 && !/^stream_clients\{kind="dashboard"\} 0$/m.test(closed); i++) {
      await new Promise((r) => setTimeout(r, 20));
      closed = await metrics();
    }
    expect(closed).toMatch(/^stream_clients\{kind="dashboard"\} 0$/m);
  });

  it('behavior: HEAD on the feed is refused (405) rather than held open', async () => {
    const res = await world.app.inject({ method: 'HEAD', url: '/dashboard/feed' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });
});
