/**
 * `GET /v1/template/cache-stats` (free): the optimizer's cycles in numbers — the running phase,
 * per-phase timings, the last cycles, and the latest templates side by side (optimized, the node's
 * baseline, our Core v31 and v30 re-implementations) against the upper bound.
 */
import { z } from 'zod';
import { isoFromMs } from '../../bitcoin/units.js';
import type { TemplateCache } from '../../optimizer/templateCache.js';
import { round } from '../../util/round.js';
import type { ApiContext } from '../define.js';
import { Hash, IsoTime, Sat, Success } from '../schemas.js';
import { ProjectedBlockRow } from '../template/templateAnswers.js';

const Gap = { gapSat: Sat, gapPct: z.number() };
const TemplateRow = z.object({ txCount: z.number().int(), feeSat: Sat, weightWu: z.number().int(), sigopCost: z.number().int().nullable(), ...Gap });

export const TemplateTable = z.object({
  optimized: TemplateRow,
  baseline: TemplateRow.extend({ source: z.enum(['node_getblocktemplate', 'native_v31']) }),
  nativeV31: TemplateRow,
  nativeV30: TemplateRow.nullable().describe('Our Core v30 model: full cycles only, null on incremental ones'),
  upperBound: z.object({ feeSat: z.number(), exact: z.boolean() }),
  optimizedMinusBaselineSat: Sat,
  optimizedMinusNativeV31Sat: Sat,
  v31WithinRequestLimits: z.boolean(),
  sigopsBinding: z.boolean().describe('The consensus sigop limit (80,000 minus the coinbase) bound the optimized template'),
});

const PhaseTimings = z.object({ baseline: z.number().nullable(), snapshot: z.number(), optimize: z.number(), publish: z.number() });

export const CacheStatsResponse = z.object({
  success: Success,
  enabled: z.boolean(),
  ready: z.boolean(),
  cycleCount: z.number().int(),
  refreshInProgress: z.boolean(),
  running: z.object({ phase: z.string(), phaseElapsedMs: z.number().nullable(), cycleElapsedMs: z.number().nullable() }).nullable(),
  lastStatus: z.string().nullable(),
  lastError: z.string().nullable(),
  lastDurationMs: z.number().nullable(),
  lastRefreshStartedAt: IsoTime.nullable(),
  lastRefreshFinishedAt: IsoTime.nullable(),
  lastSuccessAt: IsoTime.nullable(),
  nextRefreshAt: IsoTime.nullable(),
  baseline: z.object({
    lastStatus: z.string().nullable(),
    lastError: z.string().nullable(),
    lastDurationMs: z.number().nullable(),
    lastSuccessAt: IsoTime.nullable(),
  }),
  cache: z
    .object({
      cycle: z.number().int(),
      cachedAt: IsoTime,
      cacheAgeMs: z.number(),
      height: z.number().int(),
      previousBlockHash: Hash,
      snapshot: z.object({ txCount: z.number().int(), vsize: z.number(), weightWu: z.number(), feeSat: Sat, takenAt: IsoTime, source: z.string() }),
      templates: TemplateTable,
      comparison: z.object({ available: z.boolean(), reason: z.string().nullable(), sameTip: z.boolean() }),
      /** Cluster statistics of the cycle (count, largest, proven optimal, …). */
      clusters: z.object({ count: z.number().int(), largest: z.number().int(), optimalCount: z.number().int() }),
      /** Native wall time per phase, ms. */
      nativeTimingsMs: z.record(z.string(), z.number()),
      projectedBlocks: z.array(ProjectedBlockRow),
      receipt: z.object({ keyId: z.string(), signature: z.string() }),
    })
    .nullable(),
  history: z.array(
    z.object({
      cycle: z.number().int(),
      startedAt: IsoTime,
      durationMs: z.number(),
      status: z.string(),
      error: z.string().nullable(),
      phasesMs: PhaseTimings,
      txCount: z.number().int(),
    }),
  ),
});

function gap(bound: number, fee: number) {
  return { gapSat: Math.round(bound - fee), gapPct: bound > 0 ? round(((bound - fee) / bound) * 100, 6) : 0 };
}

export function templateTable(cache: TemplateCache): z.input<typeof TemplateTable> {
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
    nativeV30: cache.nativeV30 ? row(cache.nativeV30) : null,
    upperBound: { feeSat: round(bound, 1), exact: cache.upperBound.exact },
    optimizedMinusBaselineSat: cache.optimized.feeSat - cache.baseline.feeSat,
    optimizedMinusNativeV31Sat: cache.optimized.feeSat - cache.nativeV31.feeSat,
    v31WithinRequestLimits: cache.v31WithinRequestLimits,
    sigopsBinding: cache.sigopsBinding,
  };
}

export function cacheStats(ctx: ApiContext): z.input<typeof CacheStatsResponse> {
  const { service, enabled } = ctx.optimizer;
  const now = ctx.now();
  const cache = service.cache;
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
    lastRefreshStartedAt: isoFromMs(service.lastRefreshStartedAt),
    lastRefreshFinishedAt: isoFromMs(service.lastRefreshFinishedAt),
    lastSuccessAt: isoFromMs(service.lastSuccessAt),
    nextRefreshAt: isoFromMs(service.nextRefreshAt),
    baseline: { ...service.baseline, lastSuccessAt: isoFromMs(service.baseline.lastSuccessAt) },
    cache: cache
      ? {
          cycle: cache.cycle,
          cachedAt: isoFromMs(cache.cachedAt),
          cacheAgeMs: now - cache.cachedAt,
          height: cache.height,
          previousBlockHash: cache.previousBlockHash,
          snapshot: { ...cache.snapshot, takenAt: isoFromMs(cache.snapshot.takenAt) },
          templates: templateTable(cache),
          comparison: cache.comparison,
          clusters: cache.clusters,
          nativeTimingsMs: { ...cache.nativeTimingsMs },
          projectedBlocks: cache.projectedBlocks.map((b, k) => ({ block: k + 1, ...b })),
          receipt: { keyId: cache.receipt.payload.keyId, signature: cache.receipt.signature },
        }
      : null,
    history: service.history,
  };
}
