/**
 * The tests' mempool filler on a real Bitcoin Core (regtest): a fill started while another is still
 * running on the same node (as when a test times out in the middle of its fill and the next test
 * fills again) waits for it, instead of spending the same confirmed coins a second time, which Core
 * refuses ("insufficient fee" for the lower-fee double spend) or takes as a replacement of the
 * other fill's transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fillMempool, fundCoins, type FillReport } from './filler.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

/** The transactions a fill says it left in the mempool: payments, CPFP and TRUC pairs, last replacements. */
function reported(fill: FillReport): string[] {
  const replaced = new Set(fill.replacements.map((r) => r.replacedTxid));
  return [
    ...fill.bumpable.map((b) => b.txid),
    ...fill.cpfp.flatMap((p) => [p.parent, p.child]),
    ...fill.truc.flatMap((p) => [p.parent, p.child]),
    ...fill.replacements.map((r) => r.replacementTxid).filter((txid) => !replaced.has(txid)),
  ];
}

describe.runIf(available.run)('the mempool filler on real Bitcoin Core', () => {
  let core: Regtest;

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    await fundCoins(core, 1400);
  }, 300_000);

  afterAll(async () => {
    await core?.close();
  });

  it('behavior: two fills started at once both complete, and every transaction either reports is in the mempool', async () => {
    const fills = await Promise.all([fillMempool(core, { seed: 11, targetVsize: 40_000 }), fillMempool(core, { seed: 12, targetVsize: 40_000 })]);
    const mempool = new Set(await core.rpc<string[]>('getrawmempool'));
    for (const fill of fills) {
      expect(fill.vsize).toBeGreaterThanOrEqual(40_000);
      const txids = reported(fill);
      expect(txids.length).toBeGreaterThan(10);
      expect(txids.filter((txid) => !mempool.has(txid))).toEqual([]);
    }
  }, 300_000);
});
