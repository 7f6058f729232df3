/**
 * The incremental per-entry cache behind `getrawmempool true` must always equal a computation from
 * scratch, whatever happened in between (arrivals, replacements, blocks, relayed children).
 */
import { describe, expect, it } from 'vitest';
import { bootstrapSimulator } from '../../src/simnet/node/bootstrap.js';
import { EntryInfoCache } from '../../src/simnet/mempool/entryInfo.js';
import type { Simulator } from '../../src/simnet/node/simulator.js';
import { mempoolPolicy } from '../../src/optimizer/binding/coreV31Policy.js';

function fromScratch(sim: Simulator): unknown {
  return JSON.parse(new EntryInfoCache(sim.mempool, sim.policy).verboseMempool().join(''));
}

function cached(sim: Simulator): unknown {
  return JSON.parse(sim.entryInfo.verboseMempool().join(''));
}

describe('entry info cache', () => {
  it('behavior: equals a from-scratch computation after arrivals, replacements, mining and warming', async () => {
    const sim = await bootstrapSimulator({
      seed: 77,
      blockIntervalSec: 0,
      txPerSec: 0,
      startTime: 1_767_225_600,
      addressCount: 128,
      fundingUtxos: 3000,
      historyBlocks: 1,
      historyTxsPerBlock: 20,
      initialTxs: 300,
      policy: mempoolPolicy,
    });
    expect(cached(sim)).toEqual(fromScratch(sim));
    for (let round = 0; round < 6; round++) {
      await sim.addTransactions(150);
      if (round % 2 === 0) sim.replaceTransaction();
      while (sim.entryInfo.refreshSome(1)) {
        /* partial warming, as the worker does when idle */
      }
      if (round === 3) sim.mineBlock();
      await sim.addTransactions(20);
      const pool = cached(sim) as Record<string, unknown>;
      expect(Object.keys(pool)).toHaveLength(sim.mempool.size);
      expect(pool).toEqual(fromScratch(sim));
    }
    expect(sim.entryInfo.allClustersOptimal()).toBe(new EntryInfoCache(sim.mempool, sim.policy).allClustersOptimal());
  });
});
