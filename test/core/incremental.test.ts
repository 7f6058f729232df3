/**
 * Incremental optimizer cycles against a real Bitcoin Core (regtest): after a full cycle, the
 * filler changes the mempool (new payments, CPFP children, replacements); the incremental cycle
 * that follows publishes a template Core accepts (`generateblock <addr> [txids] false`), whose fee
 * is Core's own fees for those transactions, and a full cycle of the same state finds the same fee.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { TemplateCache } from '../../src/optimizer/cache/templateCache.js';
import { refreshFromCore, startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { fillMempool, fundCoins } from './filler.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();
const sat = (btc: number) => Math.round(btc * 1e8);

describe.runIf(available.run)('incremental cycles on real Bitcoin Core v31.99', () => {
  let core: Regtest;
  let world: CoreWorld;

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    await fundCoins(core, 4000);
    // Core's own limits, so the templates compare like for like with getblocktemplate.
    world = await startServiceOnCore(core, { OPTIMIZER_MAX_TX_COUNT: '100000', OPTIMIZER_MIN_FEE_RATE_SAT_VB: '0.001', OPTIMIZER_INCREMENTAL_MS: '100' });
    await fillMempool(core, { seed: 3, profile: 'mixed', targetVsize: 700_000 });
    await refreshFromCore(world);
  }, 300_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
  });

  it('behavior: the incremental template after the filler changed the mempool is valid for Core and equals a full cycle', async () => {
    const service = world.app.optimizer.service;
    const { mirror } = world.app.mempool;
    expect(service.cache?.kind).toBe('full');
    const fullBefore = service.fullCycleCount;

    const fill = await fillMempool(core, { seed: 4, profile: 'rbf-heavy', targetVsize: 150_000 });
    expect(fill.replacements.length).toBeGreaterThan(0);
    await mirror.poll(); // the diff reaches the engine's runner
    const inc = (await service.refreshIncremental()) as TemplateCache;
    expect(inc?.kind).toBe('incremental');
    expect(inc.snapshot.txCount).toBe(mirror.txs.size);
    expect(service.fullCycleCount).toBe(fullBefore);

    // Core builds and checks the block (TestBlockValidity) and returns it only when it is valid.
    const block = await core.rpc<{ hash: string; hex: string }>('generateblock', core.minerAddress, inc.optimized.txids, false);
    expect(block.hex.length).toBeGreaterThan(160);
    const mempool = await core.rpc<Record<string, { fees: { modified: number } }>>('getrawmempool', true);
    expect(inc.optimized.txids.reduce((s, t) => s + sat(mempool[t]?.fees.modified ?? NaN), 0)).toBe(inc.optimized.feeSat);
    expect(inc.optimized.feeSat).toBeGreaterThanOrEqual(inc.nativeV31.feeSat);

    // The same state from scratch (no change since: the full cycle checks the incremental state too).
    // getblocktemplate answers from a cache for 5 s after its last build while the tip is unchanged:
    // wait it out, so Core's template is of this mempool.
    await new Promise((r) => setTimeout(r, 5_100));
    const full = await service.refresh();
    expect(full?.kind).toBe('full');
    expect(full?.snapshot.txCount).toBe(inc.snapshot.txCount);
    expect(full?.optimized.feeSat).toBe(inc.optimized.feeSat);
    expect(full?.nativeV31.feeSat).toBe(inc.nativeV31.feeSat);
    expect(full?.upperBound.feeSat).toBe(inc.upperBound.feeSat);
    expect(service.incrementalStats.mismatches).toBe(0);
    // And the incremental v31 model is Core's getblocktemplate of that state (the full cycle's baseline).
    expect(full?.baseline.source).toBe('node_getblocktemplate');
    expect(full?.baseline.feeSat).toBe(inc.nativeV31.feeSat);
    const gbt = await core.rpc<{ transactions: Array<{ fee: number }> }>('getblocktemplate', { rules: ['segwit'] });
    expect(gbt.transactions.reduce((s, t) => s + t.fee, 0)).toBe(inc.nativeV31.feeSat);
  }, 300_000);
});
