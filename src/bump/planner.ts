/**
 * The fee-bump planner: pure, over what `gather.ts` read (the transaction, its cluster, the node's
 * policy, the target, the cached projection). It never signs, holds or spends anything.
 *
 * Choice: `none_needed` when the effective (chunk) rate already meets the target; otherwise the
 * cheapest method by additional fee (RBF on a tie: one transaction instead of two) among those whose
 * effect meets the target (a caller's rate: by construction; a block target: its projected block
 * after the bump within targetBlocks); none does: `not_possible` with reason `target_unreachable`,
 * the effect and cost of the method that reaches the best block; `not_possible` with a reason code
 * when the tx is confirmed, replaced, unknown, or neither method can be built.
 */
import { planCpfp, type CpfpPlan } from './cpfp.js';
import { planRbf, type RbfPlan } from './rbf.js';
import type { BumpInputs, ProjectedBlockCutoff } from './types.js';

export type BumpMethod = 'rbf_signed_replacement' | 'cpfp_child' | 'none_needed' | 'not_possible';

export interface TxState {
  status: 'mempool' | 'confirmed' | 'replaced' | 'not_found';
  replacedBy: string | null;
  confirmations: number | null;
  feeSat: number | null;
  vsize: number | null;
  vsizeBip141: number | null;
  weightWu: number | null;
  ownFeeRateSatVb: number | null;
  effectiveFeeRateSatVb: number | null;
  effectiveFeeRateSource: string | null;
  version: number | null;
  cluster: { txCount: number; vsize: number } | null;
  ancestors: string[];
  descendants: string[];
  projectedBlock: number | null;
}

export interface BumpPlan {
  txid: string;
  target: { feeRateSatVb: number; source: 'caller' | 'fee_ladder'; targetBlocks: number; derivation: string; floorFeeRateSatVb: number };
  state: TxState;
  recommended: BumpMethod;
  reason: string | null;
  additionalFeeSats: number;
  rbf: RbfPlan | null;
  cpfp: CpfpPlan | null;
  effect: {
    method: BumpMethod;
    feeRateSatVb: number | null;
    projectedBlockAfter: number | null;
    earliestBlock: number | null;
    beyondProjection: boolean;
    how: string;
  } | null;
  /** Where each possible method would land the transaction (projected block, 1 = next). */
  landing: { rbf: Landing | null; cpfp: Landing | null };
  signsOrCustodiesFunds: false;
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * The optimizer's exact tail search rearranges the chunks whose rate is within this share above a
 * full block's cutoff (the native `tailWindowPct` default, 10 %): in that band fit decides, above it
 * the place is certain.
 */
export const TAIL_WINDOW = 0.1;

export interface Landing {
  /** The projected block the bumped chunk is in for certain: above the tail window of its cutoff, or a block that is not full. */
  block: number;
  /** The first block whose cutoff it meets: it may land there when the tail search fits it in. */
  earliestBlock: number;
  /** Past the projected blocks (`block` is their count + 1). */
  beyondProjection: boolean;
}

/** Where a chunk of `rateSatVb` lands in the cached projection. O(projected blocks). */
export function landingBlock(rateSatVb: number, blocks: readonly ProjectedBlockCutoff[]): Landing {
  const first = (margin: number) => {
    const k = blocks.findIndex((b) => !b.full || rateSatVb >= b.minFeeRateSatVb * margin);
    return k < 0 ? blocks.length + 1 : k + 1;
  };
  const block = first(1 + TAIL_WINDOW);
  return { block, earliestBlock: first(1), beyondProjection: block > blocks.length };
}

export function planBump(inputs: BumpInputs): BumpPlan {
  const { status, mempool: m, policy, projection } = inputs;
  const floor = Math.max(policy.minRelaySatKvb, policy.mempoolMinSatKvb) / 1000;
  // A fee-ladder target promises projected block k. At a full block's cutoff a chunk only *may* land
  // there (the tail search decides within TAIL_WINDOW above it), so the plan aims past the window.
  const promised = projection.blocks[inputs.target.targetBlocks - 1];
  const certain = inputs.target.source === 'fee_ladder' && promised?.full ? promised.minFeeRateSatVb * (1 + TAIL_WINDOW) : 0;
  const targetRate = Math.max(inputs.target.satVb, floor, certain);
  const raised =
    targetRate === inputs.target.satVb
      ? ''
      : targetRate === certain
        ? `; raised to projected block ${inputs.target.targetBlocks}'s cutoff × ${1 + TAIL_WINDOW} (${r3(certain)}) so the plan lands there for certain`
        : `; raised to the node floor ${r3(floor)}`;
  const target = {
    feeRateSatVb: r3(targetRate),
    source: inputs.target.source,
    targetBlocks: inputs.target.targetBlocks,
    derivation: `${inputs.target.derivation}${raised}`,
    floorFeeRateSatVb: r3(floor),
  };
  const state: TxState = {
    status: status.kind,
    replacedBy: status.kind === 'replaced' ? status.by : null,
    confirmations: status.kind === 'confirmed' ? status.confirmations : null,
    feeSat: m?.tx.feeSat ?? null,
    vsize: m?.tx.vsize ?? null,
    vsizeBip141: m?.tx.vsizeBip141 ?? null,
    weightWu: m?.tx.weightWu ?? null,
    ownFeeRateSatVb: m ? r3(m.tx.feeSat / m.tx.vsize) : null,
    effectiveFeeRateSatVb: m ? r3(m.effectiveRate.satVb) : null,
    effectiveFeeRateSource: m?.effectiveRate.source ?? null,
    version: m?.tx.version ?? null,
    cluster: m ? { txCount: m.cluster.length, vsize: m.cluster.reduce((s, t) => s + t.vsize, 0) } : null,
    ancestors: m ? m.ancestors.map((a) => a.txid) : [],
    descendants: m ? m.descendants.map((d) => d.txid) : [],
    projectedBlock: projection.currentBlock,
  };
  const base = { txid: inputs.txid, target, state, signsOrCustodiesFunds: false as const, landing: { rbf: null, cpfp: null } };
  if (status.kind !== 'mempool' || !m) {
    const reason = status.kind === 'mempool' ? 'not_found' : status.kind;
    return { ...base, recommended: 'not_possible', reason, additionalFeeSats: 0, rbf: null, cpfp: null, effect: null };
  }
  const rbf = planRbf({
    tx: m.tx,
    inputs: m.inputs,
    descendants: m.descendants,
    cluster: m.cluster,
    policy,
    targetSatVb: targetRate,
    ...(inputs.chunker ? { chunker: inputs.chunker } : {}),
  });
  const cpfp = planCpfp({
    tx: m.tx,
    outputs: m.outputs,
    ancestors: m.ancestors,
    descendants: m.descendants,
    cluster: { count: m.cluster.length, vsize: m.cluster.reduce((s, t) => s + t.vsize, 0) },
    policy,
    targetSatVb: targetRate,
    clusterTxs: m.cluster,
    ...(inputs.chunker ? { chunker: inputs.chunker } : {}),
  });
  const rbfRate = rbf.feeSat / rbf.vsize;
  const cpfpRate = cpfp.best ? (cpfp.package.feeSat + (cpfp.best.childFeeSat ?? 0)) / (cpfp.package.vsize + (cpfp.best.childVsize ?? 0)) : null;
  const landing = {
    rbf: rbf.possible ? landingBlock(rbfRate, projection.blocks) : null,
    cpfp: cpfpRate !== null ? landingBlock(cpfpRate, projection.blocks) : null,
  };
  if (m.effectiveRate.satVb >= targetRate) {
    const at = landingBlock(m.effectiveRate.satVb, projection.blocks);
    return {
      ...base,
      recommended: 'none_needed',
      reason: 'effective_rate_meets_target',
      additionalFeeSats: 0,
      rbf,
      cpfp,
      effect: {
        method: 'none_needed',
        feeRateSatVb: r3(m.effectiveRate.satVb),
        projectedBlockAfter: projection.currentBlock ?? at.block,
        earliestBlock: projection.currentBlock ?? at.earliestBlock,
        beyondProjection: projection.currentBlock === null && at.beyondProjection,
        how: 'unchanged',
      },
    };
  }
  const rbfCost = rbf.possible ? rbf.additionalFeeSats : Infinity;
  const cpfpCost = cpfp.best?.childFeeSat ?? Infinity;
  if (!Number.isFinite(rbfCost) && !Number.isFinite(cpfpCost)) {
    return {
      ...base,
      recommended: 'not_possible',
      reason: cpfp.reason ?? rbf.reason ?? 'not_possible',
      additionalFeeSats: 0,
      rbf,
      cpfp,
      effect: null,
      landing,
    };
  }
  // A method keeps the promise when its effect meets the target: a caller's rate is met by
  // construction; a block target when the bump lands within targetBlocks (or beyond a projection
  // shorter than the target, where the rate decides).
  const meets = (l: Landing | null): boolean =>
    l !== null && (inputs.target.source === 'caller' || (l.beyondProjection ? target.targetBlocks > projection.blocks.length : l.block <= target.targetBlocks));
  const options = [
    { method: 'rbf_signed_replacement' as const, cost: rbfCost, rate: rbfRate, landing: landing.rbf },
    { method: 'cpfp_child' as const, cost: cpfpCost, rate: cpfpRate ?? rbfRate, landing: landing.cpfp },
  ].filter((o) => Number.isFinite(o.cost));
  // Cheapest first, RBF on a tie (stable sort keeps RBF ahead).
  const byCost = [...options].sort((a, b) => a.cost - b.cost);
  const keeping = byCost.find((o) => meets(o.landing));
  const best = byCost.reduce((a, b) => ((b.landing?.block ?? Infinity) < (a.landing?.block ?? Infinity) ? b : a));
  const chosen = keeping ?? best;
  const useRbf = chosen.method === 'rbf_signed_replacement';
  const newRate = chosen.rate;
  const after = landingBlock(newRate, projection.blocks);
  return {
    ...base,
    recommended: keeping ? chosen.method : 'not_possible',
    reason: keeping ? null : 'target_unreachable',
    additionalFeeSats: chosen.cost,
    rbf,
    cpfp,
    effect: {
      method: useRbf ? 'rbf_signed_replacement' : 'cpfp_child',
      feeRateSatVb: r3(newRate),
      projectedBlockAfter: after.block,
      earliestBlock: after.earliestBlock,
      beyondProjection: after.beyondProjection,
      how: `the new chunk rate against the cutoffs of the cached projected blocks: certain above cutoff × ${1 + TAIL_WINDOW} (the optimizer's tail-search window), possibly from earliestBlock`,
    },
    landing,
  };
}
