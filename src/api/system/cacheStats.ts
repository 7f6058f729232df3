/**
 * `GET /v1/template/cache-stats` (free): the optimizer's cycles in numbers — the running phase,
 * per-phase timings, the last cycles, and the latest templates side by side (optimized, the node's
 * baseline, our Core v31 and v30 re-implementations) against the upper bound.
 */
import { z } from 'zod';
import { isoFromMs } from '../../bitcoin/units.js';
import { ClusterStatsShape, ComparisonShape } from '../../optimizer/cache/cacheShapes.js';
import type { TemplateCache } from '../../optimizer/cache/templateCache.js';
import { round } from '../../util/round.js';
import type { ApiContext } from '../define.js';
import { Hash, IsoTime, Sat, Success } from '../schemas.js';
import { BlockAuditSummary, blockAuditSummary } from '../shared/blockAuditRows.js';
import { ProjectedBlockRow } from '../shared/templateFacts.js';
import { OptimizerLease, optimizerLease } from './optimizerLease.js';

const Gap = { gapSat: Sat, gapPct: z.number() };
const TemplateRow = z.object({ txCount: z.number().int(), feeSat: Sat, weightWu: z.number().int(), sigopCost: z.number().int().nullable(), ...Gap });

export const TemplateTable = z.object({
  optimized: TemplateRow,
  baseline: TemplateRow.extend({ source: z.enum(['node_getblocktemplate', 'native_v31']) }),
  nativeV31: TemplateRow,
  nativeV30: TemplateRow.nullable().describe('Our Core v30 model: full cycles only, null on incremental ones'),
  upperBound: z.object({
    feeSat: z.number(),
    exact: z.boolean().describe('The bound is the optimum itself under the same limits (weight, sigops, count, min fee rate): the same as solved'),
    solved: z.boolean().describe('The optimizer solved the problem left near the block edge exactly under every limit: the bound is the optimum'),
  }),
  optimizedMinusBaselineSat: Sat,
  optimizedMinusNativeV31Sat: Sat,
  v31WithinRequestLimits: z.boolean(),
  sigopsBinding: z.boolean().describe('The consensus sigop limit (80,000 minus the coinbase) bound the optimized template'),
});

const CadenceRow = z.object({
  count: z.number().int(),
  lastPublishedAt: IsoTime.nullable(),
  lastDurationMs: z.number().nullable(),
  recentP50Ms: z.number().nullable().describe('Median duration of the recent cycles of this kind, ms'),
  recentMaxMs: z.number().nullable(),
});

/** Full and incremental cycles side by side (also in capabilities). */
export const Cadence = z.object({
  mode: z.enum(['incremental', 'full_only']),
  fullIntervalSec: z.number().int(),
  incrementalIntervalMs: z.number().int().describe('At most one incremental cache this often when the mempool changed (0: full cycles only)'),
  servedKind: z.enum(['full', 'incremental']).nullable(),
  templateAgeMs: z.number().nullable().describe('Age of the mempool state the served template reflects, ms'),
  full: CadenceRow,
  incremental: CadenceRow.extend({
    pendingChanges: z.number().int().describe('Changed transactions waiting for the next incremental cycle'),
    errors: z.number().int(),
    lastError: z.string().nullable(),
    checks: z.number().int().describe('Full cycles that rebuilt the incremental state from scratch and compared'),
    mismatches: z.number().int().describe('Checks where the incremental state differed (logged; the full state replaced it)'),
    resyncs: z.number().int().describe('Full cycles that found the engine out of step with the mempool view (it was resent whole)'),
    lastWork: z
      .object({
        upserts: z.number().int(),
        removed: z.number().int(),
        dirtySlots: z.number().int(),
        applyMs: z.number(),
        buildMs: z.number(),
        packMs: z.number(),
        publishMs: z.number(),
      })
      .nullable()
      .describe('The last incremental cycle: changes sent, slots re-examined, worker (apply, build) and main-thread (pack, publish) ms'),
  }),
});

export function cadence(ctx: ApiContext): z.input<typeof Cadence> {
  const { service } = ctx.optimizer;
  const stats = service.incrementalStats;
  const cache = service.cache;
  const row = (c: ReturnType<typeof stats.full.summary>) => ({ ...c, lastPublishedAt: isoFromMs(c.lastPublishedAt) });
  const work = stats.lastEngine;
  return {
    mode: service.incrementalEnabled ? 'incremental' : 'full_only',
    fullIntervalSec: ctx.config.OPTIMIZER_INTERVAL_SEC,
    incrementalIntervalMs: service.incrementalEnabled ? ctx.config.OPTIMIZER_INCREMENTAL_MS : 0,
    servedKind: cache?.kind ?? null,
    templateAgeMs: cache ? Math.max(0, ctx.now() - cache.snapshot.takenAt) : null,
    full: row(stats.full.summary()),
    incremental: {
      ...row(stats.incremental.summary()),
      pendingChanges: service.pendingIncrementalChanges,
      errors: stats.errors,
      lastError: stats.lastError,
      checks: stats.checks,
      mismatches: stats.mismatches,
      resyncs: stats.resyncs,
      lastWork: work
        ? {
            upserts: work.upserts,
            removed: work.removed,
            dirtySlots: work.dirtySlots,
            applyMs: round(work.applyMs, 2),
            buildMs: round(work.buildMs, 2),
            packMs: round(work.packMs, 2),
            publishMs: round(work.publishMs, 2),
          }
        : null,
    },
  };
}

const PhaseTimings = z.object({ baseline: z.number().nullable(), snapshot: z.number(), optimize: z.number(), publish: z.number() });

export const CacheStatsResponse = z.object({
  success: Success,
  enabled: z.boolean(),
  lease: OptimizerLease,
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
  cadence: Cadence,
  cache: z
    .object({
      cycle: z.number().int(),
      kind: z.enum(['full', 'incremental']).describe('full: compared with the node getblocktemplate; incremental: with our Core v31 model of the same state'),
      templateAgeMs: z.number().describe('Age of the mempool state the template reflects, ms'),
      cachedAt: IsoTime,
      cacheAgeMs: z.number(),
      height: z.number().int(),
      previousBlockHash: Hash,
      snapshot: z.object({ txCount: z.number().int(), vsize: z.number(), weightWu: z.number(), feeSat: Sat, takenAt: IsoTime, source: z.string() }),
      templates: TemplateTable,
      comparison: ComparisonShape,
      clusters: ClusterStatsShape,
      /** Native wall time per phase, ms. */
      nativeTimingsMs: z.record(z.string(), z.number()),
      projectedBlocks: z.array(ProjectedBlockRow),
      receipt: z.object({ keyId: z.string(), signature: z.string() }),
    })
    .nullable(),
  blockAudits: BlockAuditSummary.describe('The last blocks next to our template for the same parent (GET /v1/template/block-audits)'),
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
    upperBound: { feeSat: round(bound, 1), exact: cache.upperBound.exact, solved: cache.upperBound.solved },
    optimizedMinusBaselineSat: cache.optimized.feeSat - cache.baseline.feeSat,
    optimizedMinusNativeV31Sat: cache.optimized.feeSat - cache.nativeV31.feeSat,
    v31WithinRequestLimits: cache.v31WithinRequestLimits,
    sigopsBinding: cache.sigopsBinding,
  };
}

/** `GET /v1/template/cache-stats` */
export async function cacheStats(ctx: ApiContext): Promise<z.input<typeof CacheStatsResponse>> {
  const { service, enabled } = ctx.optimizer;
  const now = ctx.now();
  const cache = service.cache;
  return {
    success: true,
    enabled,
    lease: optimizerLease(ctx),
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
    cadence: cadence(ctx),
    cache: cache
      ? {
          cycle: cache.cycle,
          kind: cache.kind,
          templateAgeMs: Math.max(0, now - cache.snapshot.takenAt),
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
    blockAudits: blockAuditSummary(ctx.optimizer.audits),
    history: service.history,
  };
}
