import { describe, expect, it } from 'vitest';
import { feeHistogram } from '../../src/fees/feeHistogram.js';
import { congestion, feeRatePercentiles } from '../../src/fees/feeLandscape.js';
import { feeRateSample } from '../../src/fees/feeRateSample.js';
import { BLOCK_TX_VSIZE } from '../../src/bitcoin/consensus.js';
import { projectedFeeRate } from '../../src/fees/projectedFeeRate.js';

const sample = (rates: Array<[number, number]>) =>
  feeRateSample(rates.map(([rate, vsize]) => ({ feeRateSatVb: rate, vsize, feeSat: Math.round(rate * vsize) })));

describe('feeHistogram', () => {
  it('default: every tx lands in exactly one bucket and the sums add up', () => {
    const s = sample([
      [0.5, 100],
      [1, 200],
      [1.2, 300],
      [25, 400],
      [2500, 50],
    ]);
    const buckets = feeHistogram(s);
    expect(buckets.reduce((n, b) => n + b.count, 0)).toBe(s.count);
    expect(buckets.reduce((n, b) => n + b.vsize, 0)).toBe(s.vsize);
    expect(buckets.reduce((n, b) => n + b.feeSat, 0)).toBe(s.feeSat);
    expect(buckets[0]!.maxFeeRateSatVb).toBeNull();
    expect(buckets[0]!.count).toBe(1); // 2500 sat/vB in the open top bucket
    const b1 = buckets.find((b) => b.minFeeRateSatVb === 1)!;
    expect(b1.count).toBe(2); // 1 and 1.2 are in [1, 1.5)
    expect(buckets.at(-1)!.cumulativeVsize).toBe(s.vsize);
  });

  it('behavior: buckets are ordered from the highest rate down and cumulative vsize grows', () => {
    const buckets = feeHistogram(
      sample([
        [3, 10],
        [7, 10],
        [100, 10],
      ]),
    );
    for (let i = 1; i < buckets.length; i++) {
      expect(buckets[i]!.minFeeRateSatVb).toBeLessThan(buckets[i - 1]!.minFeeRateSatVb);
      expect(buckets[i]!.cumulativeVsize).toBeGreaterThanOrEqual(buckets[i - 1]!.cumulativeVsize);
    }
  });
});

describe('feeRatePercentiles', () => {
  it('default: percentiles are weighted by vsize', () => {
    // 90 % of the vsize pays 1 sat/vB, 10 % pays 100 sat/vB.
    const p = feeRatePercentiles(
      sample([
        [1, 900],
        [100, 100],
      ]),
    );
    expect(p.p50).toBe(1);
    expect(p.p90).toBe(1);
    expect(p.p95).toBe(100);
    expect(p.min).toBe(1);
    expect(p.max).toBe(100);
  });

  it('behavior: empty mempool gives nulls', () => {
    expect(feeRatePercentiles(sample([])).p50).toBeNull();
  });
});

describe('congestion', () => {
  it('default: levels follow blocks of backlog', () => {
    expect(congestion(500_000).level).toBe('clear');
    expect(congestion(2_000_000).level).toBe('normal');
    expect(congestion(5_000_000).level).toBe('busy');
    expect(congestion(20_000_000).level).toBe('congested');
    expect(congestion(80_000_000).level).toBe('severe');
    expect(congestion(2_500_000).backlogBlocks).toBe(2.5);
  });
});

describe('projectedFeeRate', () => {
  it('default: the rate at N blocks of vsize from the top, rounded up to 0.1', () => {
    const s = sample([
      [50, BLOCK_TX_VSIZE],
      [10.04, BLOCK_TX_VSIZE],
      [2, BLOCK_TX_VSIZE],
    ]);
    expect(projectedFeeRate(s, 1, 0.1)).toMatchObject({ feeRateSatVb: 50, competitive: true });
    expect(projectedFeeRate(s, 2, 0.1).feeRateSatVb).toBe(10.1);
  });

  it('behavior: a mempool that fits in N blocks gives the floor', () => {
    const r = projectedFeeRate(sample([[50, 1000]]), 1, 1.5);
    expect(r).toMatchObject({ feeRateSatVb: 1.5, competitive: false, vsizeAhead: 1000 });
  });

  it('behavior: never below the floor', () => {
    expect(projectedFeeRate(sample([[0.2, 2 * BLOCK_TX_VSIZE]]), 1, 1).feeRateSatVb).toBe(1);
  });
});

describe('feeRateSample', () => {
  /** The straightforward version: objects sorted by rate with a comparator, scanned linearly. */
  const naive = (points: Array<{ feeRateSatVb: number; vsize: number; feeSat: number }>) => [...points].sort((a, b) => b.feeRateSatVb - a.feeRateSatVb);

  it('behavior: sorted by rate, highest first, with running vsize; depth and queue lookups agree with a linear scan', async () => {
    const { mulberry32 } = await import('../../src/util/mulberry32.js');
    const { indexAtDepth, vsizeAbove } = await import('../../src/fees/feeRateSample.js');
    const rng = mulberry32(9);
    for (const n of [0, 1, 2, 50, 3000]) {
      // Many ties (rates on a 0.5 grid) and a few zero-fee txs.
      const points = Array.from({ length: n }, () => {
        const vsize = 60 + Math.floor(rng() * 2000);
        const rate = rng() < 0.05 ? 0 : Math.round(rng() * 400) / 2;
        return { feeRateSatVb: rate, vsize, feeSat: Math.round(rate * vsize) };
      });
      const s = feeRateSample(points);
      const sorted = naive(points);
      expect(Array.from(s.rates)).toEqual(sorted.map((p) => p.feeRateSatVb));
      expect(s.vsize).toBe(points.reduce((a, p) => a + p.vsize, 0));
      expect(s.feeSat).toBe(points.reduce((a, p) => a + p.feeSat, 0));
      for (let k = 1; k < n; k++) expect(s.cumulativeVsize[k]).toBe(s.cumulativeVsize[k - 1]! + s.vsizes[k]!);
      for (const rate of [-1, 0, 0.5, 37, 100, 250]) {
        expect(vsizeAbove(s, rate)).toBe(sorted.filter((p) => p.feeRateSatVb > rate).reduce((a, p) => a + p.vsize, 0));
      }
      for (const depth of [1, 1000, s.vsize / 2, s.vsize, s.vsize + 1]) {
        let acc = 0;
        const linear = sorted.findIndex((p) => (acc += p.vsize) >= depth);
        // Ties may sit in another order, so compare the rate found there (the same within a tie group).
        const i = indexAtDepth(s, depth);
        expect(i === n ? null : s.rates[i]).toBe(linear === -1 ? null : sorted[linear]!.feeRateSatVb);
      }
    }
  });

  it('behavior: negative rates (prioritisetransaction) and -0 sort like numbers', () => {
    const s = feeRateSample([-3, 2, -0, 0, 5, -1].map((r) => ({ feeRateSatVb: r, vsize: 100, feeSat: 0 })));
    expect(Array.from(s.rates)).toEqual([5, 2, -0, 0, -1, -3]);
  });

  it('behavior: whole-sample answers are computed once per sample', () => {
    const s = sample([
      [3, 10],
      [7, 10],
      [100, 10],
    ]);
    expect(feeHistogram(s)).toBe(feeHistogram(s));
    expect(feeRatePercentiles(s)).toBe(feeRatePercentiles(s));
  });
});
