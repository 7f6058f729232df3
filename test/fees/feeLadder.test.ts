import { describe, expect, it } from 'vitest';
import { feeLadder } from '../../src/fees/feeLadder.js';

const full = (minFeeRateSatVb: number) => ({ minFeeRateSatVb, full: true });

describe('feeLadder', () => {
  it('default: rungs come from the projected cutoffs and are monotone', () => {
    const ladder = feeLadder({
      targetBlocks: 3,
      projectedBlocks: [full(20), full(12), full(8), full(5)],
      floorSatVb: 1,
      smartTargetSatVb: null,
      smartDaySatVb: 2,
    });
    expect(ladder.urgent.satVb).toBe(21.1); // 20 × 1.05 + 0.1
    expect(ladder.normal.satVb).toBe(8);
    expect(ladder.cheap.satVb).toBe(2);
    expect(ladder.urgent.useWhen).toMatch(/next block/);
  });

  it('behavior: a mempool that clears sooner gives the floor', () => {
    const ladder = feeLadder({ targetBlocks: 6, projectedBlocks: [{ minFeeRateSatVb: 3, full: false }], floorSatVb: 1, smartTargetSatVb: 4, smartDaySatVb: 1 });
    expect(ladder.urgent.satVb).toBe(1.2); // floor 1 × 1.05 + 0.1, rounded up
    expect(ladder.normal.satVb).toBeLessThanOrEqual(ladder.urgent.satVb);
    expect(ladder.cheap.satVb).toBe(1);
    // It says what it used: the floor, because the block is not full (not the block's own lowest rate 3).
    expect(ladder.urgent.derivation).toBe('the floor (1; projected block 1 is not full) × 1.05 + 0.1');
    expect(ladder.urgent.derivation).not.toMatch(/lowest chunk fee rate/);
  });

  it('behavior: each derivation names what was used — a full block’s lowest rate, the floor, or a raise to the floor', () => {
    const ladder = feeLadder({ targetBlocks: 2, projectedBlocks: [full(20), full(12)], floorSatVb: 1, smartTargetSatVb: null, smartDaySatVb: null });
    expect(ladder.urgent.derivation).toBe('lowest chunk fee rate of projected block 1 (20; the block is full) × 1.05 + 0.1');
    expect(ladder.normal.derivation).toBe('lowest chunk fee rate of projected block 2 (12; the block is full)');
    expect(ladder.cheap.derivation).toMatch(
      /^no Core estimate for 144 blocks: lowest chunk fee rate of projected block 2 \(12; the block is full\), capped at normal$/,
    );
    const empty = feeLadder({ targetBlocks: 3, projectedBlocks: [], floorSatVb: 1, smartTargetSatVb: null, smartDaySatVb: 0.2 });
    expect(empty.urgent.derivation).toMatch(/^the floor \(1; the projection ends before block 1\)/);
    expect(empty.cheap.derivation).toMatch(/raised to the floor \(1\)$/);
  });

  it('behavior: a queue that clears before the target defers normal to estimatesmartfee, capped at urgent', () => {
    const ladder = feeLadder({
      targetBlocks: 3,
      projectedBlocks: [full(20), { minFeeRateSatVb: 1, full: false }, { minFeeRateSatVb: 0, full: false }],
      floorSatVb: 0.1,
      smartTargetSatVb: 4.02,
      smartDaySatVb: 1,
    });
    expect(ladder.normal.satVb).toBe(4.1);
    expect(ladder.normal.derivation).toMatch(/projected block 3 is not full \(the queue clears sooner\): Core estimatesmartfee\(3\)/);
    const capped = feeLadder({
      targetBlocks: 2,
      projectedBlocks: [{ minFeeRateSatVb: 1, full: false }],
      floorSatVb: 0.1,
      smartTargetSatVb: 9,
      smartDaySatVb: 1,
    });
    expect(capped.normal.satVb).toBe(capped.urgent.satVb);
  });

  it('args: targetBlocks beyond the projection uses estimatesmartfee', () => {
    const ladder = feeLadder({ targetBlocks: 50, projectedBlocks: [full(30), full(20)], floorSatVb: 1, smartTargetSatVb: 6.04, smartDaySatVb: 3 });
    expect(ladder.normal.satVb).toBe(6.1);
    expect(ladder.normal.derivation).toMatch(/estimatesmartfee\(50\)/);
  });

  it('behavior: never below the floor, never out of order', () => {
    const ladder = feeLadder({ targetBlocks: 1, projectedBlocks: [full(0.5)], floorSatVb: 2.34, smartTargetSatVb: null, smartDaySatVb: 0.2 });
    expect(ladder.cheap.satVb).toBeGreaterThanOrEqual(2.3);
    expect(ladder.urgent.satVb).toBeGreaterThanOrEqual(ladder.normal.satVb);
    expect(ladder.normal.satVb).toBeGreaterThanOrEqual(ladder.cheap.satVb);
  });
});

describe('feeLadderAnswer', () => {
  it('behavior: a projected block filled by the transaction cap is full: its lowest rate is a cutoff, not the floor', async () => {
    const { feeLadderAnswer } = await import('../../src/api/template/templateAnswers.js');
    type Cache = Parameters<typeof feeLadderAnswer>[0]['cache'];
    // A mempool of small txs: every projected block holds max_tx_count (4000) txs of ~160 vB, far below the weight limit.
    const rates = [12, 9, 7, 6, 5, 4, 3, 2];
    const cache = {
      cachedAt: 0,
      maxTxCount: 4000,
      projectedBlocks: rates.map((r) => ({ txCount: 4000, feeSat: 0, weightWu: 2_560_000, minFeeRateSatVb: r, medianFeeRateSatVb: r, maxFeeRateSatVb: r })),
    } as unknown as Cache;
    const { ladder } = feeLadderAnswer({ cache, targetBlocks: 3, floorSatVb: 1, smartTargetSatVb: null, smartDaySatVb: null, now: Date.now() });
    expect(ladder.urgent.satVb).toBe(12.7); // 12 × 1.05 + 0.1
    expect(ladder.normal.satVb).toBe(7);
    expect(ladder.cheap.satVb).toBe(2);
  });
});
