/**
 * The mempool mirror following Core's ZMQ `sequence` topic (regtest, `-zmqpubsequence`): while the
 * filler pays, chains CPFP children, replaces (some versions replaced again at once) and blocks are
 * mined, the mirror equals `getrawmempool` after every step and every replacement is in the
 * history; a node restart (the ZMQ counter starts again) is a gap that ends in a resync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { fillMempool, fundCoins, type Replacement } from './filler.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

/** Waits until the mirror holds exactly Core's mempool (events are asynchronous); returns both sets. */
async function settled(core: Regtest, world: CoreWorld): Promise<{ mirror: string[]; core: string[] }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pool = (await core.rpc<string[]>('getrawmempool')).sort();
    const mirror = [...world.app.mempool.mirror.txs.keys()].sort();
    if (Date.now() > deadline || JSON.stringify(pool) === JSON.stringify(mirror)) return { mirror, core: pool };
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.runIf(available.run)('mempool events from real Bitcoin Core (ZMQ sequence)', () => {
  let core: Regtest;
  let world: CoreWorld;
  const replacements: Replacement[] = [];

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    await fundCoins(core, 2100);
    // No scheduled syncs: only the initial one and the events keep the view.
    world = await startServiceOnCore(core, { ZMQ_URL: core.zmqSequenceUrl, ZMQ_RAWTX_URL: core.zmqRawTxUrl });
    await world.app.mempool.mirror.poll();
  }, 300_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
  });

  it('behavior: the mirror equals getrawmempool after every fill step and every block', async () => {
    const pollsBefore = world.app.mempool.mirror.pollCount;
    const steps: Array<{ seed: number; profile: 'rbf-heavy' | 'cpfp-heavy' | 'mixed' }> = [
      { seed: 11, profile: 'rbf-heavy' },
      { seed: 12, profile: 'cpfp-heavy' },
      { seed: 13, profile: 'rbf-heavy' },
    ];
    for (const { seed, profile } of steps) {
      const report = await fillMempool(core, { seed, profile, targetVsize: 120_000 });
      replacements.push(...report.replacements);
      const afterFill = await settled(core, world);
      expect(afterFill.mirror).toEqual(afterFill.core);
      await core.mine(1);
      const afterBlock = await settled(core, world);
      expect(afterBlock.mirror).toEqual(afterBlock.core);
      expect(world.app.mempool.mirror.tipHash).toBe(await core.rpc<string>('getbestblockhash'));
    }
    // The events did it: no full sync ran meanwhile.
    expect(world.app.mempool.mirror.pollCount).toBe(pollsBefore);
    expect(world.app.mempool.follower?.gaps).toBe(0);
    const health = (await world.app.inject({ method: 'GET', url: '/health' })).json();
    expect(health.mempool).toMatchObject({ mode: 'events', source: 'zmq' });
  }, 300_000);

  it('behavior: every replacement the filler made is in the replacement history', async () => {
    expect(replacements.length).toBeGreaterThan(20);
    const missing = replacements.filter((r) => world.app.mempool.tracker.history(r.replacedTxid).replacedBy?.txid !== r.replacementTxid);
    expect(missing).toEqual([]);
    console.log(`replacement history (ZMQ events): ${replacements.length} of ${replacements.length} filler replacements recorded`);
  });

  it('behavior: a node restart is a sequence gap; the resync ends equal to getrawmempool again', async () => {
    const follower = world.app.mempool.follower;
    if (!follower) throw new Error('no follower');
    const resyncs = follower.resyncs;
    await core.restart();
    // Changes after the restart: the first message carries counter 0, a gap.
    await fillMempool(core, { seed: 14, profile: 'mixed', targetVsize: 40_000 + (await core.rpc<{ bytes: number }>('getmempoolinfo')).bytes });
    const after = await settled(core, world);
    expect(after.mirror).toEqual(after.core);
    expect(follower.gaps).toBeGreaterThan(0);
    expect(follower.resyncs).toBeGreaterThan(resyncs);
    await core.mine(1);
    const mined = await settled(core, world);
    expect(mined.mirror).toEqual(mined.core);
  }, 180_000);
});
