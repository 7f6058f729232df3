/**
 * Mempool intelligence: statistics and fee landscape, fee histogram with a target recommendation,
 * one transaction's entry with our analysis, and its RBF replacement history. Statistics come from
 * the mempool mirror (one consistent snapshot, refreshed every `MEMPOOL_POLL_MS`); the per-tx entry
 * is read live from the node.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Errors } from '../errors.js';
import { congestion, feeRatePercentiles } from '../fees/feeLandscape.js';
import { feeHistogram } from '../fees/feeHistogram.js';
import { btcPerKvbToSatVb } from '../fees/feeEstimate.js';
import { round } from '../util/round.js';
import type { RouteContext } from './context.js';
import { mempoolTxAnalysis } from './mempoolTxAnalysis.js';
import { blocksQuery, TxidParams } from './schemas.js';

export const mempoolRoutes: FastifyPluginAsync<{ ctx: RouteContext }> = async (fastify, { ctx }) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { node } = ctx.deps;

  const view = () => {
    const { mirror } = fastify.mempool;
    if (!mirror.ready || !mirror.info) throw new Errors.MEMPOOL_NOT_READY(mirror.lastError ?? 'the first mempool poll has not finished');
    return { mirror, info: mirror.info, sample: fastify.mempool.sample(), asOf: new Date(mirror.lastPollAt!).toISOString() };
  };

  app.get('/v1/mempool/stats', { schema: { summary: 'Mempool size, congestion and fee landscape' } }, async () => {
    const { info, sample, asOf } = view();
    const next = ctx.projection(1);
    return {
      success: true,
      asOf,
      count: sample.count,
      vsize: sample.vsize,
      bytes: info.bytes,
      usage: info.usage,
      maxMempool: info.maxmempool,
      totalFeeSat: sample.feeSat,
      minFeeRateSatVb: round(btcPerKvbToSatVb(info.mempoolminfee)),
      minRelayFeeRateSatVb: round(btcPerKvbToSatVb(info.minrelaytxfee)),
      congestion: congestion(sample.vsize),
      feeRates: { unit: 'sat/vB', weighting: 'by vsize, effective (chunk) fee rates', ...feeRatePercentiles(sample) },
      nextBlock: next && { feeRateSatVb: next.feeRateSatVb, full: next.competitive, derivation: next.derivation },
    };
  });

  app.get(
    '/v1/mempool/fees',
    { schema: { querystring: z.object({ target: blocksQuery(10) }), summary: 'Fee-rate histogram and the fee rate for a confirmation target' } },
    async (request) => {
      const { target } = request.query;
      const { sample, asOf } = view();
      const recommendation = ctx.projection(target)!;
      return {
        success: true,
        asOf,
        target,
        unit: 'sat/vB',
        recommended: {
          feeRateSatVb: recommendation.feeRateSatVb,
          competitive: recommendation.competitive,
          vsizeAhead: recommendation.vsizeAhead,
          derivation: recommendation.derivation,
        },
        floorFeeRateSatVb: round(ctx.floorFeeRateSatVb()),
        totals: { count: sample.count, vsize: sample.vsize, feeSat: sample.feeSat },
        histogram: feeHistogram(sample),
      };
    },
  );

  app.get('/v1/mempool/tx/:txid', { schema: { params: TxidParams, summary: 'Mempool entry with fee, package and position analysis' } }, async (request) => {
    const { txid } = request.params;
    const entry = await node.getMempoolEntry(txid);
    const now = (ctx.deps.now ?? Date.now)();
    return { success: true, ...mempoolTxAnalysis(txid, entry, now, ctx, fastify.mempool) };
  });

  app.get('/v1/mempool/tx/:txid/replacements', { schema: { params: TxidParams, summary: 'RBF replacement history of a transaction' } }, async (request) => {
    const { txid } = request.params;
    const history = fastify.mempool.tracker.history(txid);
    // Only "the node does not know it" means absent: an unreachable node is a 503, not a 404.
    const absent = (error: unknown): false => {
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'TX_NOT_IN_MEMPOOL' || code === 'TX_NOT_FOUND') return false;
      throw error;
    };
    const inMempool = fastify.mempool.mirror.txs.has(txid) || (await node.getMempoolEntry(txid).then(() => true, absent));
    const known = inMempool || history.eventCount > 0 || (await node.getRawTransaction(txid).then(() => true, absent));
    if (!known) throw new Errors.TX_NOT_FOUND(txid);
    const status = history.replacedBy ? 'replaced' : inMempool ? 'in_mempool' : history.evictedWithReplacementOf ? 'evicted' : 'not_in_mempool';
    return {
      success: true,
      status,
      ...history,
      tracking: {
        since:
          fastify.mempool.tracker.store.size() > 0 || fastify.mempool.mirror.ready
            ? 'service start or earlier (history persists across restarts)'
            : 'not yet started',
        pollMs: ctx.deps.config.MEMPOOL_POLL_MS,
        note: 'replacements are seen by polling the node mempool; a version that appeared and was replaced between two polls is not recorded',
      },
      feeUnit: 'sat',
      feeRateUnit: 'sat/vB',
    };
  });
};
