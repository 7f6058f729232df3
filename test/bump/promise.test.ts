/**
 * Recommendations that keep their promise (issue 21 item 6): `recommended` is the cheapest method
 * whose effect meets the target (for a block target: the projected block after the bump is within
 * targetBlocks); when none does, the plan says so (`not_possible`, reason `target_unreachable`) with
 * the best block reachable and its cost, and insight gives it its own verdict.
 */
import { describe, expect, it } from 'vitest';
import { nativeChunker } from '../../src/bump/nativeChunker.js';
import { planBump } from '../../src/bump/planner.js';
import type { BumpInputs, PlanTx } from '../../src/bump/types.js';
import { VERDICTS } from '../../src/bump/verdict.js';

const id = (c: string): string => c.repeat(64);
const me: PlanTx = { txid: id('a'), feeSat: 200, vsize: 200, weightWu: 800, sigopCost: 0, parents: [], chunkRateSatVb: 1 };

/** A low-rate tx; projected block 1 is full with a 10 sat/vB cutoff, block 2 with 2 sat/vB. */
function inputs(targetSatVb: number, targetBlocks: number, source: 'caller' | 'fee_ladder'): BumpInputs {
  return {
    txid: me.txid,
    status: { kind: 'mempool' },
    mempool: {
      tx: { ...me, version: 2, vsizeBip141: me.vsize },
      inputs: [`${id('9')}:0`],
      outputs: [{ n: 0, valueSat: 50_000, scriptType: 'witness_v0_keyhash', address: null, spentBy: null }],
      ancestors: [],
      descendants: [],
      cluster: [me],
      effectiveRate: { satVb: 1, source: 'node_chunk' },
    },
    policy: { incrementalRelaySatKvb: 100, minRelaySatKvb: 100, mempoolMinSatKvb: 0, clusterCountLimit: 64, clusterSizeLimitVb: 101_000, generation: 'v31' },
    target: { satVb: targetSatVb, source, targetBlocks, derivation: 'test' },
    projection: {
      blocks: [
        { minFeeRateSatVb: 10, full: true },
        { minFeeRateSatVb: 2, full: true },
      ],
      currentBlock: null,
    },
    chunker: nativeChunker,
  };
}

describe('recommended keeps its promise', () => {
  it('a fee-ladder target inside the tail window is raised past it: the recommended method lands in the promised block for certain', () => {
    // 10.6 sat/vB (the fee ladder's rung over a 10 sat/vB cutoff) is within the 10 % tail window: alone it is certain only in block 2.
    const plan = planBump(inputs(10.6, 1, 'fee_ladder'));
    expect(plan.target.feeRateSatVb).toBeCloseTo(11, 6);
    expect(plan.target.derivation).toMatch(/cutoff × 1\.1/);
    expect(['rbf_signed_replacement', 'cpfp_child']).toContain(plan.recommended);
    expect(plan.effect?.projectedBlockAfter).toBe(1);
  });

  it('a block target a bump reaches: the recommended method lands within it', () => {
    const plan = planBump(inputs(12, 1, 'fee_ladder'));
    expect(['rbf_signed_replacement', 'cpfp_child']).toContain(plan.recommended);
    expect(plan.effect?.projectedBlockAfter).toBeLessThanOrEqual(1);
  });

  it('for every block target, a recommended method never misses it', () => {
    for (const rate of [3, 5, 9, 10.5, 11, 15])
      for (const blocks of [1, 2, 3]) {
        const plan = planBump(inputs(rate, blocks, 'fee_ladder'));
        if (plan.recommended === 'rbf_signed_replacement' || plan.recommended === 'cpfp_child')
          expect(plan.effect?.projectedBlockAfter, `${rate} sat/vB within ${blocks}`).toBeLessThanOrEqual(blocks);
        else expect(plan.reason, `${rate} sat/vB within ${blocks}`).toBe('target_unreachable');
      }
  });

  it('a caller rate is a promise about the rate: met by construction', () => {
    const plan = planBump(inputs(10.6, 1, 'caller'));
    expect(['rbf_signed_replacement', 'cpfp_child']).toContain(plan.recommended);
    expect(plan.effect?.feeRateSatVb).toBeGreaterThanOrEqual(10.6);
  });

  it('insight has a verdict for "no method reaches the target"', () => {
    expect(VERDICTS).toContain('target_unreachable_by_bump');
  });
});
