/**
 * The incremental engine against a from-scratch cycle of the same mempool, on random diff
 * sequences: additions (children of existing transactions included), mined ancestor-closed sets,
 * replacements (the replaced tx and its descendants out, a new one in), evictions and fee changes.
 * After every step the incremental build and a fresh engine's full build of the same mempool agree
 * on the optimized template's fee and weight, the upper bound, the v31 baseline and every
 * transaction's chunk fee rate (the chunk diagram of each cluster), and the incremental build
 * reused the clusters nothing touched.
 *
 * NATIVE_FUZZ_SEED / NATIVE_FUZZ_ROUNDS as in fuzz.test.ts (the debug run uses more rounds).
 */
import { describe, expect, it } from 'vitest';

import { IncrementalEngine } from '../../src/optimizer/incremental/incrementalEngine.js';
import { KEY_WORDS, txidOfKey, writeTxidKey } from '../../src/optimizer/cache/txLookup.js';
import { chunkRates, Model, type Tx } from './engineModel.js';
import { rng } from './oracle.js';

const SEED = Number(process.env.NATIVE_FUZZ_SEED ?? 1);
const ROUNDS = Math.max(4, Math.round(Number(process.env.NATIVE_FUZZ_ROUNDS ?? 30) / 3));

const OPTIONS = { weightLimitWu: 40_000, coinbaseReserveWu: 1_000, maxSigopCost: 4_000, coinbaseSigopCost: 100, maxTxCount: 60, minFeeRateSatVb: 0, projectedBlocks: 3, seed: 7 };

describe('incremental engine', () => {
  it('txid keys: round trip, and ascending keys are Core order (memcmp of the byte-reversed txid)', () => {
    const txids = ['00'.repeat(31) + 'ff', 'ff' + '00'.repeat(31), '01'.repeat(32), 'ab'.repeat(16) + 'cd'.repeat(16)];
    const keys = new Uint32Array(txids.length * KEY_WORDS);
    txids.forEach((t, i) => writeTxidKey(t, keys, i * KEY_WORDS));
    txids.forEach((t, i) => expect(txidOfKey(keys, i)).toBe(t));
    const coreOrder = [...txids].sort((a, b) => Buffer.compare(Buffer.from(a, 'hex').reverse(), Buffer.from(b, 'hex').reverse()));
    const byKey = txids
      .map((t, i) => ({ t, k: Array.from(keys.subarray(i * KEY_WORDS, (i + 1) * KEY_WORDS)) }))
      .sort((a, b) => {
        for (let w = 0; w < KEY_WORDS; w++) if (a.k[w] !== b.k[w]) return (a.k[w] ?? 0) - (b.k[w] ?? 0);
        return 0;
      })
      .map((x) => x.t);
    expect(byKey).toEqual(coreOrder);
  });

  it(`behavior: ${ROUNDS} random diff sequences from seed ${SEED}: incremental == from scratch`, () => {
    const r = rng(SEED + 1000);
    const pick = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
    let counter = 0;
    let reused = 0;
    const newTxid = () => (++counter).toString(16).padStart(8, '0') + Math.floor(r() * 2 ** 32).toString(16).padStart(8, '0') + '00'.repeat(24);
    const newTx = (model: Model, parentsFrom: string[]): Tx => {
      const parents = new Set<string>();
      const want = parentsFrom.length && r() < 0.35 ? pick(1, 2) : 0;
      for (let i = 0; i < want; i++) parents.add(parentsFrom[pick(0, parentsFrom.length - 1)] ?? '');
      parents.delete('');
      // Keep clusters small enough that every linearization is proven optimal.
      const ok = [...parents].filter((p) => model.ancestors(p).size + model.descendants(p).size < 14);
      return { txid: newTxid(), fee: pick(0, 20_000), weight: pick(200, 4_000), sigops: r() < 0.1 ? pick(100, 1_000) : 0, parents: ok };
    };
    for (let round = 0; round < ROUNDS; round++) {
      const model = new Model();
      const engine = new IncrementalEngine();
      for (let i = 0; i < pick(20, 120); i++) model.add(newTx(model, [...model.txs.keys()]));
      for (let step = 0; step < 8; step++) {
        const ids = () => [...model.txs.keys()];
        if (step > 0) {
          for (let i = pick(0, 15); i > 0; i--) model.add(newTx(model, ids()));
          for (let i = pick(0, 3); i > 0 && model.txs.size; i--) {
            const victim = ids()[pick(0, model.txs.size - 1)] ?? '';
            const kind = pick(0, 3);
            if (kind === 0) {
              // mined: an ancestor-closed set leaves, its descendants stay
              for (const a of [...model.ancestors(victim), victim]) model.remove(a);
            } else if (kind === 1) {
              // replaced: it and its descendants leave, a replacement spending the same parents arrives
              const parents = model.txs.get(victim)?.parents ?? [];
              for (const d of [...model.descendants(victim), victim]) model.remove(d);
              model.add({ ...newTx(model, []), parents: [...parents] });
            } else if (kind === 2) {
              for (const d of [...model.descendants(victim), victim]) model.remove(d);
            } else {
              model.setFee(victim, pick(0, 40_000));
            }
          }
        }
        engine.apply(model.takeDiff());
        const inc = engine.build(OPTIONS, false);
        const fresh = new IncrementalEngine();
        fresh.apply(model.everything());
        const full = fresh.build(OPTIONS, true);
        const context = `round ${round} step ${step} (seed ${SEED})`;
        expect(inc.slotOfIndex.length, context).toBe(model.txs.size);
        expect(inc.clusters.optimalCount, context).toBe(inc.clusters.count);
        expect(inc.optimized.feeSat, context).toBe(full.optimized.feeSat);
        expect(inc.optimized.weightWu, context).toBe(full.optimized.weightWu);
        expect(inc.upperBound, context).toEqual(full.upperBound);
        expect(inc.baselineV31.feeSat, context).toBe(full.baselineV31.feeSat);
        expect(inc.projectedBlocks.map((b) => b.feeSat), context).toEqual(full.projectedBlocks.map((b) => b.feeSat));
        const txidOfSlot = new Map([...model.slotOf].map(([t, s]) => [s, t]));
        const all = [...model.txs.keys()];
        const a = chunkRates(inc, (s) => txidOfSlot.get(s) ?? '');
        const b = chunkRates(full, (s) => all[s] ?? '');
        expect([...a.keys()].sort(), context).toEqual([...b.keys()].sort());
        for (const [txid, rate] of a) expect(rate, `${context} ${txid}`).toBe(b.get(txid));
        if (step > 0) reused += inc.clusters.reusedCount;
        else expect(inc.clusters.reusedCount, context).toBe(0);
      }
    }
    // Untouched clusters of three or more transactions (smaller ones need no search) were reused.
    expect(reused).toBeGreaterThan(0);
  });

  it('behavior: after a build refused for a parent loop, the next build equals one from scratch', () => {
    const engine = new IncrementalEngine();
    const m = new Model();
    const id = (k: number) => k.toString(16).padStart(2, '0').repeat(32);
    const tx = (k: number): Tx => {
      const t = m.txs.get(id(k));
      if (!t) throw new Error(`no tx ${k}`);
      return t;
    };
    for (let k = 1; k <= 8; k++) m.add({ txid: id(k), fee: 1000 * k, weight: 400 + 10 * k, sigops: 0, parents: k % 2 === 0 ? [id(k - 1)] : [] });
    engine.apply(m.takeDiff());
    engine.build(OPTIONS, false);
    m.add({ ...tx(1), parents: [id(2)] }); // 1 spends 2, which spends 1
    engine.apply(m.takeDiff());
    expect(() => engine.build(OPTIONS, false)).toThrow(expect.objectContaining({ code: 'ERR_OPTIMIZER_CYCLE' }));
    m.add({ ...tx(1), parents: [], fee: 7_777 });
    m.setFee(id(4), 50);
    m.remove(id(7));
    engine.apply(m.takeDiff());
    const inc = engine.build(OPTIONS, false);
    const fresh = new IncrementalEngine();
    fresh.apply(m.everything());
    const full = fresh.build(OPTIONS, true);
    expect(inc.optimized.feeSat).toBe(full.optimized.feeSat);
    expect(inc.projectedBlocks.map((b) => b.feeSat)).toEqual(full.projectedBlocks.map((b) => b.feeSat));
    const txidOfSlot = new Map([...m.slotOf].map(([t, s]) => [s, t]));
    const all = [...m.txs.keys()];
    expect(chunkRates(inc, (s) => txidOfSlot.get(s) ?? '')).toEqual(chunkRates(full, (s) => all[s] ?? ''));
  });

  it('refuses an inconsistent diff and keeps its table', () => {
    const engine = new IncrementalEngine();
    const m = new Model();
    m.add({ txid: 'aa'.repeat(32), fee: 1000, weight: 400, sigops: 0, parents: [] });
    engine.apply(m.takeDiff());
    const bad = { ...m.everything(), weightWu: new Uint32Array(0) };
    expect(() => engine.apply(bad)).toThrow(expect.objectContaining({ code: 'ERR_OPTIMIZER_LENGTH_MISMATCH' }));
    expect(engine.size).toBe(1);
    expect(engine.build(OPTIONS, false).optimized.txCount).toBe(1);
  });
});
