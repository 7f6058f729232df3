/**
 * The mining policy seam (`MempoolPolicy`, here the project's Core-v31 policy through the native
 * optimizer, as the node is built with) and RBF rule 6's diagram comparison, on small graphs whose
 * answers are known by hand, and on random DAGs checked for the invariants every policy must keep.
 */
import { describe, expect, it } from 'vitest';
import { mempoolPolicy } from '../../src/optimizer/binding/coreV31Policy.js';
import { assertPolicyInput, checkedPolicy, type MempoolPolicy, type PolicyInput } from '../../src/simnet/mempool/policy.js';
import { improvesDiagram } from '../../src/bitcoin/feerateDiagram.js';
import { FeeEstimator } from '../../src/simnet/mining/feeEstimator.js';
import { Mempool } from '../../src/simnet/mempool/mempool.js';
import { MempoolView } from '../../src/simnet/mining/mempoolView.js';
import { Rng } from '../../src/simnet/util/random.js';

/** The adapter matches simnet's policy type structurally (this line fails to compile if it drifts). */
const runMempoolPolicy: MempoolPolicy = mempoolPolicy;

function graph(txs: Array<{ fee: number; weight: number; parents?: number[] }>): PolicyInput {
  const parentOffsets = new Uint32Array(txs.length + 1);
  const parents: number[] = [];
  txs.forEach((t, i) => {
    parents.push(...(t.parents ?? []));
    parentOffsets[i + 1] = parents.length;
  });
  return {
    feeSat: Float64Array.from(txs, (t) => t.fee),
    weightWu: Uint32Array.from(txs, (t) => t.weight),
    sigopCost: new Uint32Array(txs.length),
    parentOffsets,
    parentIndices: Uint32Array.from(parents),
    txidRank: Uint32Array.from(txs, (_, i) => i),
  };
}

describe('mempool policy', () => {
  it('default: a CPFP pair forms one chunk and is mined parents-first before a middling tx', () => {
    // 0: low-fee parent (1 sat/vB), 1: its child (60 sat/vB), 2: independent at 20 sat/vB.
    const r = runMempoolPolicy(
      graph([
        { fee: 400, weight: 1600 },
        { fee: 24_000, weight: 1600, parents: [0] },
        { fee: 8_000, weight: 1600 },
      ]),
    );
    expect([...r.templateIndices]).toEqual([0, 1, 2]);
    expect(r.txChunkFeeSat[0]).toBe(24_400);
    expect(r.txChunkFeeSat[1]).toBe(24_400);
    expect(r.txChunkWeightWu[0]).toBe(3200);
    expect(r.txChunkFeeSat[2]).toBe(8_000);
  });

  it('behavior: a high-fee parent with a low-fee child keeps separate chunks', () => {
    const r = runMempoolPolicy(
      graph([
        { fee: 40_000, weight: 1000 },
        { fee: 300, weight: 1000, parents: [0] },
      ]),
    );
    expect(r.txChunkFeeSat[0]).toBe(40_000);
    expect(r.txChunkFeeSat[1]).toBe(300);
  });

  it('behavior: on random DAGs the template is topological, within the weight limit, and chunks never beat their parents’', () => {
    const rng = new Rng(9, 'dag');
    for (let round = 0; round < 20; round++) {
      const n = rng.int(50, 400);
      const txs = Array.from({ length: n }, (_, i) => ({
        fee: rng.int(100, 100_000),
        weight: rng.int(400, 400_000),
        parents: i > 0 && rng.chance(0.4) ? [...new Set([rng.int(Math.max(0, i - 10), i - 1), rng.int(0, i - 1)])] : [],
      }));
      const input = graph(txs);
      assertPolicyInput(input);
      const r = runMempoolPolicy(input);
      const position = new Map([...r.templateIndices].map((t, k) => [t, k]));
      let weight = 0;
      for (const t of r.templateIndices) {
        weight += txs[t]!.weight;
        for (const p of txs[t]!.parents) expect(position.get(p)).toBeLessThan(position.get(t)!);
      }
      expect(weight).toBeLessThan(4_000_000 - 8_000);
      txs.forEach((t, i) => {
        const rate = r.txChunkFeeSat[i]! / r.txChunkWeightWu[i]!;
        for (const p of t.parents) expect(r.txChunkFeeSat[p]! / r.txChunkWeightWu[p]! + 1e-12).toBeGreaterThanOrEqual(rate);
      });
    }
  });

  it('error: malformed CSR input is refused before the policy runs', () => {
    const bad = graph([{ fee: 1, weight: 400, parents: [0] }]);
    expect(() => assertPolicyInput(bad)).toThrow(/parent index/);
    expect(() => assertPolicyInput({ ...graph([{ fee: 1, weight: 400 }]), txidRank: new Uint32Array(2) })).toThrow(/lengths/);
  });

  it('error: a handed-in policy whose result does not fit its input is refused', () => {
    const input = graph([{ fee: 1000, weight: 400 }]);
    const answer = { templateIndices: new Uint32Array([0]), txChunkFeeSat: new Float64Array([1000]), txChunkWeightWu: new Uint32Array([400]), optimal: true };
    expect(checkedPolicy(() => answer)(input)).toBe(answer);
    expect(() => checkedPolicy(() => ({ ...answer, templateIndices: new Uint32Array([1]) }))(input)).toThrow(/template index/);
    expect(() => checkedPolicy(() => ({ ...answer, templateIndices: new Uint32Array([0, 0]) }))(input)).toThrow(/template/);
    expect(() => checkedPolicy(() => ({ ...answer, txChunkFeeSat: new Float64Array(0) }))(input)).toThrow(/chunk arrays/);
  });
});

describe('feerate diagrams (RBF rule 6)', () => {
  it('default: strictly better everywhere-or-equal diagrams improve, equal ones do not', () => {
    const old = [{ weight: 400, fee: 4000 }];
    expect(improvesDiagram([{ weight: 400, fee: 4001 }], old)).toBe(true);
    expect(improvesDiagram([{ weight: 400, fee: 4000 }], old)).toBe(false);
  });

  it('behavior: more total fee at a lower feerate is not an improvement (the diagram dips below)', () => {
    // Old: 1000 sats in 400 WU. New: 1100 sats in 4000 WU → at 400 WU it has only 110.
    expect(improvesDiagram([{ weight: 4000, fee: 1100 }], [{ weight: 400, fee: 1000 }])).toBe(false);
    // New pays 1000 in 200 WU then the diagram extends flat: better everywhere.
    expect(improvesDiagram([{ weight: 200, fee: 1000 }], [{ weight: 400, fee: 1000 }])).toBe(true);
  });
});

describe('fee estimator', () => {
  it('error: no blocks with transactions and an empty mempool answer Core’s "Insufficient data" error', () => {
    const view = new MempoolView(new Mempool(), runMempoolPolicy);
    expect(new FeeEstimator().estimate(6, 'economical', view)).toEqual({ blocks: 6, errors: ['Insufficient data or no feerate found'] });
  });
});
