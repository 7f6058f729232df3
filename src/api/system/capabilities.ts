/**
 * `GET /v1/template/capabilities` (free): what the service offers, what it costs, and the live state
 * of the optimizer cache (SPEC §2 "Capabilities response"). Built from the registry (prices, routes,
 * methods), the configuration (intervals, timeouts, limits) and running state (the optimizer
 * service, the mempool view, the payment plugin), one named part per section; the schema is
 * `capabilitiesSchema.ts`, the fixed words `capabilitiesText.ts`.
 */
import type { z } from 'zod';
import { MAX_BLOCK_WEIGHT_WU } from '../../bitcoin/consensus.js';
import { btcPerKvbToSatVb, btcToSats, isoFromMs } from '../../bitcoin/units.js';
import type { TemplateCache } from '../../optimizer/cache/templateCache.js';
import { round } from '../../util/round.js';
import { SERVICE_VERSION } from '../../version.js';
import type { ApiContext } from '../define.js';
import { staleReason } from '../freshness.js';
import { BATCH_CHECK_MAX_TXIDS, OPTIMIZED_TXIDS_MAX } from '../shared/requestLimits.js';
import { TEMPLATE_MODE, TEMPLATE_NOTE, TEMPLATE_SOURCE } from '../shared/templateFacts.js';
import { cadence } from './cacheStats.js';
import type {
  BaselineComparisonPart,
  BaselinePart,
  CapabilitiesResponse,
  LimitsPart,
  MempoolPart,
  OptimizerCachePart,
  OptimizerPart,
  TemplateSummaryPart,
} from './capabilitiesSchema.js';
import {
  EXAMPLE_CALLS,
  EXPOSED_SAFELY,
  NOT_EXPOSED,
  OPTIMIZER_DATA,
  OPTIMIZER_ROLE,
  RPC_REQUEST_EXAMPLE,
  SERVICE_NAME,
  TAGLINE,
  WHAT_BOTS_CAN_ASK,
} from './capabilitiesText.js';
import { optimizerLease } from './optimizerLease.js';
import { pricingUsdc, restEndpoints, rpcMethodRows } from './pricing.js';

type Input<T extends z.ZodType> = z.input<T>;

/** Whether the optimizer's template can be served now, and why not. */
function optimizerPart(ctx: ApiContext): Input<typeof OptimizerPart> {
  const { service, enabled } = ctx.optimizer;
  const cache = service.cache;
  const stale = staleReason(ctx) !== null;
  return {
    // With the node unreachable past NODE_STALE_AFTER_MS the cache is not served (503): not "ok".
    available: enabled && cache !== undefined && !stale,
    status: !enabled ? 'disabled' : cache ? (service.lastStatus === 'ok' && !stale ? 'ok' : 'degraded') : 'warming_up',
    data: OPTIMIZER_DATA,
    role: OPTIMIZER_ROLE,
    note: TEMPLATE_NOTE,
  };
}

/** The node's template the optimized one is compared with. */
function baselinePart(ctx: ApiContext, cache: TemplateCache | undefined, now: number): Input<typeof BaselinePart> {
  const { baseline } = ctx.optimizer.service;
  return {
    ready: cache !== undefined,
    source: cache?.baseline.source ?? null,
    cachedAt: isoFromMs(cache?.cachedAt),
    cacheAgeMs: cache ? now - cache.cachedAt : null,
    txidCount: cache?.baseline.txCount ?? null,
    timeoutSeconds: ctx.config.BASELINE_TIMEOUT_SEC,
    lastError: baseline.lastError,
    lastStatus: baseline.lastStatus,
    lastDurationMs: baseline.lastDurationMs,
    summary: cache
      ? {
          selectedTxCount: cache.baseline.txCount,
          height: cache.baseline.height,
          previousBlockHash: cache.baseline.previousBlockHash,
          weightLimit: cache.baseline.weightLimitWu,
          coinbaseValue: cache.baseline.coinbaseValueSat,
        }
      : null,
  };
}

/** The mempool view the cycles read. */
function mempoolPart(ctx: ApiContext): Input<typeof MempoolPart> {
  const { mirror } = ctx.mempool;
  const info = mirror.info;
  return {
    ready: mirror.ready,
    size: mirror.txs.size,
    bytes: info?.bytes ?? null,
    usage: info?.usage ?? null,
    // Satoshis, as every unlabeled amount of the API (Core's total_fee is in BTC).
    totalFee: info?.total_fee !== undefined ? btcToSats(info.total_fee) : null,
    minFeeRate: info ? round(btcPerKvbToSatVb(info.mempoolminfee)) : null,
    lastError: mirror.lastError,
    lastStatus: mirror.ready ? (mirror.lastError ? 'error' : 'ok') : null,
    lastDurationMs: mirror.lastPollMs ?? null,
  };
}

function baselineComparisonPart(cache: TemplateCache | undefined): Input<typeof BaselineComparisonPart> {
  if (!cache) return { available: false, reason: 'no cycle has finished yet', sameTip: false };
  const { comparison } = cache;
  return {
    available: comparison.available,
    reason: comparison.reason,
    sameTip: comparison.sameTip,
    optimizedTxidCount: cache.optimized.txCount,
    baselineTxidCount: cache.baseline.txCount,
    overlapTxidCount: comparison.overlapTxidCount,
    optimizedOnlyTxidCount: comparison.optimizedOnlyTxidCount,
    baselineOnlyTxidCount: comparison.baselineOnlyTxidCount,
    optimizedHeight: comparison.optimizedHeight,
    baselineHeight: comparison.baselineHeight,
    previousBlockHash: comparison.previousBlockHash,
    feeDeltaSat: comparison.feeDeltaSat,
  };
}

function templateSummaryPart(cache: TemplateCache): Input<typeof TemplateSummaryPart> {
  return {
    height: cache.height,
    txCount: cache.optimized.txCount,
    feeSat: cache.optimized.feeSat,
    weightWu: cache.optimized.weightWu,
    baselineFeeSat: cache.baseline.feeSat,
    upperBoundFeeSat: round(cache.upperBound.feeSat, 1),
    upperBoundExact: cache.upperBound.exact,
    nativeV31FeeSat: cache.nativeV31.feeSat,
    // False when Core's v31 template itself breaks the request limits (> max_tx_count, or chunks
    // below min_fee_rate_sat_vb): then the optimized template may earn less than v31 by design.
    v31WithinRequestLimits: cache.v31WithinRequestLimits,
    clusters: cache.clusters,
  };
}

/** The optimizer cache: its cadence, lease, inputs, comparison, last cycle and receipt key. */
function optimizerCachePart(ctx: ApiContext, now: number): Input<typeof OptimizerCachePart> {
  const { service, enabled, signer } = ctx.optimizer;
  const { config } = ctx;
  const cache = service.cache;
  return {
    cadence: cadence(ctx),
    enabled,
    lease: optimizerLease(ctx),
    configured: enabled,
    ready: cache !== undefined,
    source: TEMPLATE_SOURCE,
    mode: TEMPLATE_MODE,
    baseline: baselinePart(ctx, cache, now),
    mempool: mempoolPart(ctx),
    baselineComparison: baselineComparisonPart(cache),
    cachedAt: isoFromMs(cache?.cachedAt),
    cacheAgeMs: cache ? now - cache.cachedAt : null,
    optimizedTxidCount: cache?.optimized.txCount ?? 0,
    cacheIntervalSeconds: config.OPTIMIZER_INTERVAL_SEC,
    timeoutSeconds: config.OPTIMIZER_TIMEOUT_SEC,
    request: {
      use_optimizer: enabled,
      max_tx_count: config.OPTIMIZER_MAX_TX_COUNT,
      min_fee_rate_sat_vb: config.OPTIMIZER_MIN_FEE_RATE_SAT_VB,
      include_raw_hex: false,
    },
    cycleCount: service.cycleCount,
    lastError: service.lastError,
    lastStatus: service.lastStatus,
    lastRefreshStartedAt: isoFromMs(service.lastRefreshStartedAt),
    lastRefreshFinishedAt: isoFromMs(service.lastRefreshFinishedAt),
    lastSuccessAt: isoFromMs(service.lastSuccessAt),
    nextRefreshAt: isoFromMs(service.nextRefreshAt),
    refreshInProgress: service.refreshInProgress,
    phase: service.phase,
    lastDurationMs: service.lastDurationMs,
    lastTemplateSummary: cache ? templateSummaryPart(cache) : null,
    receipt: { present: cache !== undefined, schema: 'bench-receipt/1', keyId: signer.keyId, alg: 'Ed25519', publicKey: signer.publicKeyBase64 },
  };
}

/** The limits a caller must respect: the schemas' (request limits) and the configuration's. */
function limitsPart(ctx: ApiContext): Input<typeof LimitsPart> {
  const { config } = ctx;
  return {
    batchCheckMaxTxids: BATCH_CHECK_MAX_TXIDS,
    streamTicketTtlSeconds: config.STREAM_TICKET_TTL_SECONDS,
    customerAuth: ctx.payments.capabilities.customerAuth,
    optimizedTxidsMax: OPTIMIZED_TXIDS_MAX,
    jsonRpcBatchMax: config.RPC_BATCH_MAX,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    weightLimit: MAX_BLOCK_WEIGHT_WU,
  };
}

/** `GET /v1/template/capabilities` */
export async function capabilities(ctx: ApiContext): Promise<Input<typeof CapabilitiesResponse>> {
  const now = ctx.now();
  return {
    success: true,
    name: SERVICE_NAME,
    tagline: TAGLINE,
    version: SERVICE_VERSION,
    optimizer: optimizerPart(ctx),
    optimizerCache: optimizerCachePart(ctx, now),
    directCheckConfigured: false,
    directCheckMode: 'cache_only',
    payment: ctx.payments.capabilities.payment,
    pricingUsdc: pricingUsdc(ctx.registry),
    whatBotsCanAsk: WHAT_BOTS_CAN_ASK,
    exposedSafely: EXPOSED_SAFELY,
    notExposed: NOT_EXPOSED,
    limits: limitsPart(ctx),
    jsonRpc: { endpoint: '/v1/rpc', methods: rpcMethodRows(ctx.registry), requestExample: RPC_REQUEST_EXAMPLE },
    rest: { endpoints: restEndpoints(ctx.registry) },
    examples: EXAMPLE_CALLS,
    timestamp: now,
  };
}
