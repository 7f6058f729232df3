/**
 * Template properties on seeded random mempools: closure and limits of every template, optimized
 * >= v31 >= 0 and <= the upper bound, the v31 and v30 baselines against TypeScript references of
 * Bitcoin Core's loops, the tail search against brute force, and the projected blocks.
 */
import { describe, expect, it } from 'vitest';

import { buildTemplates, inspectClusters, type OptimizerInput } from '../../src/optimizer/binding/native.js';
import { at } from '../../src/util/at.js';
import {
  CORE_LIMITS, assertTopological, checkResult, cmpRate, miningOrder, parentsOf, randomMempool, referenceV30, referenceV31, type Limits,
} from './oracle.js';

const sorted = (a: ArrayLike<number>) => Array.from(a).sort((x, y) => x - y);

/** A tight block so that many chunks do not fit. */
function smallLimits(seed: number): Limits {
  return { weightLimitWu: 6_000 + (seed % 7) * 3_000, coinbaseReserveWu: 500 + (seed % 3) * 700, maxSigopCost: 2_000 + (seed % 5) * 1_500, coinbaseSigopCost: 40 };
}

describe('templates', () => {
  it('default: closed, within limits, optimized >= v31 >= 0, all <= bound', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomMempool(seed, { clusters: 25, maxClusterSize: 10, density: 0.25, sigopShare: seed % 4 === 0 ? 0.1 : 0 });
      const lim = smallLimits(seed);
      const opts = { ...lim, maxTxCount: 15 + (seed % 20), minFeeRateSatVb: seed % 3 === 0 ? 8 : 1 };
      const r = buildTemplates(input, opts);
      expect(checkResult(input, r, opts)).toEqual([]);
      // Every optimized chunk pays the requested minimum rate (sigop-free inputs: chunk weight is real).
      if (seed % 4 !== 0) {
        for (const t of r.optimized.indices) expect(at(r.txChunkFeeSat, t) * 4000).toBeGreaterThanOrEqual(opts.minFeeRateSatVb * 1000 * at(r.txChunkWeightWu, t));
      }
    }
  });

  it('behavior: baseline v31 equals the TypeScript reference of addChunks', () => {
    for (let seed = 1; seed <= 80; seed++) {
      const input = randomMempool(seed, { clusters: 20, maxClusterSize: 8, density: 0.3, sigopShare: seed % 3 === 0 ? 0.15 : 0 });
      const lim = smallLimits(seed);
      const r = buildTemplates(input, lim);
      const ref = referenceV31(miningOrder(input, inspectClusters(input, lim)), lim);
      expect(r.baselineV31.feeSat).toBe(ref.fee);
      expect(Array.from(r.baselineV31.indices)).toEqual(ref.txs);
    }
  });

  it('behavior: v31 stops after more than 1000 consecutive failures near a full block; optimized does not', () => {
    // One big tx fills the block to within 4,000 WU; then 1,001 chunks too heavy to fit, then a small
    // tx with a lower rate that would fit.
    const n = 1003;
    const feeSat = new Float64Array(n), weightWu = new Uint32Array(n);
    feeSat[0] = 960_000; weightWu[0] = 96_000;
    for (let i = 1; i <= 1001; i++) { weightWu[i] = 3_500; feeSat[i] = 3_500 * 5; }
    weightWu[1002] = 400; feeSat[1002] = 400;
    const input: OptimizerInput = { feeSat, weightWu, parentOffsets: new Uint32Array(n + 1), parentIndices: new Uint32Array(0), txidRank: Uint32Array.from({ length: n }, (_, i) => i) };
    const lim = { weightLimitWu: 100_000, coinbaseReserveWu: 1_000, maxSigopCost: 80_000, coinbaseSigopCost: 400 };
    const r = buildTemplates(input, { ...lim, maxTxCount: 10_000 });
    expect(Array.from(r.baselineV31.indices)).toEqual([0]);
    expect(referenceV31(miningOrder(input, inspectClusters(input)), lim).txs).toEqual([0]);
    expect(sorted(r.optimized.indices)).toEqual([0, 1002]);
    // With one failure fewer, Core keeps going and takes the small tx too.
    const fewer = buildTemplates({ ...input, weightWu: Uint32Array.from(weightWu, (w, i) => (i === 1001 ? 400 : w)) }, { ...lim, maxTxCount: 10_000 });
    expect(fewer.baselineV31.txCount).toBe(3);
  });

  it('behavior: v31 excludes the rest of a cluster after a skip; optimized keeps independent later chunks', () => {
    // One cluster: P (poor root) + A (rich child of P) form chunk {P,A} (25.75 sat/WU, 4,000 WU);
    // Q is an independent root (9 sat/WU); C spends A and Q (1 sat/WU). Another cluster: X (8 sat/WU).
    // Room is 2,100 WU: {P,A} does not fit, so Core skips it and excludes Q and C with it.
    const input: OptimizerInput = {
      feeSat: new Float64Array([3_000, 100_000, 9_000, 1_000, 8_000]),
      weightWu: new Uint32Array([3_000, 1_000, 1_000, 1_000, 1_000]),
      parentOffsets: new Uint32Array([0, 0, 1, 1, 3, 3]),
      parentIndices: new Uint32Array([0, 1, 2]),
      txidRank: new Uint32Array([0, 1, 2, 3, 4]),
    };
    const lim = { weightLimitWu: 3_100, coinbaseReserveWu: 1_000, maxSigopCost: 80_000, coinbaseSigopCost: 400 };
    const r = buildTemplates(input, { ...lim, maxTxCount: 100 });
    expect(Array.from(r.baselineV31.indices)).toEqual([4]);
    expect(sorted(r.optimized.indices)).toEqual([2, 4]);
    expect(r.optimized.feeSat).toBe(17_000);
    expect(checkResult(input, r, { ...lim, maxTxCount: 100, minFeeRateSatVb: 1 })).toEqual([]);
  });

  it('behavior: baseline v30 equals the TypeScript reference of addPackageTxs', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomMempool(seed + 500, { clusters: 15, maxClusterSize: 8, density: 0.3, sigopShare: seed % 4 === 0 ? 0.1 : 0 });
      const lim = smallLimits(seed);
      const r = buildTemplates(input, lim);
      const ref = referenceV30(input, lim);
      expect(r.baselineV30.feeSat).toBe(ref.fee);
      expect(Array.from(r.baselineV30.indices)).toEqual(ref.txs);
    }
  });

  it('behavior: baseline v30 equals the reference where its walk spans several batches of the score order', () => {
    // Thousands of small transactions, a block that holds most of them: Core's walk goes past the
    // first batches of the ancestor-score index (4,096, then 8,192 entries, picked by a sampled
    // threshold once more than twice a batch is left), so the batches' boundaries and the sampling
    // are part of what is compared. Singletons walk into a third batch; pairs keep modified entries
    // (the reference scans them all per step, hence the smaller mempool).
    const lim: Limits = { weightLimitWu: 4_000_000, coinbaseReserveWu: 8_000, maxSigopCost: 80_000, coinbaseSigopCost: 400 };
    for (const { seed, clusters, maxClusterSize, walked } of [
      { seed: 7_001, clusters: 24_000, maxClusterSize: 1, walked: 4_096 + 8_192 },
      { seed: 7_002, clusters: 6_000, maxClusterSize: 2, walked: 4_096 },
    ]) {
      const input = randomMempool(seed, { clusters, maxClusterSize, density: 0.3, maxWeight: 400, maxRate: 6, sigopShare: 0.01 });
      expect(input.feeSat.length).toBeGreaterThan(2 * 4_096);
      const r = buildTemplates(input, { ...lim, maxTxCount: 1_000_000 });
      const ref = referenceV30(input, lim);
      expect(ref.txs.length).toBeGreaterThan(walked);
      expect(r.baselineV30.feeSat).toBe(ref.fee);
      expect(Array.from(r.baselineV30.indices)).toEqual(ref.txs);
    }
  });

  it('behavior: a complete tail search finds the best whole-chunk template (brute force)', () => {
    let improvedSomewhere = false;
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomMempool(seed + 900, { clusters: 7, maxClusterSize: 3, density: 0.5, maxRate: 8 });
      const lim = smallLimits(seed);
      const maxTxCount = 6 + (seed % 5);
      const r = buildTemplates(input, { ...lim, maxTxCount, minFeeRateSatVb: 0, tailWindowPct: 1_000_000 });
      if (!r.tailSearch.complete) continue;
      // Brute force over sets of chunks closed under parents.
      const chunks = miningOrder(input, inspectClusters(input));
      expect(chunks.length).toBeLessThanOrEqual(21);
      const cap = lim.weightLimitWu - lim.coinbaseReserveWu, sigCap = lim.maxSigopCost - lim.coinbaseSigopCost;
      let best = 0;
      for (let mask = 0; mask < 1 << chunks.length; mask++) {
        let fee = 0, w = 0, s = 0, cnt = 0, ok = true;
        const inSet = new Set<number>();
        chunks.forEach((c, k) => { if (mask & (1 << k)) for (const t of c.txs) inSet.add(t); });
        for (const [k, c] of chunks.entries()) {
          if (!ok) break;
          if (!(mask & (1 << k))) continue;
          fee += c.fee; w += c.weight; s += c.sigops; cnt += c.txs.length;
          for (const t of c.txs) for (const p of parentsOf(input, t)) if (!inSet.has(p)) ok = false;
        }
        if (ok && w <= cap && s <= sigCap && cnt <= maxTxCount && fee > best) best = fee;
      }
      // The bound's solve may beat every whole-chunk template (it splits chunks); else the search's is the best.
      if (r.tailSearch.usedBoundTemplate) expect(r.optimized.feeSat).toBeGreaterThan(best);
      else expect(r.optimized.feeSat).toBe(best);
      expect(r.optimized.feeSat).toBeLessThanOrEqual(r.upperBound.feeSat);
      if (r.tailSearch.improvedSat > 0) improvedSomewhere = true;
    }
    expect(improvedSomewhere).toBe(true);
  });

  it('behavior: projected blocks are disjoint, closed given earlier blocks, and consistent', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const input = randomMempool(seed + 300, { clusters: 60, maxClusterSize: 12, density: 0.25 });
      const lim = smallLimits(seed);
      const r = buildTemplates(input, { ...lim, projectedBlocks: 5, maxTxCount: 40 });
      expect(r.projectedBlocks.length).toBe(5);
      expect(sorted(r.optimized.indices)).toEqual(sorted(Array.from(r.txProjectedBlock.keys()).filter((t) => r.txProjectedBlock[t] === 0)));
      const mined = new Set<number>();
      for (let b = 0; b < 5; b++) {
        const txs = Array.from(r.txProjectedBlock.keys()).filter((t) => r.txProjectedBlock[t] === b);
        const blk = at(r.projectedBlocks, b);
        expect(blk.txCount).toBe(txs.length);
        expect(blk.feeSat).toBe(txs.reduce((a, t) => a + at(input.feeSat, t), 0));
        expect(blk.weightWu).toBeLessThanOrEqual(lim.weightLimitWu - lim.coinbaseReserveWu);
        if (blk.txCount > 0) {
          expect(blk.minFeeRateSatVb).toBeLessThanOrEqual(blk.medianFeeRateSatVb);
          expect(blk.medianFeeRateSatVb).toBeLessThanOrEqual(blk.maxFeeRateSatVb);
        }
        for (const t of txs) for (const p of parentsOf(input, t)) expect(mined.has(p) || txs.includes(p)).toBe(true);
        txs.forEach((t) => mined.add(t));
        if (b > 0 && at(r.projectedBlocks, b - 1).txCount === 0) expect(blk.txCount).toBe(0);
      }
    }
  });

  it('args: maxTxCount and minFeeRateSatVb bind the optimized template and flag v31', () => {
    const input = randomMempool(42, { clusters: 80, maxClusterSize: 4, density: 0.3 });
    const r = buildTemplates(input, { maxTxCount: 10, minFeeRateSatVb: 1 });
    expect(r.optimized.txCount).toBeLessThanOrEqual(10);
    expect(r.baselineV31.txCount).toBeGreaterThan(10);
    expect(r.v31WithinRequestLimits).toBe(false);
    const free = buildTemplates(input, { maxTxCount: 100_000, minFeeRateSatVb: 0 });
    expect(free.v31WithinRequestLimits).toBe(true);
    expect(free.optimized.feeSat).toBeGreaterThanOrEqual(free.baselineV31.feeSat);
    const strict = buildTemplates(input, { maxTxCount: 100_000, minFeeRateSatVb: 100 });
    for (const t of strict.optimized.indices) expect(at(strict.txChunkFeeSat, t) * 4).toBeGreaterThanOrEqual(100 * at(strict.txChunkWeightWu, t));
  });

  it('behavior: everything fits: all templates take the whole mempool and equal the bound', () => {
    const input = randomMempool(5, { clusters: 30, maxClusterSize: 6, density: 0.3 });
    const r = buildTemplates(input, { maxTxCount: 10_000, minFeeRateSatVb: 0 });
    const total = Array.from(input.feeSat).reduce((a, b) => a + b, 0);
    const nonzero = Array.from(input.feeSat.keys()).filter((t) => at(input.feeSat, t) > 0).length;
    expect(r.optimized.feeSat).toBe(total);
    expect(r.upperBound.feeSat).toBe(total);
    expect(r.baselineV30.feeSat).toBe(r.baselineV31.feeSat);
    expect(r.optimized.txCount).toBeGreaterThanOrEqual(nonzero);
    assertTopological(input, r.optimized.indices);
  });

  it('behavior: the per-tx chunk fee and weight match a recomputed chunking', () => {
    const input = randomMempool(11, { clusters: 40, maxClusterSize: 10, density: 0.3, sigopShare: 0.1 });
    const r = buildTemplates(input);
    for (const c of miningOrder(input, inspectClusters(input))) {
      for (const t of c.txs) {
        expect(r.txChunkFeeSat[t]).toBe(c.fee);
        expect(r.txChunkWeightWu[t]).toBe(c.adj);
      }
    }
    // and the mining order is non-increasing in rate
    const order = miningOrder(input, inspectClusters(input));
    for (let k = 1; k < order.length; k++) expect(cmpRate(at(order, k).fee, at(order, k).adj, at(order, k - 1).fee, at(order, k - 1).adj)).toBeLessThanOrEqual(0);
  });

  it('behavior: Core defaults apply when no options are given', () => {
    const input = randomMempool(3, { clusters: 50, maxClusterSize: 5 });
    const a = buildTemplates(input);
    const b = buildTemplates(input, { ...CORE_LIMITS, maxTxCount: 4_000, minFeeRateSatVb: 1, projectedBlocks: 8 });
    expect(a.optimized.feeSat).toBe(b.optimized.feeSat);
    expect(a.projectedBlocks.length).toBe(8);
  });
});
