/**
 * Answers built from the optimizer cache, shared by the REST template routes and the `svc_*`
 * JSON-RPC methods so both say exactly the same thing. Field names follow SPEC §2.
 */
import { Errors } from '../errors.js';
import { feeLadder, type FeeLadder } from '../fees/feeLadder.js';
import type { OptimizerService } from '../optimizer/optimizerService.js';
import type { TemplateCache } from '../optimizer/templateCache.js';
import { round } from '../util/round.js';

export const TEMPLATE_SOURCE = 'core_v31_optimizer_cache';
export const TEMPLATE_MODE = 'live_cached';
export const TEMPLATE_NOTE = 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction.';
/** A projected block at least this full has a real cutoff fee rate. */
const FULL_BLOCK_WU = 3_900_000;

/** The published cache, or 503 `TEMPLATE_NOT_READY` (with `Retry-After`) before the first cycle. */
export function requireCache(service: OptimizerService, enabled: boolean): TemplateCache {
  if (!enabled) throw new Errors.TEMPLATE_NOT_READY('the optimizer is disabled on this server (OPTIMIZER_ENABLED=false)');
  const cache = service.cache;
  if (!cache) {
    throw new Errors.TEMPLATE_NOT_READY(
      service.lastError ? `the first cycle failed (${service.lastError}); retrying` : `the first cycle is running (phase ${service.phase})`,
    );
  }
  return cache;
}

export function templateCheck(cache: TemplateCache, txid: string, targetBlocks: number, now: number) {
  const inOptimizedTemplate = cache.optimized.txidSet.has(txid);
  const inBaselineTemplate = cache.baseline.txidSet.has(txid);
  const available = cache.comparison.available;
  const i = cache.txIndex.get(txid);
  const projected = i === undefined ? undefined : cache.txProjectedBlock[i]!;
  return {
    success: true as const,
    txid,
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    inOptimizedTemplate,
    inBaselineTemplate,
    baselineComparisonAvailable: available,
    optimizerAdvantage: available && inOptimizedTemplate && !inBaselineTemplate,
    cachedAt: new Date(cache.cachedAt).toISOString(),
    comparison: {
      available,
      optimizedOnlyTxidCount: cache.comparison.optimizedOnlyTxidCount,
      overlapTxidCount: cache.comparison.overlapTxidCount,
      baselineOnlyTxidCount: cache.comparison.baselineOnlyTxidCount,
    },
    note: TEMPLATE_NOTE,
    targetBlocks,
    cacheAgeMs: Math.max(0, now - cache.cachedAt),
    height: cache.height,
    baselineSource: cache.baseline.source,
    inMempoolSnapshot: i !== undefined,
    chunkFeeRateSatVb: i === undefined ? null : round(cache.txChunkFeeRateSatVb[i]!),
    /** 1-based; null when not in the snapshot or beyond the projected blocks. */
    projectedBlock: projected === undefined || projected < 0 ? null : projected + 1,
    /** Null when unknown: not in the snapshot, or beyond the projected blocks with a target further out than they reach. */
    withinTarget: projected === undefined ? null : projected >= 0 ? projected + 1 <= targetBlocks : targetBlocks <= cache.projectedBlocks.length ? false : null,
  };
}

/**
 * A projected block is full (its lowest rate is a real cutoff) when it reached the weight limit or
 * the cycle's transaction cap: projected blocks obey `max_tx_count` too, so in a mempool of small
 * txs they fill up by count first.
 */
export function projectedBlockSummaries(cache: TemplateCache) {
  return cache.projectedBlocks.map((b) => ({
    minFeeRateSatVb: b.minFeeRateSatVb,
    full: b.weightWu >= FULL_BLOCK_WU || (cache.maxTxCount !== null && b.txCount >= cache.maxTxCount),
  }));
}

export interface LadderInputs {
  cache: TemplateCache;
  targetBlocks: number;
  floorSatVb: number;
  smartTargetSatVb: number | null;
  smartDaySatVb: number | null;
}

export function feeLadderAnswer({ cache, targetBlocks, floorSatVb, smartTargetSatVb, smartDaySatVb }: LadderInputs) {
  const ladder: FeeLadder = feeLadder({ targetBlocks, projectedBlocks: projectedBlockSummaries(cache), floorSatVb, smartTargetSatVb, smartDaySatVb });
  return {
    success: true as const,
    targetBlocks,
    ladder,
    unit: 'sat/vB',
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    cachedAt: new Date(cache.cachedAt).toISOString(),
    projectedBlocks: cache.projectedBlocks.map((b, k) => ({ block: k + 1, ...b })),
    floorFeeRateSatVb: round(floorSatVb),
    note: TEMPLATE_NOTE,
  };
}

export function optimizedTxidsAnswer(cache: TemplateCache, maxTxids: number, now: number) {
  const txids = cache.optimized.txids.slice(0, maxTxids);
  return {
    success: true as const,
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    height: cache.height,
    previousBlockHash: cache.previousBlockHash,
    cachedAt: new Date(cache.cachedAt).toISOString(),
    cacheAgeMs: Math.max(0, now - cache.cachedAt),
    weightLimit: cache.weightLimitWu,
    txCount: cache.optimized.txCount,
    feeSat: cache.optimized.feeSat,
    weightWu: cache.optimized.weightWu,
    sigopCost: cache.optimized.sigopCost,
    returnedTxidCount: txids.length,
    truncated: txids.length < cache.optimized.txids.length,
    txids,
    receipt: {
      schema: cache.receipt.payload.schema,
      alg: cache.receipt.payload.alg,
      keyId: cache.receipt.payload.keyId,
      publicKey: cache.receipt.publicKey,
      payload: cache.receipt.payload,
      signature: cache.receipt.signature,
      covers:
        'payload.optimized.txidsSha256 is SHA-256 of the full optimized list (all txCount txids, block order, joined by "\\n"); a truncated answer is a prefix of it',
    },
    note: `${TEMPLATE_NOTE} Txids are in block order: parents before children, for Stratum v2 job declaration.`,
  };
}

export function templateHealth(service: OptimizerService, enabled: boolean, now: number) {
  const cache = service.cache;
  return {
    success: true as const,
    enabled,
    ready: cache !== undefined,
    status: !enabled ? 'disabled' : cache ? (service.lastStatus === 'ok' ? 'ok' : 'degraded') : service.lastError ? 'failing' : 'warming_up',
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    cachedAt: cache ? new Date(cache.cachedAt).toISOString() : null,
    cacheAgeMs: cache ? Math.max(0, now - cache.cachedAt) : null,
    height: cache?.height ?? null,
    cycleCount: service.cycleCount,
    refreshInProgress: service.refreshInProgress,
    phase: service.phase,
    lastStatus: service.lastStatus,
    lastError: service.lastError,
    lastDurationMs: service.lastDurationMs,
    nextRefreshAt: service.nextRefreshAt ? new Date(service.nextRefreshAt).toISOString() : null,
    note: TEMPLATE_NOTE,
  };
}
