/**
 * The optimized template under the consensus limits (issue 14): real weight with the coinbase
 * reservation, sigop cost as its own limit. Sigop-heavy transactions compete by the space they
 * really take, the upper bound is the exact LP/hull value on every mempool (checked against an
 * enumeration of every cluster's closed sets), and on a generated 2023-like mempool the optimized
 * template is within 0.001 % of it and never below the v31 baseline (which keeps Core's
 * sigop-adjusted sizes).
 */
import { describe, expect, it } from 'vitest';

import { buildTemplates, type OptimizerInput } from '../../src/optimizer/binding/native.js';
import { at } from '../../src/util/at.js';
import { generateMempool } from '../../bench/generator.js';
import { CORE_LIMITS, checkProjected, checkResult, exactOptimum, lpBound, parentsOf, randomMempool, type Limits } from './oracle.js';

const gapPct = (bound: number, fee: number) => ((bound - fee) / bound) * 100;

describe('consensus limits', () => {
  it('behavior: a bare-multisig transaction competes by its real weight, not its sigop-adjusted size', () => {
    // 30 singletons of 1,000 WU at 10 sat/WU overfill the 19,000 WU of room; the stamp pays
    // 15 sat/WU of its real 2,000 WU, but its 200 sigop cost make Core size it 4,000 WU (7.5 sat/WU).
    const n = 31;
    const feeSat = new Float64Array(n).fill(10_000), weightWu = new Uint32Array(n).fill(1_000), sigopCost = new Uint32Array(n);
    feeSat[30] = 30_000; weightWu[30] = 2_000; sigopCost[30] = 200;
    const input: OptimizerInput = { feeSat, weightWu, sigopCost, parentOffsets: new Uint32Array(n + 1), parentIndices: new Uint32Array(0), txidRank: Uint32Array.from({ length: n }, (_, i) => i) };
    const lim: Limits = { weightLimitWu: 20_000, coinbaseReserveWu: 1_000, maxSigopCost: 80_000, coinbaseSigopCost: 400 };
    const r = buildTemplates(input, { ...lim, maxTxCount: 1_000, minFeeRateSatVb: 0 });
    expect(r.baselineV31.feeSat).toBe(180_000);
    expect(Array.from(r.baselineV31.indices)).not.toContain(30);
    expect(Array.from(r.optimized.indices)).toContain(30);
    expect(r.optimized.feeSat).toBe(200_000);
    expect(r.upperBound).toMatchObject({ feeSat: 200_000, lpFeeSat: 200_000, exact: true, relaxedClusters: 0, solved: true });
    expect(r.clusters.realWeightRelinearized).toBe(1);
    expect(r.tailSearch.sigopsBinding).toBe(false);
  });

  it('behavior: the bound is a certificate: between the exact optimum and the exact LP value, sigop-heavy clusters included', () => {
    let tighter = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const input = randomMempool(seed + 2_000, { clusters: 12, maxClusterSize: 6, density: 0.35, sigopShare: 0.3 });
      const lim: Limits = { weightLimitWu: 5_000 + (seed % 6) * 2_500, coinbaseReserveWu: 500, maxSigopCost: 1_000_000, coinbaseSigopCost: 0 };
      const opts = { ...lim, maxTxCount: 1_000, minFeeRateSatVb: 0 };
      const r = buildTemplates(input, opts);
      expect(checkResult(input, r, opts)).toEqual([]);
      expect(r.upperBound.exact).toBe(true);
      const cap = lim.weightLimitWu - lim.coinbaseReserveWu;
      expect(r.upperBound.lpFeeSat).toBe(lpBound(input, cap));
      const optimum = exactOptimum(input, cap);
      expect(r.upperBound.feeSat).toBeGreaterThanOrEqual(optimum);
      expect(r.upperBound.feeSat).toBeLessThanOrEqual(r.upperBound.lpFeeSat);
      if (r.upperBound.feeSat < r.upperBound.lpFeeSat) tighter++;
    }
    expect(tighter).toBeGreaterThan(0);
  });

  it('behavior: the sigop cost is its own limit, respected and reported when it binds', () => {
    // 20 stamps (1,000 WU, 800 sigop cost, 50 sat/WU) and 40 plain singletons (1,000 WU, 5 sat/WU):
    // all fit by weight, but a sigop budget of 8,000 leaves room for only 10 stamps.
    const n = 60;
    const feeSat = new Float64Array(n), weightWu = new Uint32Array(n).fill(1_000), sigopCost = new Uint32Array(n);
    for (let t = 0; t < n; t++) { feeSat[t] = t < 20 ? 50_000 : 5_000 + t; sigopCost[t] = t < 20 ? 800 : 1; }
    const input: OptimizerInput = { feeSat, weightWu, sigopCost, parentOffsets: new Uint32Array(n + 1), parentIndices: new Uint32Array(0), txidRank: Uint32Array.from({ length: n }, (_, i) => i) };
    const lim: Limits = { weightLimitWu: 100_000, coinbaseReserveWu: 4_000, maxSigopCost: 8_440, coinbaseSigopCost: 400 };
    const opts = { ...lim, maxTxCount: 10_000, minFeeRateSatVb: 0 };
    const r = buildTemplates(input, opts);
    expect(checkResult(input, r, opts)).toEqual([]);
    // 10 stamps (8,000) and the 40 plain ones fit 8,040; an 11th stamp would not.
    expect(Array.from(r.optimized.indices).filter((t) => t < 20).length).toBe(10);
    expect(r.optimized.txCount).toBe(50);
    expect(r.optimized.sigopCost).toBe(8_040);
    expect(r.tailSearch.sigopsBinding).toBe(true);
    const loose = buildTemplates(input, { ...opts, maxSigopCost: 80_000 });
    expect(loose.tailSearch.sigopsBinding).toBe(false);
    expect(loose.optimized.txCount).toBe(60);
  });

  it.each([
    { seed: 5, txCount: 20_000, share: 0.03, profile: 'realistic' as const },
    { seed: 8, txCount: 20_000, share: 0.05, profile: 'cluster-heavy' as const },
  ])('behavior: a 2023-like mempool ($share bare multisig, $profile): within 0.001 % of an exact bound, above v31', ({ seed, txCount, share, profile }) => {
    const m = generateMempool({ txCount, seed, bareMultisigShare: share, profile });
    const opts = { ...CORE_LIMITS, maxTxCount: 100_000, minFeeRateSatVb: 0 };
    const r = buildTemplates(m.input, opts);
    expect(checkResult(m.input, r, opts)).toEqual([]);
    expect(r.upperBound.exact).toBe(true);
    expect(r.clusters.realWeightRelinearized).toBeGreaterThan(0);
    expect(gapPct(r.upperBound.feeSat, r.optimized.feeSat)).toBeLessThanOrEqual(0.001);
    // Core's sigop-adjusted order leaves far more on the table here.
    expect(gapPct(r.upperBound.feeSat, r.baselineV31.feeSat)).toBeGreaterThan(0.1);
    expect(r.optimized.feeSat).toBeGreaterThan(r.baselineV31.feeSat);
  });

  it('behavior: projected blocks follow the real-weight order and stay disjoint and closed', () => {
    const m = generateMempool({ txCount: 8_000, seed: 12, bareMultisigShare: 0.04 });
    const r = buildTemplates(m.input, { maxTxCount: 100_000, minFeeRateSatVb: 0, weightLimitWu: 400_000, projectedBlocks: 6 });
    const mined = new Set<number>();
    for (let b = 0; b < 6; b++) {
      const txs = Array.from(r.txProjectedBlock.keys()).filter((t) => r.txProjectedBlock[t] === b);
      expect(at(r.projectedBlocks, b).weightWu).toBe(txs.reduce((a, t) => a + at(m.input.weightWu, t), 0));
      expect(at(r.projectedBlocks, b).weightWu).toBeLessThanOrEqual(400_000 - 8_000);
      const inBlock = new Set(txs);
      for (const t of txs) for (const p of parentsOf(m.input, t)) expect(mined.has(p) || inBlock.has(p)).toBe(true);
      txs.forEach((t) => mined.add(t));
    }
  });

  it('behavior: where v31 beats the real-weight search (it can split a real-weight chunk), block 1 is v31 and the projected blocks continue from it', () => {
    let used = 0;
    for (let seed = 1; seed <= 600 && used < 5; seed++) {
      const input = randomMempool(seed, { clusters: 5 + (seed % 40), maxClusterSize: 1 + (seed % 8), density: 0.25, sigopShare: 0.3 });
      const opts = { weightLimitWu: 3_000 + ((seed * 7_919) % 20_000), coinbaseReserveWu: 500, maxSigopCost: 100_000, coinbaseSigopCost: 0, maxTxCount: 1_000, minFeeRateSatVb: 0, projectedBlocks: 3 };
      const r = buildTemplates(input, opts);
      expect(checkResult(input, r, opts)).toEqual([]);
      expect(checkProjected(input, r, opts.weightLimitWu - opts.coinbaseReserveWu)).toEqual([]);
      if (!r.tailSearch.usedBaselineV31) continue;
      used++;
      expect(r.optimized.feeSat).toBe(r.baselineV31.feeSat);
      expect(Array.from(r.optimized.indices)).toEqual(Array.from(r.baselineV31.indices));
    }
    expect(used).toBe(5);
  });
});
