/**
 * What a template route and its `svc_*` method both do, once: read the published cache (503 before
 * the first cycle), check a batch, build the fee ladder, plan a bump, and the checks run before
 * payment. The REST handlers (`endpoints.ts`) and the JSON-RPC runners (`methods.ts`) only unpack
 * their input and call these.
 */
import type { z } from 'zod';
import type { TemplateCache } from '../../optimizer/cache/templateCache.js';
import type { ApiContext } from '../define.js';
import { snapshotAge } from '../freshness.js';
import { BUMP_NOTE, bumpPlanFor, type BumpPlanAnswer } from '../shared/bumpPlan.js';
import { assertAnyTxKnown, assertTxKnown } from '../txKnown.js';
import type { BatchCheckAnswer, BumpPlanRequest } from './endpoints.schemas.js';
import { feeLadderAnswer, requireCache, templateCheck, type FeeLadderAnswer } from './templateAnswers.js';

export const BUMP_DESCRIPTION =
  'Non-custodial RBF and CPFP plan for any mempool transaction: the least fee a replacement of the same size must pay on this node (rules 3 and 4 over the tx and every descendant it evicts at incrementalrelayfee, rule 6 checked with our linearizer) and on v30 / v29-and-older nodes, a per-size formula, the evicted txids, the inputs to keep; per spendable output the CPFP child fee that lifts the package to the target (v31 chunk and v30 ancestor math), dust, cluster and TRUC checks; the cheaper method as `recommended`, and the projected block after the bump. Target: targetSatVb, else the fee ladder normal rung for targetBlocks, never below the node floor. See docs/bump.md.';

/** The published cache, or 503 `TEMPLATE_NOT_READY`. */
export function cache(ctx: ApiContext): TemplateCache {
  return requireCache(ctx.optimizer.service, ctx.optimizer.enabled);
}

/** Before payment: not ready (503) before not found (404). */
export async function checkTemplateTx(ctx: ApiContext, txid: string): Promise<void> {
  cache(ctx);
  await assertTxKnown(ctx, txid);
}

/** Before payment: not ready (503), then at least one txid known (404 otherwise). */
export async function checkTemplateTxs(ctx: ApiContext, txids: readonly string[]): Promise<void> {
  cache(ctx);
  await assertAnyTxKnown(ctx, txids);
}

export function batchCheck(ctx: ApiContext, txids: readonly string[], targetBlocks: number): z.input<typeof BatchCheckAnswer> {
  const current = cache(ctx);
  const now = ctx.now();
  const results = txids.map((txid) => templateCheck(current, txid, targetBlocks, now));
  return {
    success: true,
    targetBlocks,
    count: results.length,
    ...snapshotAge(now, current.cachedAt),
    cachedAt: new Date(current.cachedAt).toISOString(),
    results,
  };
}

export async function ladder(ctx: ApiContext, targetBlocks: number): Promise<z.input<typeof FeeLadderAnswer>> {
  const current = cache(ctx);
  const [smartTargetSatVb, smartDaySatVb] = await Promise.all([ctx.fees.smartFees.get(targetBlocks), ctx.fees.smartFees.get(144)]);
  return feeLadderAnswer({ cache: current, targetBlocks, floorSatVb: ctx.fees.floorFeeRateSatVb(), smartTargetSatVb, smartDaySatVb, now: ctx.now() });
}

export async function bumpPlan(ctx: ApiContext, req: z.output<typeof BumpPlanRequest>): Promise<z.input<typeof BumpPlanAnswer>> {
  const plan = await bumpPlanFor(ctx, req.txid, req.targetBlocks, req.targetSatVb);
  return { success: true, ...plan, note: BUMP_NOTE };
}
