/**
 * `GET /health` (free): the process, the node (reachable, chain, tip, lag), the mempool view, and
 * what the other concerns report about themselves. Always 200 while the process serves: `status`
 * says `ok` or `degraded` (node unreachable or mempool view failing), so a load balancer can read it.
 */
import type { FastifyPluginAsync } from 'fastify';
import { round } from '../util/round.js';
import type { RouteContext } from './context.js';

export const HEALTH_NODE_TIMEOUT_MS = 2_000;

export const healthRoutes: FastifyPluginAsync<{ ctx: RouteContext; version: string; startedAt: number }> = async (app, { ctx, version, startedAt }) => {
  app.get('/health', { schema: { summary: 'Service, node and mempool health (free)' } }, async () => {
    const now = (ctx.deps.now ?? Date.now)();
    // A short timeout of its own: a load balancer's probe must not wait out a hung node.
    const node = await ctx.chain
      .info(1000, Math.min(HEALTH_NODE_TIMEOUT_MS, ctx.deps.config.BITCOIN_RPC_TIMEOUT_MS))
      .then((info) => ({
        reachable: true,
        chain: info.chain,
        height: info.blocks,
        headers: info.headers,
        lagBlocks: info.headers - info.blocks,
        initialBlockDownload: info.initialblockdownload,
        tipHash: info.bestblockhash,
        error: null as string | null,
      }))
      .catch((error: Error) => ({ reachable: false, error: error.message }));
    const { mirror } = app.mempool;
    const memory = process.memoryUsage();
    const mempoolOk = mirror.ready && mirror.lastError === null;
    return {
      success: true,
      status: node.reachable && mempoolOk ? 'ok' : 'degraded',
      service: {
        version,
        uptimeSeconds: Math.round((now - startedAt) / 1000),
        pid: process.pid,
        node: process.version,
        memory: { rssMb: round(memory.rss / 2 ** 20, 1), heapUsedMb: round(memory.heapUsed / 2 ** 20, 1) },
      },
      node: { kind: ctx.deps.nodeKind, addressSource: ctx.deps.addressSource.kind, ...node },
      mempool: {
        ready: mirror.ready,
        size: mirror.txs.size,
        lastPollAt: mirror.lastPollAt ? new Date(mirror.lastPollAt).toISOString() : null,
        lastPollMs: mirror.lastPollMs ?? null,
        lastError: mirror.lastError,
        replacementsRecorded: app.mempool.tracker.store.size(),
      },
      ...ctx.healthExtras(),
    };
  });
};
