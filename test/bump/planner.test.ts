import { describe, expect, it } from 'vitest';
import { childShape } from '../../src/bump/childSize.js';
import { nativeChunker } from '../../src/bump/nativeChunker.js';
import { landingBlock, planBump } from '../../src/bump/planner.js';
import type { BumpInputs, NodePolicy, PlanOutput, PlanTx } from '../../src/bump/types.js';

const id = (c: string): string => c.repeat(64);
const POLICY: NodePolicy = {
  incrementalRelaySatKvb: 100,
  minRelaySatKvb: 100,
  mempoolMinSatKvb: 0,
  clusterCountLimit: 64,
  clusterSizeLimitVb: 101_000,
  generation: 'v31',
};

function tx(txid: string, feeSat: number, vsize: number, parents: string[] = [], chunkRateSatVb = feeSat / vsize): PlanTx {
  return { txid, feeSat, vsize, weightWu: vsize * 4, sigopCost: 0, parents, chunkRateSatVb };
}

function output(n: number, valueSat: number, scriptType = 'witness_v0_keyhash', spentBy: string | null = null): PlanOutput {
  return { n, valueSat, scriptType, address: null, spentBy };
}

interface World {
  me?: PlanTx;
  version?: number;
  ancestors?: PlanTx[];
  descendants?: PlanTx[];
  outputs?: PlanOutput[];
  effective?: number;
  target?: number;
  policy?: Partial<NodePolicy>;
  others?: PlanTx[];
}

function inputs(w: World = {}): BumpInputs {
  const me = w.me ?? tx(id('a'), 200, 200);
  const ancestors = w.ancestors ?? [];
  const descendants = w.descendants ?? [];
  return {
    txid: me.txid,
    status: { kind: 'mempool' },
    mempool: {
      tx: { ...me, version: w.version ?? 2, vsizeBip141: me.vsize },
      inputs: [`${id('9')}:0`],
      outputs: w.outputs ?? [output(0, 50_000)],
      ancestors,
      descendants,
      cluster: [...ancestors, me, ...descendants, ...(w.others ?? [])],
      effectiveRate: { satVb: w.effective ?? me.chunkRateSatVb, source: 'node_chunk' },
    },
    policy: { ...POLICY, ...w.policy },
    target: { satVb: w.target ?? 5, source: 'caller', targetBlocks: 1, derivation: 'test' },
    projection: {
      blocks: [
        { minFeeRateSatVb: 4, full: true },
        { minFeeRateSatVb: 2, full: true },
      ],
      currentBlock: null,
    },
    chunker: nativeChunker,
  };
}

describe('RBF plan', () => {
  it('asks rule 3 + rule 4 at the node incremental fee, exactly, and more for older nodes', () => {
    // 1,000 sat / 200 vB at 1 sat/vB target: rules 3+4 = 1,000 + ceil(0.1 × 200) = 1,020.
    const plan = planBump(inputs({ me: tx(id('a'), 1_000, 200), target: 1, effective: 0.5 }));
    expect(plan.rbf?.nodeMinimumFeeSat).toBe(1_020);
    expect(plan.rbf?.minimumFeeSat.v31).toBe(1_020);
    // v30: the same, and a Core integer rate above 5,000 sat/kvB: ceil(5,001 × 200 / 1000) = 1,001.
    expect(plan.rbf?.minimumFeeSat.v30).toBe(1_020);
    // v29 and older: 1 sat/vB incremental: 1,000 + 200.
    expect(plan.rbf?.minimumFeeSat.v29AndOlder).toBe(1_200);
    expect(plan.rbf?.feeSat).toBe(1_200);
    expect(plan.rbf?.satisfies).toEqual({ v31: true, v30: true, v29AndOlder: true, target: true });
    expect(plan.rbf?.requiredFeeSat.thisNode).toMatchObject({ baseSat: 1_000, perVbSat: 0.1 });
  });

  it('pays for every descendant it evicts', () => {
    const me = tx(id('a'), 1_000, 200);
    const kids = [tx(id('b'), 3_000, 150, [me.txid]), tx(id('c'), 500, 100, [id('b')])];
    const plan = planBump(inputs({ me, descendants: kids, target: 1, effective: 0.5 }));
    expect(plan.rbf?.evictedFeeSat).toBe(4_500);
    expect(plan.rbf?.evicted.map((e) => e.txid)).toEqual([me.txid, id('b'), id('c')]);
    expect(plan.rbf?.nodeMinimumFeeSat).toBe(4_520);
    expect(plan.rbf?.diagram.checked).toBe(true);
  });

  it('raises the fee to the target rate when that is higher', () => {
    const plan = planBump(inputs({ me: tx(id('a'), 1_000, 200), target: 12.5 }));
    expect(plan.rbf?.minimumFeeSat.target).toBe(2_500);
    expect(plan.rbf?.feeSat).toBe(2_500);
    expect(plan.rbf?.additionalFeeSats).toBe(1_500);
  });

  it('on a node before v31 the rate must rise above the replaced transaction (Core integer sat/kvB)', () => {
    // 1,001 sat / 333 vB = 3,006 sat/kvB; the node's rules 3+4 give 1,001 + 34 = 1,035 which is 3,108 sat/kvB: enough.
    const plan = planBump(inputs({ me: tx(id('a'), 1_001, 333), target: 1, effective: 0.5, policy: { generation: 'pre_v31', incrementalRelaySatKvb: 0 } }));
    // With no incremental fee, rule 3 alone would allow 1,001; the rate rule asks ceil(3,007 × 333 / 1000) = 1,002.
    expect(plan.rbf?.nodeMinimumFeeSat).toBe(1_002);
  });
});

describe('CPFP plan', () => {
  it('lifts the package to the target with a 1-in-1-out child', () => {
    // Parent 200 sat / 200 vB; P2WPKH child 110 vB (438 WU); target 5 sat/vB.
    // v30: ceil(5 × 310) − 200 = 1,350; v31 by weight: ceil(5 × (800 + 438) / 4) − 200 = 1,348.
    const plan = planBump(inputs({ target: 5 }));
    expect(plan.cpfp?.best?.childVsize).toBe(110);
    expect(plan.cpfp?.best?.minimumFeeSat).toMatchObject({ v30: 1_350, v31: 1_348 });
    expect(plan.cpfp?.best?.childFeeSat).toBe(1_350);
    expect(plan.cpfp?.best?.childOutputSat).toBe(50_000 - 1_350);
    // RBF pays the target on 200 vB only: 1,000 − 200 = 800 more, cheaper than the 1,350-sat child.
    expect([plan.recommended, plan.additionalFeeSats]).toEqual(['rbf_signed_replacement', 800]);
  });

  it('counts only ancestors whose chunk rate is below the target', () => {
    const rich = tx(id('1'), 10_000, 100);
    const poor = tx(id('2'), 100, 100);
    const me = tx(id('a'), 200, 200, [rich.txid, poor.txid]);
    const plan = planBump(inputs({ me, ancestors: [rich, poor], target: 5 }));
    expect(plan.cpfp?.package.txids.sort()).toEqual([id('2'), id('a')].sort());
    // v30: ceil(5 × (300 + 110)) − 300 = 1,750.
    expect(plan.cpfp?.best?.childFeeSat).toBe(1_750);
  });

  it('refuses children whose output would be dust, OP_RETURN and spent outputs, and says why', () => {
    const plan = planBump(
      inputs({
        outputs: [output(0, 1_500), output(1, 0, 'nulldata'), output(2, 90_000, 'witness_v1_taproot', id('f')), output(3, 9_000, 'witness_v0_scripthash')],
      }),
    );
    expect(plan.cpfp?.options.map((o) => o.reason)).toEqual(['child_output_below_dust', 'op_return_output', 'output_already_spent', 'unknown_spend_size']);
    expect(plan.cpfp?.possible).toBe(false);
    expect(plan.recommended).toBe('rbf_signed_replacement');
  });

  it('respects the cluster limits', () => {
    const others = Array.from({ length: 63 }, (_, i) => tx(i.toString(16).padStart(64, '0'), 100, 100));
    const plan = planBump(inputs({ others }));
    expect(plan.cpfp?.best).toBeNull();
    expect(plan.cpfp?.reason).toBe('cluster_limit');
  });

  it('a TRUC transaction with an unconfirmed parent cannot get a child', () => {
    const parent = tx(id('1'), 0, 100);
    const me = tx(id('a'), 200, 200, [parent.txid]);
    const plan = planBump(inputs({ me, ancestors: [parent], version: 3 }));
    expect(plan.cpfp?.reason).toBe('truc_ancestor_limit');
    expect(plan.cpfp?.truc).toBe(true);
  });

  it('a TRUC child evicting its sibling also pays rules 3 and 4 over it', () => {
    const me = tx(id('a'), 200, 200);
    const sibling = tx(id('b'), 5_000, 100, [me.txid]);
    const plan = planBump(inputs({ me, descendants: [sibling], version: 3, outputs: [output(0, 50_000, 'witness_v0_keyhash', sibling.txid)], target: 5 }));
    expect(plan.cpfp?.best?.minimumFeeSat?.siblingEviction).toBe(5_000 + 11);
    // Rule 6: the parent's chunk was 5,200 sat over 1,200 WU; the new one (parent + 438-WU child)
    // must be at least as high at 1,200 WU: (200 + fee) × 1,200 / 1,238 ≥ 5,200 → fee ≥ 5,165.
    expect(plan.cpfp?.best?.minimumFeeSat?.siblingDiagram).toBe(5_165);
    expect(plan.cpfp?.best?.childFeeSat).toBe(5_165);
    expect(plan.cpfp?.best?.childVersion).toBe(3);
  });
});

describe('choice', () => {
  it('none_needed when the effective rate already meets the target', () => {
    const plan = planBump(inputs({ me: tx(id('a'), 200, 200, [], 1), effective: 6, target: 5 }));
    expect(plan.recommended).toBe('none_needed');
    expect(plan.additionalFeeSats).toBe(0);
    expect(plan.signsOrCustodiesFunds).toBe(false);
  });

  it('not_possible with the status as reason when the tx is not in the mempool', () => {
    const base = inputs();
    const confirmed = planBump({ ...base, status: { kind: 'confirmed', confirmations: 3, blockHash: null }, mempool: undefined });
    expect([confirmed.recommended, confirmed.reason]).toEqual(['not_possible', 'confirmed']);
    const replaced = planBump({ ...base, status: { kind: 'replaced', by: id('e') }, mempool: undefined });
    expect([replaced.reason, replaced.state.replacedBy]).toEqual(['replaced', id('e')]);
  });

  it('recommends the cheaper method and never goes below the node floor', () => {
    // A big parent makes CPFP expensive (it pays for 2,000 vB), RBF pays the target on its own size too: the same here, so compare.
    const plan = planBump(inputs({ me: tx(id('a'), 2_000, 2_000), target: 3, policy: { mempoolMinSatKvb: 4_000 } }));
    expect(plan.target.feeRateSatVb).toBe(4);
    const rbf = plan.rbf?.additionalFeeSats ?? Infinity;
    const cpfp = plan.cpfp?.best?.childFeeSat ?? Infinity;
    expect(plan.additionalFeeSats).toBe(Math.min(rbf, cpfp));
  });

  it('lands the bumped chunk surely above a cutoff’s tail window, possibly from the first cutoff it meets', () => {
    const blocks = [
      { minFeeRateSatVb: 10, full: true },
      { minFeeRateSatVb: 4, full: true },
      { minFeeRateSatVb: 1, full: false },
    ];
    expect(landingBlock(12, blocks)).toEqual({ block: 1, earliestBlock: 1, beyondProjection: false });
    // At block 1's cutoff but inside its tail-search window (10 %): block 1 possibly, block 2 surely.
    expect(landingBlock(10.5, blocks)).toEqual({ block: 2, earliestBlock: 1, beyondProjection: false });
    expect(landingBlock(4, blocks)).toEqual({ block: 3, earliestBlock: 2, beyondProjection: false });
    expect(landingBlock(0.5, blocks)).toEqual({ block: 3, earliestBlock: 3, beyondProjection: false });
    expect(landingBlock(0.5, blocks.slice(0, 2))).toEqual({ block: 3, earliestBlock: 3, beyondProjection: true });
  });
});

describe('child sizes', () => {
  it('are the upper bounds of a 1-in-1-out spend per script type', () => {
    expect(childShape('witness_v0_keyhash')?.vsize).toBe(110);
    expect(childShape('witness_v1_taproot')?.vsize).toBe(111);
    expect(childShape('pubkeyhash')?.vsize).toBe(192);
    expect(childShape('scripthash')?.vsize).toBe(134);
    expect(childShape('witness_v0_scripthash')).toBeUndefined();
  });
});
