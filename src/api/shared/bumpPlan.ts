/**
 * The bump plan as answered by `POST /v1/template/bump-plan`, `svc_bumpPlan` and the insight
 * routes: its zod schema (the shape `src/bump/planner.ts` returns) and the one function that reads
 * the node and the optimizer cache and runs the planner.
 */
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { gatherBumpInputs } from '../../bump/gather.js';
import { nativeChunker } from '../../bump/nativeChunker.js';
import { planBump, type BumpPlan } from '../../bump/planner.js';
import { chooseTarget } from '../../bump/target.js';
import type { ApiContext } from '../define.js';
import { Hash, Sat, SatVb } from '../schemas.js';
import { projectedBlockSummaries } from './templateFacts.js';

/** A desired fee rate, sat/vB (Core accepts no more than 0.1 BTC/kvB by default: 10,000 sat/vB). */
export const TargetSatVb = z.number().positive().max(10_000);

const Method = z.enum(['rbf_signed_replacement', 'cpfp_child', 'none_needed', 'not_possible']);
const Formula = z.object({ baseSat: Sat, perVbSat: z.number(), minFeeRateSatVb: SatVb, formula: z.string() });

const RbfPlan = z.object({
  method: z.literal('rbf_signed_replacement'),
  possible: z.boolean(),
  reason: z.string().nullable(),
  vsize: z.number().int(),
  feeSat: z.number(),
  feeRateSatVb: z.number(),
  additionalFeeSats: z.number(),
  nodeMinimumFeeSat: z.number(),
  minimumFeeSat: z.object({ v31: z.number(), v30: Sat, v29AndOlder: Sat, target: Sat }),
  satisfies: z.object({ v31: z.boolean(), v30: z.boolean(), v29AndOlder: z.boolean(), target: z.boolean() }),
  requiredFeeSat: z.object({ thisNode: Formula, allGenerations: Formula }),
  evicted: z.array(z.object({ txid: Hash, feeSat: Sat, vsize: z.number().int() })),
  evictedFeeSat: Sat,
  mustSpendOneOf: z.array(z.string()),
  diagram: z.object({ checked: z.boolean(), note: z.string() }),
});

const CpfpOption = z.object({
  vout: z.number().int(),
  valueSat: Sat,
  scriptType: z.string(),
  address: z.string().nullable(),
  usable: z.boolean(),
  reason: z.string().nullable(),
  childVsize: z.number().int().nullable(),
  childWeightWu: z.number().int().nullable(),
  childVersion: z.union([z.literal(2), z.literal(3)]),
  assumption: z.string().nullable(),
  childFeeSat: Sat.nullable(),
  childOutputSat: Sat.nullable(),
  minimumFeeSat: z.object({ v31: Sat, v30: Sat, minRelay: Sat, siblingEviction: Sat, siblingDiagram: Sat }).nullable(),
});

const CpfpPlan = z.object({
  method: z.literal('cpfp_child'),
  possible: z.boolean(),
  reason: z.string().nullable(),
  best: CpfpOption.nullable(),
  options: z.array(CpfpOption),
  package: z.object({ txids: z.array(Hash), feeSat: Sat, vsize: z.number().int(), weightWu: z.number().int() }),
  childFeeFormula: z.object({ packageVsize: z.number().int(), packageFeeSat: Sat, feeRateSatVb: SatVb, formula: z.string() }),
  truc: z.boolean(),
});

const Landing = z.object({ block: z.number().int(), earliestBlock: z.number().int(), beyondProjection: z.boolean() });

export const BumpPlanSchema = z.object({
  txid: Hash,
  target: z.object({
    feeRateSatVb: SatVb,
    source: z.enum(['caller', 'fee_ladder']),
    targetBlocks: z.number().int(),
    derivation: z.string(),
    floorFeeRateSatVb: SatVb,
  }),
  state: z.object({
    status: z.enum(['mempool', 'confirmed', 'replaced', 'not_found']),
    replacedBy: Hash.nullable(),
    confirmations: z.number().int().nullable(),
    feeSat: Sat.nullable(),
    vsize: z.number().int().nullable(),
    vsizeBip141: z.number().int().nullable(),
    weightWu: z.number().int().nullable(),
    ownFeeRateSatVb: SatVb.nullable(),
    effectiveFeeRateSatVb: SatVb.nullable(),
    effectiveFeeRateSource: z.string().nullable(),
    version: z.number().int().nullable(),
    cluster: z.object({ txCount: z.number().int(), vsize: z.number().int() }).nullable(),
    ancestors: z.array(Hash),
    descendants: z.array(Hash),
    projectedBlock: z.number().int().nullable(),
  }),
  recommended: Method,
  reason: z.string().nullable(),
  additionalFeeSats: Sat,
  rbf: RbfPlan.nullable(),
  cpfp: CpfpPlan.nullable(),
  effect: z
    .object({
      method: Method,
      feeRateSatVb: SatVb.nullable(),
      projectedBlockAfter: z.number().int().nullable(),
      earliestBlock: z.number().int().nullable(),
      beyondProjection: z.boolean(),
      how: z.string(),
    })
    .nullable(),
  landing: z.object({ rbf: Landing.nullable(), cpfp: Landing.nullable() }),
  signsOrCustodiesFunds: z.literal(false),
  /** The optimizer cycle the projection comes from; null when none has published. */
  cachedAt: z.string().nullable(),
});

export const BumpPlanAnswer = BumpPlanSchema.extend({ success: z.literal(true), note: z.string() });

export const BUMP_NOTE =
  'A plan, not a promise: fees are exact for the node as of now (rules 3-6, cluster limits); the service never signs, holds or spends funds. Sign the replacement or child yourself and relay it with POST /v1/bitcoin/insight (action broadcast_signed_replacement) or any node.';

/** Reads the node and the cache and plans. Without `targetSatVb` the optimizer cache is required (503 before its first cycle). */
export async function bumpPlanFor(
  ctx: ApiContext,
  txid: string,
  targetBlocks: number,
  targetSatVb: number | undefined,
): Promise<BumpPlan & { cachedAt: string | null }> {
  const cache = ctx.optimizer.service.cache;
  if (!cache && targetSatVb === undefined) {
    throw new Errors.TEMPLATE_NOT_READY('the optimizer has not published a projection yet: pass targetSatVb, or retry shortly');
  }
  const projectedBlocks = cache ? projectedBlockSummaries(cache) : [];
  const needSmart = targetSatVb === undefined;
  const [smartTargetSatVb, smartDaySatVb] = needSmart ? await Promise.all([ctx.fees.smartFees.get(targetBlocks), ctx.fees.smartFees.get(144)]) : [null, null];
  const target = chooseTarget({ targetSatVb, targetBlocks, projectedBlocks, floorSatVb: ctx.fees.floorFeeRateSatVb(), smartTargetSatVb, smartDaySatVb });
  const inputs = await gatherBumpInputs(
    {
      node: ctx.node,
      cache,
      projectedBlocks,
      replacedBy: (t) => ctx.mempool.tracker.history(t).replacedBy?.txid ?? null,
      chunker: nativeChunker,
    },
    txid,
    target,
  );
  return { ...planBump(inputs), cachedAt: cache ? new Date(cache.cachedAt).toISOString() : null };
}
