import { describe, expect, it } from 'vitest';
import { feeEstimate } from '../../src/fees/feeEstimate.js';
import type { ProjectedFeeRate } from '../../src/fees/projectedFeeRate.js';

const projection = (feeRateSatVb: number, competitive: boolean): ProjectedFeeRate => ({ feeRateSatVb, competitive, vsizeAhead: 1, derivation: 'test' });
const smart = (satVb: number) => ({ feerate: satVb / 1e5, blocks: 2 });

describe('feeEstimate', () => {
  it('default: a competitive queue within the horizon decides', () => {
    expect(feeEstimate(3, smart(4), 'conservative', projection(12.3, true))).toMatchObject({ feeRateSatVb: 12.3, source: 'mempool_projection' });
  });

  it('behavior: a queue that clears before the target defers to Core history, never below the floor', () => {
    expect(feeEstimate(2, smart(1), 'conservative', projection(0.1, false))).toMatchObject({ feeRateSatVb: 1, source: 'estimatesmartfee' });
    expect(feeEstimate(2, smart(0.05), 'conservative', projection(0.1, false))!.feeRateSatVb).toBe(0.1);
  });

  it('behavior: without a Core estimate the projection answers, even beyond the horizon', () => {
    expect(feeEstimate(50, null, 'conservative', projection(0.1, false))).toMatchObject({ feeRateSatVb: 0.1, source: 'mempool_projection' });
    expect(feeEstimate(50, { blocks: 50, errors: ['Insufficient data'] }, 'conservative', null)).toBeNull();
  });

  it('args: targets beyond the horizon use estimatesmartfee', () => {
    expect(feeEstimate(144, smart(2), 'conservative', projection(9, true))).toMatchObject({ feeRateSatVb: 2, source: 'estimatesmartfee' });
  });
});
