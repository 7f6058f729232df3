/**
 * The chunk order kept between incremental builds (native/chunk_order_incremental.h): instead of
 * sorting every chunk again, a build takes the previous build's mining order for the unchanged
 * clusters and merges the changed clusters' chunks in. The mempool here fits in one block, so the
 * v31 template (Core's greedy pass over the mining order) lists every chunk in mining order: after
 * every random step its transaction order must equal a fresh engine's full build of the same
 * mempool. Fee rates come from a few values, so many chunks tie on rate and the order's later keys
 * (eq_prefix, then the largest txid rank, which the renumbering of survivors moves) decide.
 *
 * NATIVE_FUZZ_SEED / NATIVE_FUZZ_ROUNDS as in fuzz.test.ts.
 */
import { describe, expect, it } from 'vitest';

import { IncrementalEngine, type EngineResult } from '../../src/optimizer/incremental/incrementalEngine.js';
import { Model, type Tx } from './engineModel.js';
import { rng } from './oracle.js';

const SEED = Number(process.env.NATIVE_FUZZ_SEED ?? 1);
const ROUNDS = Math.max(2, Math.round(Number(process.env.NATIVE_FUZZ_ROUNDS ?? 30) / 10));
const STEPS = 30;
const OPTIONS = { minFeeRateSatVb: 0, projectedBlocks: 1, seed: 5 };

/** The v31 template's transactions in block order, as txids. */
function minedOrder(r: EngineResult, txidOfSlot: (slot: number) => string): string[] {
  return Array.from(r.baselineV31.indices, (i) => txidOfSlot(r.slotOfIndex[i] ?? -1));
}

describe('chunk order kept between incremental builds', () => {
  it(`behavior: ${ROUNDS} engines through ${STEPS} random steps (seed ${SEED}): the mining order == a fresh full build's`, () => {
    const r = rng(SEED + 9100);
    const pick = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
    let counter = 0;
    let keptBuilds = 0;
    let fallbacks = 0;
    const newTxid = () => Math.floor(r() * 2 ** 32).toString(16).padStart(8, '0') + (++counter).toString(16).padStart(8, '0') + '00'.repeat(24);
    // A few rates only (sat per weight unit x 4): equal-rate chunks are common.
    const newTx = (parents: string[]): Tx => {
      const weight = 4 * pick(50, 400);
      return { txid: newTxid(), fee: (weight / 4) * pick(1, 4), weight, sigops: 0, parents };
    };
    for (let round = 0; round < ROUNDS; round++) {
      const model = new Model();
      const engine = new IncrementalEngine();
      const any = () => [...model.txs.keys()][pick(0, model.txs.size - 1)] ?? '';
      for (let i = pick(300, 600); i > 0; i--) model.add(newTx(r() < 0.3 && model.txs.size ? [any()] : []));
      for (let step = 0; step < STEPS; step++) {
        const kind = step === 0 ? -1 : pick(0, 9);
        if (kind === 0) {
          // a large change: most fees change (the kept order falls back to the full sort)
          for (const txid of [...model.txs.keys()]) if (r() < 0.6) model.setFee(txid, (model.txs.get(txid)?.weight ?? 4) * pick(1, 4));
        } else if (kind > 0) {
          for (let i = pick(0, 15); i > 0; i--) model.add(newTx(r() < 0.4 && model.txs.size ? [any()] : []));
          if (kind === 1 && model.txs.size > 2) model.add(newTx([any(), any()])); // clusters merge
          for (let i = pick(0, 6); i > 0 && model.txs.size; i--) {
            const victim = any();
            const what = pick(0, 2);
            if (what === 0) {
              for (const a of [...model.ancestors(victim), victim]) model.remove(a); // mined
            } else if (what === 1) {
              for (const d of [...model.descendants(victim), victim]) model.remove(d); // evicted with descendants
            } else {
              model.setFee(victim, (model.txs.get(victim)?.weight ?? 4) * pick(1, 4));
            }
          }
        }
        engine.apply(model.takeDiff());
        const full = step > 0 && step % 11 === 0;
        const inc = engine.build(OPTIONS, full);
        const fresh = new IncrementalEngine();
        fresh.apply(model.everything());
        const scratch = fresh.build(OPTIONS, true);
        const txidOfSlot = new Map([...model.slotOf].map(([t, s]) => [s, t]));
        const all = [...model.txs.keys()];
        const context = `round ${round} step ${step} (seed ${SEED})`;
        // Everything fits: the template is the whole mempool in mining order.
        expect(inc.baselineV31.txCount, context).toBe(model.txs.size);
        expect(minedOrder(inc, (s) => txidOfSlot.get(s) ?? ''), context).toEqual(minedOrder(scratch, (s) => all[s] ?? ''));
        expect(inc.txChunkFeeRateSatVb.length, context).toBe(model.txs.size);
        if (full || step === 0) expect(inc.keptChunks, context).toBe(0);
        else if (inc.keptChunks > 0) keptBuilds++;
        else if (kind === 0) fallbacks++;
        expect(scratch.keptChunks, context).toBe(0);
      }
    }
    // The kept order was really used (not always the full sort), and the fallback ran too.
    expect(keptBuilds).toBeGreaterThan(ROUNDS * 15);
    expect(fallbacks).toBeGreaterThan(0);
  }, 300_000);
});
