/**
 * The CPFP plan (`cpfp_child`): for each output a child could spend, the child's fee that makes
 * the package reach the target (research/linearization.md §6.2):
 *
 *   A = the transaction and its unconfirmed ancestors whose current chunk rate is below the target
 *   v31 (chunk, sigop-adjusted weight): fee ≥ ceil(target × (Σ weight(A) + weight(child)) / 4) − Σ fee(A)
 *   v30 (ancestor score, vsize):        fee ≥ ceil(target × (Σ vsize(A) + vsize(child))) − Σ fee(A)
 *
 * and at least the min relay fee for the child's size. The child is the upper-bound shape of
 * `childSize.ts` (one input, one output), so its real size can only raise the package rate.
 * Checked: the child's output stays above dust, the cluster stays within 64 txs / 101,000 vB, and
 * TRUC (v3) topology: a v3 parent with an unconfirmed parent of its own cannot get a child (the
 * child would have two unconfirmed ancestors); a v3 child is ≤ 1,000 vB; an existing child is
 * replaced by sibling eviction, so the new child also pays rules 3 and 4 over it.
 */
import { BYTES_PER_SIGOP, WITNESS_SCALE_FACTOR } from '../bitcoin/consensus.js';
import { childShape } from './childSize.js';
import type { Chunker } from '../bitcoin/feerateDiagram.js';
import { TRUC_CHILD_MAX_VSIZE } from '../bitcoin/policy.js';
import { leastImprovingFee } from './diagram.js';
import { diagramTx, toSatKvb } from './rbf.js';
import type { NodePolicy, PlanOutput, PlanTx } from './types.js';

export interface CpfpOption {
  vout: number;
  valueSat: number;
  scriptType: string;
  address: string | null;
  usable: boolean;
  reason: string | null;
  childVsize: number | null;
  childWeightWu: number | null;
  childVersion: 2 | 3;
  assumption: string | null;
  /** The child's fee, sat (= the additional fee of this method). */
  childFeeSat: number | null;
  /** The child's one output: value − fee (without an extra input). */
  childOutputSat: number | null;
  /** `siblingEviction`: rules 3+4 over the existing child of a TRUC parent; `siblingDiagram`: rule 6 for that eviction (0 when none). */
  minimumFeeSat: { v31: number; v30: number; minRelay: number; siblingEviction: number; siblingDiagram: number } | null;
}

export interface CpfpPlan {
  method: 'cpfp_child';
  possible: boolean;
  reason: string | null;
  /** The cheapest usable option. */
  best: CpfpOption | null;
  options: CpfpOption[];
  /** The transactions the child pays for (the tx and its ancestors below the target). */
  package: { txids: string[]; feeSat: number; vsize: number; weightWu: number };
  /** `childFeeSat(vsize) = ceil(feeRateSatVb × (packageVsize + vsize)) − packageFeeSat`, at least min relay. */
  childFeeFormula: { packageVsize: number; packageFeeSat: number; feeRateSatVb: number; formula: string };
  truc: boolean;
}

export interface CpfpInputs {
  tx: PlanTx & { version: number };
  outputs: readonly PlanOutput[];
  ancestors: readonly PlanTx[];
  descendants: readonly PlanTx[];
  cluster: { count: number; vsize: number };
  policy: NodePolicy;
  targetSatVb: number;
  /** Every transaction of the cluster, for rule 6 of a TRUC sibling eviction. */
  clusterTxs?: readonly PlanTx[];
  chunker?: Chunker;
}

/** Core's chunk sizes are sigop-adjusted weights. */
const adjustedWeight = (t: PlanTx): number => Math.max(t.weightWu, t.sigopCost * BYTES_PER_SIGOP);

/** Rule 6 of a sibling eviction: the cluster without the existing child, plus the new child of `weightWu`. */
function evictionDiagram(inputs: CpfpInputs, siblings: readonly PlanTx[], weightWu: number, from: number, chunker: Chunker): number {
  const evicted = new Set(siblings.map((c) => c.txid));
  const before = (inputs.clusterTxs ?? []).map(diagramTx);
  const kept = before.filter((t) => !evicted.has(t.txid));
  const childTxid = 'f'.repeat(64);
  return leastImprovingFee(before, (fee) => [...kept, { txid: childTxid, feeSat: fee, weightWu, sigopCost: 0, parents: [inputs.tx.txid] }], from, chunker);
}

export function planCpfp(inputs: CpfpInputs): CpfpPlan {
  const { tx, policy, targetSatVb } = inputs;
  const targetKvb = toSatKvb(targetSatVb);
  const pkg = [tx, ...inputs.ancestors.filter((a) => a.chunkRateSatVb < targetSatVb)];
  const pkgFee = pkg.reduce((s, t) => s + t.feeSat, 0);
  const pkgVsize = pkg.reduce((s, t) => s + t.vsize, 0);
  const pkgWeight = pkg.reduce((s, t) => s + adjustedWeight(t), 0);
  const truc = tx.version === 3;
  const children = inputs.descendants.filter((d) => d.parents.includes(tx.txid));
  const siblingFee = truc ? inputs.descendants.reduce((s, d) => s + d.feeSat, 0) : 0;
  const topology = truc && inputs.ancestors.length > 0 ? 'truc_ancestor_limit' : null;

  const options = inputs.outputs.map((o): CpfpOption => {
    const base = { vout: o.n, valueSat: o.valueSat, scriptType: o.scriptType, address: o.address, childVersion: truc ? (3 as const) : (2 as const) };
    const none = (reason: string): CpfpOption => ({
      ...base,
      usable: false,
      reason,
      childVsize: null,
      childWeightWu: null,
      assumption: null,
      childFeeSat: null,
      childOutputSat: null,
      minimumFeeSat: null,
    });
    if (o.scriptType === 'nulldata') return none('op_return_output');
    if (o.spentBy !== null && !(truc && children.some((c) => c.txid === o.spentBy))) return none('output_already_spent');
    const shape = childShape(o.scriptType);
    if (!shape) return none('unknown_spend_size');
    const v31 = Math.max(0, Math.ceil((targetKvb * (pkgWeight + shape.weightWu)) / (1000 * WITNESS_SCALE_FACTOR)) - pkgFee);
    const v30 = Math.max(0, Math.ceil((targetKvb * (pkgVsize + shape.vsize)) / 1000) - pkgFee);
    // The child alone must clear the node's floor (min relay fee and the dynamic mempool minimum).
    const minRelay = Math.ceil((Math.max(policy.minRelaySatKvb, policy.mempoolMinSatKvb) * shape.vsize) / 1000);
    const siblingEviction = truc && children.length > 0 ? siblingFee + Math.ceil((policy.incrementalRelaySatKvb * shape.vsize) / 1000) : 0;
    const floorFee = Math.max(v31, v30, minRelay, siblingEviction);
    const siblingDiagram =
      siblingEviction > 0 && inputs.chunker && inputs.clusterTxs ? evictionDiagram(inputs, children, shape.weightWu, floorFee, inputs.chunker) : 0;
    const fee = Math.max(floorFee, Number.isFinite(siblingDiagram) ? siblingDiagram : Number.MAX_SAFE_INTEGER);
    const option: CpfpOption = {
      ...base,
      usable: true,
      reason: null,
      childVsize: shape.vsize,
      childWeightWu: shape.weightWu,
      assumption: shape.assumption,
      childFeeSat: fee,
      childOutputSat: shape.extraInput ? null : o.valueSat - fee,
      minimumFeeSat: { v31, v30, minRelay, siblingEviction, siblingDiagram: Number.isFinite(siblingDiagram) ? siblingDiagram : Number.MAX_SAFE_INTEGER },
    };
    if (topology) return { ...option, usable: false, reason: topology };
    if (!shape.extraInput && o.valueSat - fee < shape.dustSat) return { ...option, usable: false, reason: 'child_output_below_dust' };
    if (truc && shape.vsize > TRUC_CHILD_MAX_VSIZE) return { ...option, usable: false, reason: 'truc_child_too_large' };
    const removed = truc ? children.length : 0;
    const removedVsize = truc ? children.reduce((s, c) => s + c.vsize, 0) : 0;
    if (inputs.cluster.count - removed + 1 > policy.clusterCountLimit || inputs.cluster.vsize - removedVsize + shape.vsize > policy.clusterSizeLimitVb) {
      return { ...option, usable: false, reason: 'cluster_limit' };
    }
    return option;
  });
  const usable = options.filter((o) => o.usable);
  const best = usable.reduce<CpfpOption | null>((b, o) => (b === null || (o.childFeeSat ?? Infinity) < (b.childFeeSat ?? Infinity) ? o : b), null);
  const reasons = new Set(options.map((o) => o.reason));
  return {
    method: 'cpfp_child',
    possible: best !== null,
    reason: best
      ? null
      : options.length === 0
        ? 'no_spendable_output'
        : (['truc_ancestor_limit', 'cluster_limit', 'child_output_below_dust'].find((r) => reasons.has(r)) ?? 'no_spendable_output'),
    best,
    options,
    package: { txids: pkg.map((t) => t.txid), feeSat: pkgFee, vsize: pkgVsize, weightWu: pkgWeight },
    childFeeFormula: {
      packageVsize: pkgVsize,
      packageFeeSat: pkgFee,
      feeRateSatVb: targetKvb / 1000,
      formula: 'max(ceil(feeRateSatVb × (packageVsize + childVsize)) − packageFeeSat, min relay fee of the child)',
    },
    truc,
  };
}
