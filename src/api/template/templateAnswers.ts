/**
 * Answers built from the optimizer cache, shared by the REST template routes and the `svc_*`
 * JSON-RPC methods so both say exactly the same thing. Field names follow SPEC §2.
 */
import { z } from 'zod';
import { isoFromMs } from '../../bitcoin/units.js';
import { Errors } from '../../errors.js';
import { feeLadder } from '../../fees/feeLadder.js';
import type { OptimizerService } from '../../optimizer/optimizerService.js';
import { ReceiptPayloadShape } from '../../optimizer/cache/cacheShapes.js';
import { txChunkFeeRate, txProjectedPlacement, type TemplateCache } from '../../optimizer/cache/templateCache.js';
import { round } from '../../util/round.js';
import { snapshotAge } from '../freshness.js';
import { Freshness, Hash, IsoTime, Sat, SatVb, Success } from '../schemas.js';
import { ProjectedBlockRow, projectedBlockSummaries, TEMPLATE_MODE, TEMPLATE_NOTE, TEMPLATE_SOURCE } from '../shared/templateFacts.js';

const Source = z.literal(TEMPLATE_SOURCE);
const Mode = z.literal(TEMPLATE_MODE);

export const TemplateCheck = z.object({
  success: Success,
  txid: Hash,
  source: Source,
  mode: Mode,
  inOptimizedTemplate: z.boolean(),
  inBaselineTemplate: z.boolean(),
  baselineComparisonAvailable: z.boolean(),
  /** In the optimized template and absent from the baseline. */
  optimizerAdvantage: z.boolean(),
  ...Freshness,
  cachedAt: IsoTime,
  comparison: z.object({
    available: z.boolean(),
    optimizedOnlyTxidCount: z.number().int(),
    overlapTxidCount: z.number().int(),
    baselineOnlyTxidCount: z.number().int(),
  }),
  note: z.string(),
  targetBlocks: z.number().int(),
  cacheAgeMs: z.number().int().nonnegative(),
  height: z.number().int(),
  baselineSource: z.enum(['node_getblocktemplate', 'native_v31']),
  inMempoolSnapshot: z.boolean(),
  chunkFeeRateSatVb: SatVb.nullable(),
  /** 1-based; null when not in the snapshot or beyond the projected blocks. */
  projectedBlock: z.number().int().positive().nullable(),
  /** Null when unknown: not in the snapshot, or beyond the projected blocks with a target further out than they reach. */
  withinTarget: z.boolean().nullable(),
});

const Rung = z.object({ satVb: SatVb, useWhen: z.string(), derivation: z.string() });

export const FeeLadderAnswer = z.object({
  success: Success,
  targetBlocks: z.number().int(),
  ladder: z.object({ urgent: Rung, normal: Rung, cheap: Rung }),
  unit: z.literal('sat/vB'),
  source: Source,
  mode: Mode,
  ...Freshness,
  cachedAt: IsoTime,
  projectedBlocks: z.array(ProjectedBlockRow),
  floorFeeRateSatVb: SatVb,
  note: z.string(),
});

export const OptimizedTxidsAnswer = z.object({
  success: Success,
  source: Source,
  mode: Mode,
  height: z.number().int(),
  previousBlockHash: Hash,
  ...Freshness,
  cachedAt: IsoTime,
  cacheAgeMs: z.number().int().nonnegative(),
  weightLimit: z.number().int(),
  txCount: z.number().int(),
  feeSat: Sat,
  weightWu: z.number().int(),
  sigopCost: z.number().int().nullable(),
  returnedTxidCount: z.number().int(),
  truncated: z.boolean(),
  txids: z.array(Hash),
  /** wtxid of each returned txid, same order (what Stratum v2 job declaration sends); null when the node lists none. */
  wtxids: z.array(Hash).nullable(),
  /** BIP 141 coinbase output script committing to all txCount wtxids (witness reserved value: 32 zero bytes), as Core's getblocktemplate names it. */
  defaultWitnessCommitment: z
    .string()
    .regex(/^6a24aa21a9ed[0-9a-f]{64}$/)
    .nullable(),
  receipt: z.object({
    schema: z.literal('bench-receipt/1'),
    alg: z.literal('Ed25519'),
    keyId: z.string(),
    publicKey: z.string(),
    /** The signed object (RFC 8785 canonical JSON is what is signed). */
    payload: ReceiptPayloadShape,
    signature: z.string(),
    covers: z.string(),
  }),
  note: z.string(),
});

export const TemplateHealth = z.object({
  success: Success,
  enabled: z.boolean(),
  ready: z.boolean(),
  status: z.enum(['disabled', 'ok', 'degraded', 'failing', 'warming_up']),
  source: Source,
  mode: Mode,
  cachedAt: IsoTime.nullable(),
  cacheAgeMs: z.number().int().nonnegative().nullable(),
  height: z.number().int().nullable(),
  cycleCount: z.number().int(),
  refreshInProgress: z.boolean(),
  phase: z.string(),
  lastStatus: z.string().nullable(),
  lastError: z.string().nullable(),
  lastDurationMs: z.number().nullable(),
  nextRefreshAt: IsoTime.nullable(),
  note: z.string(),
});

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

export function templateCheck(cache: TemplateCache, txid: string, targetBlocks: number, now: number): z.input<typeof TemplateCheck> {
  const inOptimizedTemplate = cache.optimized.txidSet.has(txid);
  const inBaselineTemplate = cache.baseline.txidSet.has(txid);
  const available = cache.comparison.available;
  const chunkRate = txChunkFeeRate(cache, txid);
  const placement = txProjectedPlacement(cache, txid);
  return {
    success: true,
    txid,
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    inOptimizedTemplate,
    inBaselineTemplate,
    baselineComparisonAvailable: available,
    optimizerAdvantage: available && inOptimizedTemplate && !inBaselineTemplate,
    ...snapshotAge(now, cache.cachedAt),
    cachedAt: isoFromMs(cache.cachedAt),
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
    inMempoolSnapshot: placement !== undefined,
    chunkFeeRateSatVb: chunkRate === undefined ? null : round(chunkRate),
    projectedBlock: placement === undefined || placement.beyond ? null : placement.block,
    withinTarget:
      placement === undefined ? null : !placement.beyond ? placement.block <= targetBlocks : targetBlocks <= cache.projectedBlocks.length ? false : null,
  };
}

export interface LadderInputs {
  cache: TemplateCache;
  targetBlocks: number;
  floorSatVb: number;
  smartTargetSatVb: number | null;
  smartDaySatVb: number | null;
  /** Now, ms since the epoch (for `ageMs`). */
  now: number;
}

export function feeLadderAnswer({ cache, targetBlocks, floorSatVb, smartTargetSatVb, smartDaySatVb, now }: LadderInputs): z.input<typeof FeeLadderAnswer> {
  const ladder = feeLadder({ targetBlocks, projectedBlocks: projectedBlockSummaries(cache), floorSatVb, smartTargetSatVb, smartDaySatVb });
  return {
    success: true,
    targetBlocks,
    ladder,
    unit: 'sat/vB',
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    ...snapshotAge(now, cache.cachedAt),
    cachedAt: isoFromMs(cache.cachedAt),
    projectedBlocks: cache.projectedBlocks.map((b, k) => ({ block: k + 1, ...b })),
    floorFeeRateSatVb: round(floorSatVb),
    note: TEMPLATE_NOTE,
  };
}

export function optimizedTxidsAnswer(cache: TemplateCache, maxTxids: number, now: number): z.input<typeof OptimizedTxidsAnswer> {
  const txids = cache.optimized.txids.slice(0, maxTxids);
  return {
    success: true,
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    height: cache.height,
    previousBlockHash: cache.previousBlockHash,
    ...snapshotAge(now, cache.cachedAt),
    cachedAt: isoFromMs(cache.cachedAt),
    cacheAgeMs: Math.max(0, now - cache.cachedAt),
    weightLimit: cache.weightLimitWu,
    txCount: cache.optimized.txCount,
    feeSat: cache.optimized.feeSat,
    weightWu: cache.optimized.weightWu,
    sigopCost: cache.optimized.sigopCost,
    returnedTxidCount: txids.length,
    truncated: txids.length < cache.optimized.txids.length,
    txids,
    wtxids: cache.witness ? cache.witness.wtxids.slice(0, maxTxids) : null,
    defaultWitnessCommitment: cache.witness?.commitment ?? null,
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
    note: `${TEMPLATE_NOTE} Txids and wtxids are in block order, parents before children: a Stratum v2 job declaration sends the wtxids and a coinbase with defaultWitnessCommitment (docs/mining.md).`,
  };
}

export function templateHealth(service: OptimizerService, enabled: boolean, now: number): z.input<typeof TemplateHealth> {
  const cache = service.cache;
  return {
    success: true,
    enabled,
    ready: cache !== undefined,
    status: !enabled ? 'disabled' : cache ? (service.lastStatus === 'ok' ? 'ok' : 'degraded') : service.lastError ? 'failing' : 'warming_up',
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    cachedAt: isoFromMs(cache?.cachedAt),
    cacheAgeMs: cache ? Math.max(0, now - cache.cachedAt) : null,
    height: cache?.height ?? null,
    cycleCount: service.cycleCount,
    refreshInProgress: service.refreshInProgress,
    phase: service.phase,
    lastStatus: service.lastStatus,
    lastError: service.lastError,
    lastDurationMs: service.lastDurationMs,
    nextRefreshAt: isoFromMs(service.nextRefreshAt),
    note: TEMPLATE_NOTE,
  };
}
