/**
 * Template intelligence, from the optimizer cache: free health, capabilities and cache statistics;
 * paid membership checks (single and batch), the fee ladder, and the optimized txid list with its
 * signed receipt. Before the first cycle has published, paid template routes answer 503 with
 * `Retry-After`, not wrong data.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { capabilities } from './capabilities.js';
import { cacheStats } from './cacheStats.js';
import type { RouteContext } from './context.js';
import { Txid } from './schemas.js';
import { feeLadderAnswer, optimizedTxidsAnswer, requireCache, templateCheck, templateHealth } from './templateAnswers.js';

export const BATCH_CHECK_MAX_TXIDS = 10;
export const OPTIMIZED_TXIDS_MAX = 4000;

const TargetBlocks = z.number().int().min(1).max(1008).default(6);
export const TxidRequest = z.object({ txid: Txid, targetBlocks: TargetBlocks });
export const BatchTxidRequest = z.object({ txids: z.array(Txid).min(1).max(BATCH_CHECK_MAX_TXIDS), targetBlocks: TargetBlocks });
/** An absent body (fastify gives null) is an empty object: these bodies are optional. */
const optionalBody = <T extends z.ZodType>(schema: T) => z.preprocess((v) => v ?? {}, schema);
export const TargetBlocksRequest = optionalBody(z.object({ targetBlocks: TargetBlocks }));
export const OptimizedTxidsRequest = optionalBody(z.object({ maxTxids: z.number().int().min(1).max(OPTIMIZED_TXIDS_MAX).default(OPTIMIZED_TXIDS_MAX) }));

export const templateRoutes: FastifyPluginAsync<{ ctx: RouteContext }> = async (fastify, { ctx }) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const now = ctx.deps.now ?? Date.now;
  const cache = () => requireCache(fastify.optimizer.service, fastify.optimizer.enabled);

  app.get('/v1/template/health', { schema: { summary: 'Optimizer cache readiness (free)' } }, async () =>
    templateHealth(fastify.optimizer.service, fastify.optimizer.enabled, now()),
  );

  app.get('/v1/template/capabilities', { schema: { summary: 'What this service offers, its prices and its live optimizer state (free)' } }, async () =>
    capabilities(fastify, ctx, now()),
  );

  app.get('/v1/template/cache-stats', { schema: { summary: 'Optimizer cycle statistics: phases, timings, fees vs baselines and bound (free)' } }, async () =>
    cacheStats(fastify, now()),
  );

  app.post('/v1/template/check', { schema: { body: TxidRequest, summary: 'Is this txid in the optimized and the baseline template?' } }, async (request) =>
    templateCheck(cache(), request.body.txid, request.body.targetBlocks, now()),
  );

  app.post('/v1/template/batch-check', { schema: { body: BatchTxidRequest, summary: 'Template check for 1 to 10 txids' } }, async (request) => {
    const current = cache();
    const results = request.body.txids.map((txid) => templateCheck(current, txid, request.body.targetBlocks, now()));
    return { success: true, targetBlocks: request.body.targetBlocks, count: results.length, cachedAt: results[0]!.cachedAt, results };
  });

  app.post('/v1/template/fee-ladder', { schema: { body: TargetBlocksRequest, summary: 'Urgent / normal / cheap fee rates (sat/vB)' } }, async (request) => {
    const targetBlocks = request.body.targetBlocks;
    const current = cache();
    const [smartTargetSatVb, smartDaySatVb] = await Promise.all([ctx.smartFees.get(targetBlocks), ctx.smartFees.get(144)]);
    return feeLadderAnswer({ cache: current, targetBlocks, floorSatVb: ctx.floorFeeRateSatVb(), smartTargetSatVb, smartDaySatVb });
  });

  app.post(
    '/v1/template/optimized-txids',
    { schema: { body: OptimizedTxidsRequest, summary: 'The optimized template txids in block order with the signed receipt' } },
    async (request) => optimizedTxidsAnswer(cache(), request.body.maxTxids, now()),
  );
};
