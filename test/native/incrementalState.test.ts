/**
 * The incremental engine's kept state (native/incremental_prepare.cpp): each incremental build
 * derives its clusters and renumbered graph from the previous build's (unchanged clusters copied,
 * only the changed region clustered again) instead of validating and clustering the whole table.
 * One engine lives through a long random sequence (clusters merged by a new child, split by a
 * removal, fee changes, replacements reusing freed slots, empty steps, a full build between
 * incremental ones); after every step its build equals a fresh engine's full build of the same
 * mempool: cluster count and sizes, every template (fee, weight and transactions), the bound, the
 * projected blocks and each transaction's chunk rate and projected block. The debug build (npm run
 * test:native:debug) also checks inside that the derived graph equals the from-scratch one.
 *
 * NATIVE_FUZZ_SEED / NATIVE_FUZZ_ROUNDS as in fuzz.test.ts.
 */
import { describe, expect, it } from 'vitest';

import { IncrementalEngine, type EngineResult } from '../../src/optimizer/incremental/incrementalEngine.js';
import { chunkRates, Model, type Tx } from './engineModel.js';
import { rng } from './oracle.js';

const SEED = Number(process.env.NATIVE_FUZZ_SEED ?? 1);
const ROUNDS = Math.max(3, Math.round(Number(process.env.NATIVE_FUZZ_ROUNDS ?? 30) / 25));
const STEPS = 24;
const OPTIONS = { weightLimitWu: 60_000, coinbaseReserveWu: 1_000, maxSigopCost: 6_000, coinbaseSigopCost: 100, maxTxCount: 80, minFeeRateSatVb: 0, projectedBlocks: 4, seed: 3 };

/** What a user of the result sees, per txid where it is per transaction. */
function view(r: EngineResult, txidOfSlot: (slot: number) => string) {
  const txids = (idx: Uint32Array) => Array.from(idx, (i) => txidOfSlot(r.slotOfIndex[i] ?? -1)).sort();
  const block = new Map<string, number>();
  for (let i = 0; i < r.slotOfIndex.length; i++) block.set(txidOfSlot(r.slotOfIndex[i] ?? -1), r.txProjectedBlock[i] ?? NaN);
  return {
    clusters: { count: r.clusters.count, largest: r.clusters.largest, optimal: r.clusters.optimalCount },
    optimized: { feeSat: r.optimized.feeSat, weightWu: r.optimized.weightWu, sigopCost: r.optimized.sigopCost, txids: txids(r.optimized.indices) },
    v31: { feeSat: r.baselineV31.feeSat, weightWu: r.baselineV31.weightWu, txids: txids(r.baselineV31.indices) },
    upperBound: r.upperBound,
    projected: r.projectedBlocks,
    chunkRate: new Map([...chunkRates(r, txidOfSlot)].sort()),
    block: new Map([...block].sort()),
  };
}

describe('incremental engine state', () => {
  it(`behavior: ${ROUNDS} engines through ${STEPS} random steps each (seed ${SEED}): every build == a fresh full build`, () => {
    const r = rng(SEED + 7000);
    const pick = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
    let counter = 0;
    let incrementalBuilds = 0;
    let merged = 0;
    const newTxid = () => Math.floor(r() * 2 ** 32).toString(16).padStart(8, '0') + (++counter).toString(16).padStart(8, '0') + '00'.repeat(24);
    const newTx = (model: Model, parents: string[]): Tx => ({
      txid: newTxid(),
      fee: pick(0, 30_000),
      weight: pick(150, 5_000),
      sigops: r() < 0.08 ? pick(50, 800) : 0,
      // Clusters stay small enough to be linearized optimally (the fresh build must agree exactly).
      parents: parents.filter((p) => model.ancestors(p).size + model.descendants(p).size < 12),
    });
    const clusterOf = (model: Model, txid: string) => {
      const seen = new Set([txid]);
      const stack = [txid];
      while (stack.length) {
        const t = stack.pop() ?? '';
        for (const u of [...(model.txs.get(t)?.parents ?? []), ...model.children(t).map((c) => c.txid)]) {
          if (seen.has(u)) continue;
          seen.add(u);
          stack.push(u);
        }
      }
      return seen;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const model = new Model();
      const engine = new IncrementalEngine();
      for (let i = pick(100, 250); i > 0; i--) {
        const ids = [...model.txs.keys()];
        model.add(newTx(model, r() < 0.4 && ids.length ? [ids[pick(0, ids.length - 1)] ?? ''] : []));
      }
      for (let step = 0; step < STEPS; step++) {
        const ids = () => [...model.txs.keys()];
        const any = () => ids()[pick(0, model.txs.size - 1)] ?? '';
        const kind = step === 0 ? -1 : pick(0, 9);
        if (kind === 0) {
          // nothing changed
        } else if (kind === 1 && model.txs.size > 2) {
          // a new child of two transactions: their clusters merge (unless one already holds both)
          const a = any();
          const b = any();
          if (!clusterOf(model, a).has(b)) merged++;
          model.add(newTx(model, [a, b]));
        } else if (kind >= 2) {
          for (let i = pick(0, 12); i > 0; i--) model.add(newTx(model, r() < 0.4 && model.txs.size ? [any()] : []));
          for (let i = pick(0, 4); i > 0 && model.txs.size; i--) {
            const victim = any();
            const what = pick(0, 3);
            if (what === 0) {
              for (const a of [...model.ancestors(victim), victim]) model.remove(a); // mined: clusters split
            } else if (what === 1) {
              const parents = model.txs.get(victim)?.parents ?? [];
              for (const d of [...model.descendants(victim), victim]) model.remove(d);
              model.add({ ...newTx(model, []), parents: [...parents] }); // a replacement, often in the freed slot
            } else if (what === 2) {
              model.remove(victim); // evicted alone: its children lose a parent
            } else {
              model.setFee(victim, pick(0, 60_000));
            }
          }
        }
        engine.apply(model.takeDiff());
        // Now and then a full build in between: the next incremental one must not use stale arrays.
        const full = step > 0 && step % 7 === 0;
        const inc = engine.build(OPTIONS, full);
        if (!full && step > 0) incrementalBuilds++;
        const fresh = new IncrementalEngine();
        fresh.apply(model.everything());
        const scratch = fresh.build(OPTIONS, true);
        const txidOfSlot = new Map([...model.slotOf].map(([t, s]) => [s, t]));
        const all = [...model.txs.keys()];
        const context = `round ${round} step ${step} (seed ${SEED})`;
        expect(view(inc, (s) => txidOfSlot.get(s) ?? ''), context).toEqual(view(scratch, (s) => all[s] ?? ''));
        expect(inc.clusters.optimalCount, context).toBe(inc.clusters.count);
      }
    }
    expect(incrementalBuilds).toBeGreaterThan(ROUNDS * 15);
    expect(merged).toBeGreaterThan(0);
  }, 300_000); // the sanitizer build (test:native:debug) runs it about 15 times slower
});
