/**
 * Template intelligence as `svc_*` JSON-RPC methods: the same answers as the REST routes of
 * `endpoints.ts`, each method's runner the named function above the declarations.
 */
import { z } from 'zod';
import { defineRpcMethod, type ApiContext } from '../define.js';
import { strictObject } from '../schemas.js';
import { BumpPlanAnswer } from '../shared/bumpPlan.js';
import { EXAMPLE_BUMP_PLAN } from '../shared/bumpPlan.examples.js';
import { OPTIMIZED_TXIDS_MAX } from '../shared/requestLimits.js';
import { assertTxKnown } from '../txKnown.js';
import { EXAMPLE_BATCH_CHECK, EXAMPLE_CHECK, EXAMPLE_HEALTH, EXAMPLE_LADDER, EXAMPLE_OPTIMIZED_TXIDS, EXAMPLE_TXID } from './endpoints.examples.js';
import { BatchCheckAnswer, BatchTxidRequest, BumpPlanRequest, OptimizedTxidsObject, TargetBlocksObject, TxidRequest } from './endpoints.schemas.js';
import {
  FeeLadderAnswer,
  OptimizedTxidsAnswer,
  optimizedTxidsAnswer,
  TemplateCheck,
  templateCheck,
  TemplateHealth,
  templateHealth,
} from './templateAnswers.js';
import { batchCheck, BUMP_DESCRIPTION, bumpPlan, cache, checkTemplateTx, checkTemplateTxs, ladder } from './templateCalls.js';

const NoParams = z.union([z.tuple([]), z.tuple([strictObject({})])]);
const TxidParams = z.tuple([TxidRequest]);
const BatchParams = z.tuple([BatchTxidRequest]);
const LadderParams = z.union([z.tuple([]), z.tuple([TargetBlocksObject])]);
const BumpParams = z.tuple([BumpPlanRequest]);
const OptimizedTxidsParams = z.union([z.tuple([]), z.tuple([OptimizedTxidsObject])]);
type Params<T extends z.ZodType> = z.output<T>;

async function svcTemplateHealth(ctx: ApiContext): Promise<z.input<typeof TemplateHealth>> {
  return templateHealth(ctx.optimizer.service, ctx.optimizer.enabled, ctx.now());
}

async function checkTxidParam(ctx: ApiContext, [req]: Params<typeof TxidParams>): Promise<void> {
  await checkTemplateTx(ctx, req.txid);
}

async function svcTemplateCheck(ctx: ApiContext, [{ txid, targetBlocks }]: Params<typeof TxidParams>): Promise<z.input<typeof TemplateCheck>> {
  return templateCheck(cache(ctx), txid, targetBlocks, ctx.now());
}

async function checkTxidsParam(ctx: ApiContext, [req]: Params<typeof BatchParams>): Promise<void> {
  await checkTemplateTxs(ctx, req.txids);
}

async function svcTemplateBatchCheck(ctx: ApiContext, [{ txids, targetBlocks }]: Params<typeof BatchParams>): Promise<z.input<typeof BatchCheckAnswer>> {
  return batchCheck(ctx, txids, targetBlocks);
}

async function svcFeeLadder(ctx: ApiContext, params: Params<typeof LadderParams>): Promise<z.input<typeof FeeLadderAnswer>> {
  return ladder(ctx, params[0]?.targetBlocks ?? 6);
}

async function checkBumpParam(ctx: ApiContext, [req]: Params<typeof BumpParams>): Promise<void> {
  await assertTxKnown(ctx, req.txid);
}

async function svcBumpPlan(ctx: ApiContext, [req]: Params<typeof BumpParams>): Promise<z.input<typeof BumpPlanAnswer>> {
  return bumpPlan(ctx, req);
}

async function svcOptimizedTxids(ctx: ApiContext, params: Params<typeof OptimizedTxidsParams>): Promise<z.input<typeof OptimizedTxidsAnswer>> {
  return optimizedTxidsAnswer(cache(ctx), params[0]?.maxTxids ?? OPTIMIZED_TXIDS_MAX, ctx.now());
}

export const templateMethods = [
  defineRpcMethod({
    family: 'template',
    name: 'svc_templateHealth',
    price: 'free',
    summary: 'Optimizer cache readiness (as GET /v1/template/health)',
    params: NoParams,
    result: TemplateHealth,
    errors: [],
    example: { params: [], result: EXAMPLE_HEALTH },
  }).run(svcTemplateHealth),

  defineRpcMethod({
    family: 'template',
    name: 'svc_templateCheck',
    snapshot: 'optimizer',
    price: 0.01,
    summary: 'As POST /v1/template/check; params [{txid, targetBlocks?}]',
    params: TxidParams,
    result: TemplateCheck,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY'],
    example: { params: [{ txid: EXAMPLE_TXID, targetBlocks: 6 }], result: EXAMPLE_CHECK },
    precheck: checkTxidParam,
  }).run(svcTemplateCheck),

  defineRpcMethod({
    family: 'template',
    name: 'svc_templateBatchCheck',
    snapshot: 'optimizer',
    price: 0.05,
    summary: 'As POST /v1/template/batch-check; params [{txids, targetBlocks?}]',
    params: BatchParams,
    result: BatchCheckAnswer,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY'],
    example: {
      params: [{ txids: [EXAMPLE_TXID], targetBlocks: 6 }],
      result: EXAMPLE_BATCH_CHECK,
    },
    precheck: checkTxidsParam,
  }).run(svcTemplateBatchCheck),

  defineRpcMethod({
    family: 'template',
    name: 'svc_feeLadder',
    snapshot: 'optimizer',
    price: 0.01,
    summary: 'As POST /v1/template/fee-ladder; params [{targetBlocks?}]',
    params: LadderParams,
    result: FeeLadderAnswer,
    errors: ['TEMPLATE_NOT_READY', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [{ targetBlocks: 6 }], result: EXAMPLE_LADDER },
  }).run(svcFeeLadder),

  defineRpcMethod({
    family: 'template',
    name: 'svc_bumpPlan',
    price: 0.01,
    summary: 'As POST /v1/template/bump-plan; params [{txid, targetSatVb?, targetBlocks?}]',
    description: BUMP_DESCRIPTION,
    params: BumpParams,
    result: BumpPlanAnswer,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [{ txid: EXAMPLE_BUMP_PLAN.txid, targetSatVb: 5 }], result: EXAMPLE_BUMP_PLAN },
    precheck: checkBumpParam,
  }).run(svcBumpPlan),

  defineRpcMethod({
    family: 'template',
    name: 'svc_optimizedTxids',
    snapshot: 'optimizer',
    price: 0.05,
    summary: 'As POST /v1/template/optimized-txids; params [{maxTxids?}]',
    params: OptimizedTxidsParams,
    result: OptimizedTxidsAnswer,
    errors: ['TEMPLATE_NOT_READY'],
    example: { params: [{ maxTxids: 2 }], result: EXAMPLE_OPTIMIZED_TXIDS },
  }).run(svcOptimizedTxids),
];
