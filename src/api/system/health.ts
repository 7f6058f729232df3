/**
 * `GET /health` (free): the process, the node (reachable, chain, tip, lag), the mempool view, the
 * optimizer and payments. It reports the last background check of the node (`NodeWatch`) and never
 * waits on the node, so it answers at once whatever the node does. 200 while the replica can serve
 * (`status` `ok`, or `degraded` when the optimizer has not published yet); 503 `NODE_UNAVAILABLE`
 * with the reason (and this body as `details`) until the node has been reached and the mempool view
 * loaded, and whenever the node's last check failed: the replica then refuses every paid answer, and
 * a load balancer's check takes it out.
 */
import { z } from 'zod';
import { isoFromMs } from '../../bitcoin/units.js';
import { Errors } from '../../errors.js';
import { round } from '../../util/round.js';
import { SERVICE_VERSION } from '../../version.js';
import type { ApiContext } from '../define.js';
import { nodeStatus, staleReason } from '../freshness.js';
import { Hash, IsoTime, Success } from '../schemas.js';

export const HealthResponse = z.object({
  success: Success,
  status: z.enum(['ok', 'degraded']),
  service: z.object({
    version: z.string(),
    uptimeSeconds: z.number().int().nonnegative(),
    pid: z.number().int(),
    node: z.string(),
    memory: z.object({ rssMb: z.number(), heapUsedMb: z.number() }),
  }),
  node: z.object({
    kind: z.enum(['simulated', 'real']),
    addressSource: z.enum(['esplora', 'scantxoutset']),
    reachable: z.boolean(),
    chain: z.string().optional(),
    height: z.number().int().optional(),
    headers: z.number().int().optional(),
    lagBlocks: z.number().int().optional(),
    initialBlockDownload: z.boolean().optional(),
    tipHash: Hash.optional(),
    error: z.string().nullable(),
    /** When the last background check ended; chain fields are from the last successful one. */
    checkedAt: IsoTime.nullable(),
  }),
  mempool: z.object({
    ready: z.boolean(),
    size: z.number().int(),
    lastPollAt: IsoTime.nullable(),
    lastPollMs: z.number().nullable(),
    lastError: z.string().nullable(),
    replacementsRecorded: z.number().int(),
    /** `events`: following node events (`source`); `polling`: every MEMPOOL_POLL_MS (no feed, or the feed went silent). */
    mode: z.enum(['events', 'polling']),
    source: z.enum(['zmq', 'simnet']).nullable(),
    lastEventAt: IsoTime.nullable(),
    gaps: z.number().int(),
    resyncs: z.number().int(),
  }),
  optimizer: z.object({
    enabled: z.boolean(),
    ready: z.boolean(),
    cycleCount: z.number().int(),
    phase: z.string(),
    lastStatus: z.string().nullable(),
    lastError: z.string().nullable(),
    cacheAgeMs: z.number().nullable(),
  }),
  payments: z.object({
    enabled: z.boolean(),
    settlement: z.enum(['facilitator', 'local-unsettled', 'demo']),
    note: z.string(),
    payTo: z.string(),
    networks: z.array(z.string()),
    replayStore: z.string(),
    facilitator: z.object({
      configured: z.boolean(),
      reachable: z.boolean().nullable(),
      checkedAt: IsoTime.nullable(),
      breaker: z.enum(['closed', 'open', 'half-open']).nullable(),
      retryAfterSeconds: z.number().int().nullable(),
    }),
    ledger: z.record(z.string(), z.number().int()),
    answerCache: z.object({ entries: z.number().int(), bytes: z.number().int(), maxBytes: z.number().int() }),
    purge: z.object({ lastAt: IsoTime.nullable(), removed: z.number().int() }),
    recovery: z.object({ releasedPaymentIds: z.number().int(), releasedUnansweredRows: z.number().int() }),
  }),
});

export async function health(ctx: ApiContext): Promise<z.input<typeof HealthResponse>> {
  const now = ctx.now();
  // The last background check, never a call to the node: a hung node cannot hold the probe.
  const status = nodeStatus(ctx);
  const info = ctx.nodeWatch.info;
  const node = {
    reachable: status.reached && !status.down,
    ...(info
      ? {
          chain: info.chain,
          height: info.blocks,
          headers: info.headers,
          lagBlocks: info.headers - info.blocks,
          initialBlockDownload: info.initialblockdownload,
          tipHash: info.bestblockhash,
        }
      : {}),
    error: status.error,
    checkedAt: isoFromMs(ctx.nodeWatch.last?.at),
  };
  const { mirror, tracker, follower } = ctx.mempool;
  const { service } = ctx.optimizer;
  const memory = process.memoryUsage();
  const mempoolOk = mirror.ready && mirror.lastError === null;
  const answer: z.input<typeof HealthResponse> = {
    success: true,
    status: node.reachable && mempoolOk ? 'ok' : 'degraded',
    service: {
      version: SERVICE_VERSION,
      uptimeSeconds: Math.max(0, Math.round((now - ctx.startedAt) / 1000)),
      pid: process.pid,
      node: process.version,
      memory: { rssMb: round(memory.rss / 2 ** 20, 1), heapUsedMb: round(memory.heapUsed / 2 ** 20, 1) },
    },
    node: { kind: ctx.nodeKind, addressSource: ctx.addressSource.kind, ...node },
    mempool: {
      ready: mirror.ready,
      size: mirror.txs.size,
      lastPollAt: isoFromMs(mirror.lastPollAt),
      lastPollMs: mirror.lastPollMs ?? null,
      lastError: mirror.lastError,
      replacementsRecorded: tracker.store.size(),
      mode: follower?.mode ?? 'polling',
      source: follower?.source.name ?? null,
      lastEventAt: isoFromMs(follower?.lastEventAt),
      gaps: follower?.gaps ?? 0,
      resyncs: follower?.resyncs ?? 0,
    },
    optimizer: {
      enabled: ctx.optimizer.enabled,
      ready: service.cache !== undefined,
      cycleCount: service.cycleCount,
      phase: service.phase,
      lastStatus: service.lastStatus,
      lastError: service.lastError,
      cacheAgeMs: service.cache ? now - service.cache.cachedAt : null,
    },
    payments: ctx.payments.health(),
  };
  const reason = staleReason(ctx) ?? (mirror.ready ? null : 'the mempool view has not loaded yet');
  if (reason !== null) throw Object.assign(new Errors.NODE_UNAVAILABLE(`${reason}: this replica cannot serve`), { details: answer });
  return answer;
}
