/**
 * The template `svc_*` methods: the same answers as the REST template routes (`templateAnswers.ts`),
 * with the request object as the single element of `params`.
 */
import { z } from 'zod';
import { BatchTxidRequest, TargetBlocksRequest, TxidRequest } from '../template.js';
import { feeLadderAnswer, requireCache, templateCheck, templateHealth } from '../templateAnswers.js';
import { defineRpcMethod, type RpcContext } from './rpcMethod.js';

const now = (ctx: RpcContext) => (ctx.deps.now ?? Date.now)();
const cache = (ctx: RpcContext) => requireCache(ctx.app.optimizer.service, ctx.app.optimizer.enabled);

/** `svc_templateHealth []` (free): optimizer cache readiness. */
export const svcTemplateHealth = defineRpcMethod({
  name: 'svc_templateHealth',
  params: z.union([z.tuple([]), z.tuple([z.object({})])]),
  run: async (ctx) => templateHealth(ctx.app.optimizer.service, ctx.app.optimizer.enabled, now(ctx)),
});

/** `svc_templateCheck [{txid, targetBlocks?}]`: as `POST /v1/template/check`. */
export const svcTemplateCheck = defineRpcMethod({
  name: 'svc_templateCheck',
  params: z.tuple([TxidRequest]),
  run: async (ctx, [{ txid, targetBlocks }]) => templateCheck(cache(ctx), txid, targetBlocks, now(ctx)),
});

/** `svc_templateBatchCheck [{txids, targetBlocks?}]`: as `POST /v1/template/batch-check`. */
export const svcTemplateBatchCheck = defineRpcMethod({
  name: 'svc_templateBatchCheck',
  params: z.tuple([BatchTxidRequest]),
  run: async (ctx, [{ txids, targetBlocks }]) => {
    const current = cache(ctx);
    const results = txids.map((txid) => templateCheck(current, txid, targetBlocks, now(ctx)));
    return { success: true, targetBlocks, count: results.length, cachedAt: results[0]!.cachedAt, results };
  },
});

/** `svc_feeLadder [{targetBlocks?}]`: as `POST /v1/template/fee-ladder`. */
export const svcFeeLadder = defineRpcMethod({
  name: 'svc_feeLadder',
  params: z.union([z.tuple([]), z.tuple([TargetBlocksRequest])]),
  run: async (ctx, params) => {
    const targetBlocks = params[0]?.targetBlocks ?? 6;
    const current = cache(ctx);
    const [smartTargetSatVb, smartDaySatVb] = await Promise.all([ctx.smartFees.get(targetBlocks), ctx.smartFees.get(144)]);
    return feeLadderAnswer({ cache: current, targetBlocks, floorSatVb: ctx.floorFeeRateSatVb(), smartTargetSatVb, smartDaySatVb });
  },
});

export const templateRpcMethods = [svcTemplateHealth, svcTemplateCheck, svcTemplateBatchCheck, svcFeeLadder];
