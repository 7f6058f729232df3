/**
 * Linearization properties on seeded random clusters: topological order, non-increasing chunk
 * rates, optimality against an exhaustive oracle (closed-set hull) for clusters up to 14 txs,
 * warm starts never worse, determinism, the general path for clusters above 64 and 512, and the
 * native SanityCheck of every SFL state.
 */
import { describe, expect, it } from 'vitest';

import { buildTemplates, inspectClusters, selfCheck, type OptimizerInput } from '../../src/optimizer/binding/native.js';
import { at } from '../../src/util/at.js';
import { first } from '../helpers/first.js';
import { assertTopological, chunkLinearization, cmpRate, isOptimalLinearization, randomMempool, rng } from './oracle.js';

/** A single chain-free dense cluster of exactly n txs (tx i spends a random earlier tx, plus extras). */
function denseCluster(seed: number, n: number, density: number): OptimizerInput {
  const r = rng(seed);
  const offsets = new Uint32Array(n + 1);
  const idx: number[] = [];
  const fee = new Float64Array(n), weight = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    weight[i] = 100 + Math.floor(r() * 900);
    fee[i] = Math.floor(at(weight, i) * r() * 20);
    if (i > 0) {
      const ps = new Set([Math.floor(r() * i)]);
      for (let j = 0; j < i; j++) if (r() < density) ps.add(j);
      idx.push(...ps);
    }
    offsets[i + 1] = idx.length;
  }
  const txidRank = Uint32Array.from({ length: n }, (_, i) => (i * 7919) % n);
  return { feeSat: fee, weightWu: weight, parentOffsets: offsets, parentIndices: Uint32Array.from(idx), txidRank };
}

describe('linearize', () => {
  it('default: optimal, topological, non-increasing chunks on random clusters up to 14 txs', () => {
    let clustersChecked = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const input = randomMempool(seed, { clusters: 12, maxClusterSize: 14, density: 0.15 + (seed % 5) * 0.1 });
      const details = inspectClusters(input);
      for (const c of details) {
        assertTopological(input, c.linearization);
        const chunks = chunkLinearization(input, c.linearization);
        expect(Array.from(c.chunkSizes)).toEqual(chunks.map((ch) => ch.txs.length));
        for (let k = 1; k < chunks.length; k++) {
          expect(cmpRate(at(chunks, k).fee, at(chunks, k).adj, at(chunks, k - 1).fee, at(chunks, k - 1).adj)).toBeLessThanOrEqual(0);
        }
        expect(c.optimal).toBe(true);
        expect(c.cost).toBeLessThan(75_000);
        expect(isOptimalLinearization(input, c.linearization)).toBe(true);
        clustersChecked++;
      }
    }
    expect(clustersChecked).toBeGreaterThan(300);
  });

  it('behavior: the exhaustive oracle rejects a non-optimal order (the check can fail)', () => {
    // parent 1 sat/WU, two children: a rich one and a poor one. Putting the poor child before the
    // rich one is topological but not optimal.
    const input: OptimizerInput = {
      feeSat: new Float64Array([100, 10_000, 10]),
      weightWu: new Uint32Array([100, 100, 100]),
      parentOffsets: new Uint32Array([0, 0, 1, 2]),
      parentIndices: new Uint32Array([0, 0]),
      txidRank: new Uint32Array([0, 1, 2]),
    };
    expect(isOptimalLinearization(input, [0, 2, 1])).toBe(false);
    expect(isOptimalLinearization(input, [0, 1, 2])).toBe(true);
    expect(Array.from(first(inspectClusters(input)).linearization)).toEqual([0, 1, 2]);
  });

  it('behavior: dense 14-tx clusters are optimal', () => {
    for (let seed = 100; seed < 130; seed++) {
      const input = denseCluster(seed, 14, 0.35);
      const c = first(inspectClusters(input), 'cluster list');
      expect(c.optimal).toBe(true);
      expect(isOptimalLinearization(input, c.linearization)).toBe(true);
    }
  });

  it('behavior: a warm start is never worse than its hint', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const input = denseCluster(seed, 40, 0.1);
      // A valid but poor hint: the index order is topological here (parents have lower indices).
      const hint = Uint32Array.from({ length: 40 }, (_, i) => i);
      const c = first(inspectClusters({ ...input, warmOrder: hint }, { linearizeBudget: 0, linearizeExtraBudget: 0 }), 'cluster list');
      assertTopological(input, c.linearization);
      const before = chunkLinearization(input, hint), after = chunkLinearization(input, c.linearization);
      // Compare diagrams at every chunk boundary of the hint: the result must be at least as high.
      let x = 0, fee = 0;
      for (const ch of before) {
        x += ch.adj;
        fee += ch.fee;
        let ax = 0, af = 0, k = 0;
        while (ax + at(after, k).adj < x) { ax += at(after, k).adj; af += at(after, k).fee; k++; }
        // after-diagram at x: af + after[k].fee * (x - ax) / after[k].adj  >=  fee
        const seg = at(after, k);
        expect(BigInt(af) * BigInt(seg.adj) + BigInt(seg.fee) * BigInt(x - ax)).toBeGreaterThanOrEqual(BigInt(fee) * BigInt(seg.adj));
      }
    }
  });

  it('args: seed gives deterministic results; threads 1 and 2 agree', () => {
    const input = randomMempool(7, { clusters: 300, maxClusterSize: 40, density: 0.2 });
    const a = buildTemplates(input, { seed: 5 });
    const b = buildTemplates(input, { seed: 5, threads: 1 });
    expect(Array.from(a.linearization)).toEqual(Array.from(b.linearization));
    expect(a.optimized.feeSat).toBe(b.optimized.feeSat);
    expect(a.clusters.linearizeCost).toBe(b.clusters.linearizeCost);
  });

  it('args: linearizeBudget 0 still gives topological orders, marked not optimal', () => {
    const input = denseCluster(3, 30, 0.2);
    const c = first(inspectClusters(input, { linearizeBudget: 0, linearizeExtraBudget: 0 }), 'cluster list');
    assertTopological(input, c.linearization);
    expect(c.optimal).toBe(false);
    const r = buildTemplates(input, { linearizeBudget: 0, linearizeExtraBudget: 0 });
    // The LP drops that cluster's precedence; `exact` says only whether the residual solve proved the optimum anyway.
    expect(r.upperBound.relaxedClusters).toBe(1);
    expect(r.upperBound.exact).toBe(r.upperBound.solved);
    expect(r.optimized.feeSat).toBeLessThanOrEqual(r.upperBound.feeSat);
  });

  it('behavior: clusters above 64 use wider sets and stay correct; above 512 a greedy order', () => {
    for (const n of [65, 130, 300]) {
      const input = denseCluster(n, n, 0.02);
      const c = first(inspectClusters(input), 'cluster list');
      assertTopological(input, c.linearization);
      expect(c.linearization.length).toBe(n);
      const r = buildTemplates(input);
      expect(r.clusters.over64Count).toBe(1);
      expect(r.clusters.largest).toBe(n);
    }
    const big = denseCluster(9, 700, 0.003);
    const c = first(inspectClusters(big), 'cluster list');
    assertTopological(big, c.linearization);
    expect(c.optimal).toBe(false);
    const r = buildTemplates(big);
    expect(r.upperBound.relaxedClusters).toBe(1);
  });

  it('behavior: chains of any length are linearized directly and optimal', () => {
    const n = 2000;
    const input: OptimizerInput = {
      feeSat: Float64Array.from({ length: n }, (_, i) => (i * 37) % 1000),
      weightWu: new Uint32Array(n).fill(400),
      parentOffsets: Uint32Array.from({ length: n + 1 }, (_, i) => Math.max(0, i - 1)),
      parentIndices: Uint32Array.from({ length: n - 1 }, (_, i) => i),
      txidRank: Uint32Array.from({ length: n }, (_, i) => i),
    };
    const c = first(inspectClusters(input), 'cluster list');
    expect(c.optimal).toBe(true);
    expect(Array.from(c.linearization)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('behavior: native SanityCheck holds for every SFL state', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const input = randomMempool(seed, { clusters: 20, maxClusterSize: 30, density: 0.25 });
      expect(selfCheck(input, { seed }, 1)).toBe('');
    }
  });
});
