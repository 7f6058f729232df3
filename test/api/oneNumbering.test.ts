/**
 * One numbering (issue 21 item 4, DESIGN §5): projected block 1 is the next block on every surface.
 * One transaction of the first projected block and one of a later block are read through REST
 * (template check, mempool tx position, insight, bump plan), JSON-RPC, the stream's frames (the
 * view its `txs` and subscription frames use, and the `template` frame) and the dashboard; all agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardFeed } from '../../src/api/dashboard/feed.js';
import { txProjectedPlacement } from '../../src/optimizer/cache/templateCache.js';
import { optimizerView, templateFrame } from '../../src/stream/frames.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  // A small template (100 txs) so the mempool spans several projected blocks.
  world = await startTestWorld({ seed: 21, initialTxs: 400, env: { OPTIMIZER_MAX_TX_COUNT: '100' } });
  await refresh(world);
});
afterAll(() => world?.close());

const post = (url: string, payload: object) => world.app.inject({ method: 'POST', url, payload });

/** The projected block of `txid` as each surface tells it. */
async function everySurface(txid: string): Promise<Record<string, unknown>> {
  const cache = world.app.optimizer.service.cache;
  const rpc = await post('/v1/rpc', { jsonrpc: '2.0', id: 1, method: 'svc_templateCheck', params: [{ txid }] });
  return {
    'REST template check': (await post('/v1/template/check', { txid })).json().projectedBlock,
    'REST mempool tx position.blocksAway': (await world.app.inject({ method: 'GET', url: `/v1/mempool/tx/${txid}` })).json().position.blocksAway,
    'REST insight templateCheck': (await post('/v1/bitcoin/insight', { txid })).json().templateCheck.projectedBlock,
    'REST bump plan state': (await post('/v1/template/bump-plan', { txid })).json().state.projectedBlock,
    'JSON-RPC svc_templateCheck': rpc.json().result.projectedBlock,
    'stream txs/subscription frames': optimizerView(cache).projectedBlock(txid),
  };
}

describe('projected block 1 is the next block everywhere', () => {
  it('a tx of the first projected block reads 1 on every surface; a later one reads the same number everywhere', async () => {
    const cache = world.app.optimizer.service.cache;
    if (!cache) throw new Error('no optimizer cache');
    expect(cache.projectedBlocks.length).toBeGreaterThanOrEqual(2);
    const txids = [...world.app.mempool.mirror.txs.keys()];
    const inBlock = (n: number) => txids.find((t) => txProjectedPlacement(cache, t)?.block === n && !txProjectedPlacement(cache, t)?.beyond);
    const next = inBlock(1);
    const later = inBlock(2);
    if (!next || !later) throw new Error(`no tx in projected blocks 1 and 2: ${JSON.stringify(txids.slice(0, 20).map((t) => txProjectedPlacement(cache, t)))}`);
    // The next block's transactions are in the optimized template.
    expect(cache.optimized.txidSet.has(next)).toBe(true);
    for (const [surface, block] of Object.entries(await everySurface(next))) expect(block, surface).toBe(1);
    for (const [surface, block] of Object.entries(await everySurface(later))) expect(block, surface).toBe(2);
  });

  it('the template frame and the dashboard number their projected blocks from 1', () => {
    const cache = world.app.optimizer.service.cache;
    if (!cache) throw new Error('no optimizer cache');
    expect((templateFrame(cache).projectedBlocks as unknown[]).slice(0, 2)).toMatchObject([{ block: 1 }, { block: 2 }]);
    const { app } = world;
    const dashboard = new DashboardFeed({
      nodeKind: 'simulated',
      mempool: app.mempool,
      fees: app.fees,
      optimizer: app.optimizer,
      nodeStatus: () => ({ down: false, error: null }),
      now: Date.now,
      minIntervalMs: 1000,
    });
    expect(dashboard.snapshot().projectedBlocks.slice(0, 2)).toMatchObject([{ block: 1 }, { block: 2 }]);
    dashboard.close();
  });
});
