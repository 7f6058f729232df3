/**
 * Health and discovery, all free: `/health` (process, node, mempool view, optimizer, payments),
 * capabilities (what is offered, at what price, and the optimizer's live state) and the optimizer's
 * cycle statistics.
 */
import { z } from 'zod';

import { defineRoute, type ApiContext } from '../define.js';
import { cacheStats, CacheStatsResponse } from './cacheStats.js';
import { capabilities } from './capabilities.js';
import { CapabilitiesResponse } from './capabilitiesSchema.js';
import { health, HealthResponse } from './health.js';

/** `GET /metrics` */
async function metrics(ctx: ApiContext): Promise<string> {
  return ctx.metrics.render();
}

export const systemRoutes = [
  defineRoute({
    family: 'system',
    method: 'GET',
    path: '/health',
    price: 'free',
    summary: 'Service, node, mempool view, optimizer and payments health',
    description:
      'Reports the last background check of the node (every NODE_CHECK_INTERVAL_MS) and never waits on the node. 200 while the replica can serve; `status` is `ok` (`degraded` only inside a 503 answer’s details). 503 `NODE_UNAVAILABLE` (with the reason, and this answer as `error.details`) until the node has been reached and the mempool view loaded, and whenever the node’s last check or poll failed; paid routes are then refused with 503 before payment: point load-balancer checks here.',
    response: HealthResponse,
    errors: ['NODE_UNAVAILABLE'],
    example: {
      response: {
        success: true,
        status: 'ok',
        service: { version: '0.1.0', uptimeSeconds: 3_600, pid: 4242, node: 'v20.20.2', memory: { rssMb: 310.5, heapUsedMb: 120.2 } },
        node: {
          kind: 'real',
          addressSource: 'esplora',
          reachable: true,
          chain: 'main',
          height: 850_000,
          headers: 850_000,
          lagBlocks: 0,
          initialBlockDownload: false,
          tipHash: '00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054',
          error: null,
          checkedAt: '2026-11-25T10:00:00.000Z',
        },
        mempool: {
          ready: true,
          size: 41_000,
          lastPollAt: '2026-11-25T10:00:00.000Z',
          lastPollMs: 35,
          lastError: null,
          replacementsRecorded: 1_200,
          mode: 'events',
          source: 'zmq',
          lastEventAt: '2026-11-25T10:00:20.512Z',
          gaps: 0,
          resyncs: 1,
        },
        optimizer: { enabled: true, ready: true, cycleCount: 42, phase: 'idle', lastStatus: 'ok', lastError: null, cacheAgeMs: 21_000 },
        payments: {
          enabled: true,
          settlement: 'facilitator',
          note: '…',
          payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
          networks: ['eip155:8453'],
          replayStore: 'sqlite',
          facilitator: { configured: true, reachable: true, checkedAt: '2026-11-25T09:59:30.000Z', breaker: 'closed', retryAfterSeconds: 0 },
          ledger: { pending: 0, settled: 1_000, unsettled: 0, failed: 2 },
          answerCache: { entries: 310, bytes: 1_250_000, maxBytes: 4_194_304 },
          purge: { lastAt: '2026-11-25T09:50:00.000Z', removed: 120 },
          recovery: { releasedPaymentIds: 0, releasedUnansweredRows: 0 },
        },
      },
    },
  }).handle(health),

  defineRoute({
    family: 'system',
    method: 'GET',
    path: '/v1/template/capabilities',
    price: 'free',
    summary: 'What this service offers, its prices and its live optimizer state',
    description:
      'Every field of the specification’s Capabilities response, read from running state; prices, routes and methods come from the registry. `optimizerCache.lease`: whether this replica runs the optimizer (`leader`, `single`) or serves the leader’s cache (`follower`), the leader, its lease and the served cache’s age.',
    response: CapabilitiesResponse,
    errors: [],
    example: 'live',
  }).handle(capabilities),

  defineRoute({
    family: 'system',
    method: 'GET',
    path: '/v1/template/cache-stats',
    price: 'free',
    summary: 'Optimizer cycle statistics: running phase, timings, templates vs the upper bound',
    description:
      'With several replicas, one leader runs the cycles and the others serve its cache: `lease` gives this replica’s role, the leader and its lease expiry, and which replica computed the cache served. A follower’s `history` is the leader’s, as of its last publication.',
    response: CacheStatsResponse,
    errors: [],
    example: 'live',
  }).handle(cacheStats),

  defineRoute({
    family: 'system',
    method: 'GET',
    path: '/metrics',
    price: 'free',
    summary:
      'Prometheus metrics: requests by route and status with latency, payments by outcome, payments database commits and WAL syncs (group commit), optimizer cycle phases, pool queue, mempool size, feed clients',
    response: z.string(),
    content: 'prometheus',
    errors: [],
    example: 'live',
  }).handle(metrics),
];
