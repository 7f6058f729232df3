/**
 * `GET /v1/template/cache-stats` (free): the optimizer's cycles in numbers — the running phase,
 * per-phase timings, the last cycles, and the latest templates side by side (optimized, the node's
 * baseline, our Core v31 and v30 re-implementations) against the upper bound.
 */
import type { FastifyInstance } from 'fastify';
import type { TemplateCache } from '../optimizer/templateCache.js';
import { round } from '../util/round.js';

function gap(bound: number, fee: number) {
  return { gapSat: Math.round(bound - fee), gapPct: bound > 0 ? round(((bound - fee) / bound) * 100, 6) : 0 };
}

export function templateTable(cache: TemplateCache) {
  const bound = cache.upperBound.feeSat;
  const row = (t: { txCount: number; feeSat: number; weightWu: number; sigopCost: number | null }) => ({
    txCount: t.txCount,
    feeSat: t.feeSat,
    weightWu: t.weightWu,
    sigopCost: t.sigopCost,
    ...gap(bound, t.feeSat),
  });
  return {
    optimized: row(cache.optimized),
    baseline: { source: cache.baseline.source, ...row(cache.baseline) },
    nativeV31: row(cache.nativeV31),
    nativeV30: row(cache.nativeV30),
    upperBound: { feeSat: round(bound, 1), exact: cache.upperBound.exact },
    optimizedMinusBaselineSat: cache.optimized.feeSat - cache.baseline.feeSat,
    optimizedMinusNativeV31Sat: cache.optimized.feeSat - cache.nativeV31.feeSat,
    v31WithinRequestLimits: cache.v31WithinRequestLimits,
  };
}

export function cacheStats(app: FastifyInstance, now: number) {
  const { service, enabled } = app.optimizer;
  const cache = service.cache;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    success: true,
    enabled,
    ready: cache !== undefined,
    cycleCount: service.cycleCount,
    refreshInProgress: service.refreshInProgress,
    running: service.refreshInProgress
      ? {
          phase: service.phase,
          phaseElapsedMs: service.phaseStartedAt === null ? null : now - service.phaseStartedAt,
          cycleElapsedMs: service.cycleStartedAt === null ? null : now - service.cycleStartedAt,
        }
      : null,
    lastStatus: service.lastStatus,
    lastError: service.lastError,
    lastDurationMs: service.lastDurationMs,
    lastRefreshStartedAt: iso(service.lastRefreshStartedAt),
    lastRefreshFinishedAt: iso(service.lastRefreshFinishedAt),
    lastSuccessAt: iso(service.lastSuccessAt),
    nextRefreshAt: iso(service.nextRefreshAt),
    baseline: { ...service.baseline, lastSuccessAt: iso(service.baseline.lastSuccessAt) },
    cache: cache && {
      cycle: cache.cycle,
      cachedAt: iso(cache.cachedAt),
      cacheAgeMs: now - cache.cachedAt,
      height: cache.height,
      previousBlockHash: cache.previousBlockHash,
      snapshot: { ...cache.snapshot, takenAt: iso(cache.snapshot.takenAt) },
      templates: templateTable(cache),
      comparison: cache.comparison,
      clusters: cache.clusters,
      nativeTimingsMs: cache.nativeTimingsMs,
      projectedBlocks: cache.projectedBlocks.map((b, k) => ({ block: k + 1, ...b })),
      receipt: { keyId: cache.receipt.payload.keyId, signature: cache.receipt.signature },
    },
    history: service.history,
  };
}
