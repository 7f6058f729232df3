/**
 * The RBF plan (`rbf_signed_replacement`): the least absolute fee a replacement of the same vsize
 * must pay, per node generation (research/linearization.md §6.1, §6.5), and a formula for other sizes.
 *
 * - v31 (this node when it reports chunks): rule 3 fee ≥ Σ originals (the tx and every descendant
 *   it evicts); rule 4 fee − Σ originals ≥ ceil(incrementalrelayfee × vsize); rule 5 ≤ 100
 *   clusters (one here); rule 6 the feerate diagram of the affected cluster strictly improves,
 *   judged with our linearizer at the planned fee (raised by binary search until it does).
 * - v30: rules 3 and 4 the same; its rule 6 (rate of the replacement, Core's integer sat/kvB,
 *   above the replaced tx's), rule 5 ≤ 100 originals, rule 2 no new unconfirmed inputs.
 * - v29.0 and older: as v30 with 1 sat/vB incremental relay and min relay fees.
 * The default plan satisfies all three (§6.5) and the target rate.
 */
import type { Chunker, DiagramTx } from '../bitcoin/feerateDiagram.js';
import { LEGACY_RELAY_FEE_SAT_KVB, MAX_REPLACEMENT_CANDIDATES } from '../bitcoin/policy.js';
import { leastImprovingFee } from './diagram.js';
import type { NodePolicy, PlanTx } from './types.js';

/** `fee(vsize) = max(baseSat + ceil(perKvbSat × vsize / 1000), ceil(minFeeRateSatKvb × vsize / 1000))`. */
export interface FeeFormula {
  baseSat: number;
  perVbSat: number;
  minFeeRateSatVb: number;
  formula: string;
}

export interface RbfPlan {
  method: 'rbf_signed_replacement';
  possible: boolean;
  reason: string | null;
  /** The replacement is assumed to keep the original's size. */
  vsize: number;
  feeSat: number;
  feeRateSatVb: number;
  additionalFeeSats: number;
  /** Least fee this node accepts at this vsize (the tight number). */
  nodeMinimumFeeSat: number;
  minimumFeeSat: { v31: number; v30: number; v29AndOlder: number; target: number };
  satisfies: { v31: boolean; v30: boolean; v29AndOlder: boolean; target: boolean };
  requiredFeeSat: { thisNode: FeeFormula; allGenerations: FeeFormula };
  evicted: Array<{ txid: string; feeSat: number; vsize: number }>;
  evictedFeeSat: number;
  /** The replacement must spend at least one of these (`txid:vout`); new inputs must be confirmed for v30 and older. */
  mustSpendOneOf: string[];
  diagram: { checked: boolean; note: string };
}

export interface RbfInputs {
  tx: PlanTx;
  inputs: readonly string[];
  descendants: readonly PlanTx[];
  cluster: readonly PlanTx[];
  policy: NodePolicy;
  targetSatVb: number;
  chunker?: Chunker;
}

const ceilDiv = (a: number, b: number): number => Math.ceil(a / b);
/** sat/vB → integer sat/kvB (Core's CFeeRate unit), rounded up so a rate never falls short. */
export const toSatKvb = (satVb: number): number => Math.ceil(satVb * 1000 - 1e-6);

/** Least fee whose Core integer rate floor(fee × 1000 / vsize) is above floor(oldFee × 1000 / oldVsize). */
function aboveRateFee(oldFee: number, oldVsize: number, vsize: number): number {
  const old = Math.floor((oldFee * 1000) / oldVsize);
  return ceilDiv((old + 1) * vsize, 1000);
}

export function diagramTx(t: PlanTx): DiagramTx {
  return { txid: t.txid, feeSat: t.feeSat, weightWu: t.weightWu, sigopCost: t.sigopCost, parents: t.parents };
}

/** Least fee ≥ `from` at which rule 6 holds for a same-size replacement of the tx. */
function diagramMinimum(inputs: RbfInputs, originals: ReadonlySet<string>, from: number, chunker: Chunker): number {
  const before = inputs.cluster.map(diagramTx);
  const kept = before.filter((t) => !originals.has(t.txid));
  // The replacement spends the same parents; its txid differs from every cluster member's.
  const replacementTxid = 'f'.repeat(64) === inputs.tx.txid ? 'e'.repeat(64) : 'f'.repeat(64);
  const parents = inputs.tx.parents.filter((p) => !originals.has(p));
  return leastImprovingFee(before, (fee) => [...kept, { ...diagramTx(inputs.tx), txid: replacementTxid, feeSat: fee, parents }], from, chunker);
}

export function planRbf(inputs: RbfInputs): RbfPlan {
  const { tx, descendants, policy, targetSatVb } = inputs;
  const v = tx.vsize;
  const originals = [tx, ...descendants];
  const originalIds = new Set(originals.map((o) => o.txid));
  const evictedFeeSat = originals.reduce((s, o) => s + o.feeSat, 0);
  const inc = policy.incrementalRelaySatKvb;
  const rule34 = evictedFeeSat + ceilDiv(inc * v, 1000);
  const v30Rate = aboveRateFee(tx.feeSat, tx.vsize, v);
  // The replacement must clear the node's floor too (min relay fee and the dynamic mempool minimum).
  const floorKvb = Math.max(policy.minRelaySatKvb, policy.mempoolMinSatKvb);
  const minRelay = ceilDiv(floorKvb * v, 1000);

  const diagram = inputs.chunker ? diagramMinimum(inputs, originalIds, Math.max(rule34, minRelay), inputs.chunker) : Math.max(rule34, minRelay);
  // Unreachable in practice (a large enough fee always improves the diagram); kept finite for JSON.
  const v31 = Number.isFinite(diagram) ? diagram : Number.MAX_SAFE_INTEGER;
  const v30 = Math.max(rule34, v30Rate, minRelay);
  const legacy = Math.max(evictedFeeSat + ceilDiv(LEGACY_RELAY_FEE_SAT_KVB * v, 1000), v30Rate, ceilDiv(LEGACY_RELAY_FEE_SAT_KVB * v, 1000));
  const targetKvb = toSatKvb(targetSatVb);
  const target = ceilDiv(targetKvb * v, 1000);
  const tooManyV30 = originals.length > MAX_REPLACEMENT_CANDIDATES;
  const feeSat = Math.max(v31, tooManyV30 ? 0 : Math.max(v30, legacy), target);
  const nodeMinimumFeeSat = policy.generation === 'v31' ? v31 : v30;
  const possible = Number.isFinite(diagram) && !(tooManyV30 && policy.generation === 'pre_v31');
  const perVbAll = Math.max(inc, LEGACY_RELAY_FEE_SAT_KVB) / 1000;
  const rateFloorAll = Math.max(targetKvb, Math.floor((tx.feeSat * 1000) / tx.vsize) + 1) / 1000;
  const formula = 'max(baseSat + ceil(perVbSat × vsize), ceil(minFeeRateSatVb × vsize))';
  return {
    method: 'rbf_signed_replacement',
    possible,
    reason: possible ? null : Number.isFinite(diagram) ? 'too_many_replacements' : 'diagram_not_improvable',
    vsize: v,
    feeSat,
    feeRateSatVb: Math.round((feeSat / v) * 1000) / 1000,
    additionalFeeSats: feeSat - tx.feeSat,
    nodeMinimumFeeSat,
    minimumFeeSat: { v31, v30, v29AndOlder: legacy, target },
    satisfies: { v31: feeSat >= v31, v30: !tooManyV30 && feeSat >= v30, v29AndOlder: !tooManyV30 && feeSat >= legacy, target: feeSat >= target },
    requiredFeeSat: {
      thisNode: {
        baseSat: evictedFeeSat,
        perVbSat: inc / 1000,
        minFeeRateSatVb: Math.max(floorKvb, policy.generation === 'pre_v31' ? Math.floor((tx.feeSat * 1000) / tx.vsize) + 1 : 0) / 1000,
        formula,
      },
      allGenerations: { baseSat: evictedFeeSat, perVbSat: perVbAll, minFeeRateSatVb: rateFloorAll, formula },
    },
    evicted: originals.map((o) => ({ txid: o.txid, feeSat: o.feeSat, vsize: o.vsize })),
    evictedFeeSat,
    mustSpendOneOf: [...inputs.inputs],
    diagram: {
      checked: inputs.chunker !== undefined,
      note: inputs.chunker
        ? `v31 rule 6 checked with our linearizer on the ${inputs.cluster.length}-transaction cluster at vsize ${v}; another size changes the diagram: re-plan if the size changes much`
        : 'rule 6 (diagram) not checked: no linearizer available',
    },
  };
}
