/**
 * `GET /v1/template/capabilities` (free): what the service offers, what it costs, and the live state
 * of the optimizer cache (SPEC §2 "Capabilities response"). Every field is read from running state:
 * the optimizer service, the mempool view, the payment plugin and the registry.
 */
import { z } from 'zod';
import { MAX_BLOCK_WEIGHT_WU } from '../../bitcoin/consensus.js';
import { btcPerKvbToSatVb, btcToSats, isoFromMs } from '../../bitcoin/units.js';
import { round } from '../../util/round.js';
import { SERVICE_VERSION } from '../../version.js';
import type { ApiContext } from '../define.js';
import { staleReason } from '../freshness.js';
import { Cadence, cadence } from './cacheStats.js';
import { Hash, IsoTime, Sat, SatVb, Success } from '../schemas.js';
import { BATCH_CHECK_MAX_TXIDS, OPTIMIZED_TXIDS_MAX } from '../shared/requestLimits.js';
import { TEMPLATE_MODE, TEMPLATE_NOTE, TEMPLATE_SOURCE } from '../shared/templateFacts.js';
import { OptimizerLease, optimizerLease } from './optimizerLease.js';
import { pricingUsdc, restEndpoints, rpcMethodRows } from './pricing.js';

const Status = z.string().nullable();

export const CapabilitiesResponse = z.object({
  success: Success,
  name: z.string(),
  tagline: z.string(),
  version: z.string(),
  optimizer: z.object({
    available: z.boolean(),
    status: z.enum(['disabled', 'ok', 'degraded', 'warming_up']),
    data: z.string(),
    role: z.string(),
    note: z.string(),
  }),
  optimizerCache: z.object({
    cadence: Cadence,
    enabled: z.boolean(),
    lease: OptimizerLease,
    configured: z.boolean(),
    ready: z.boolean(),
    source: z.string(),
    mode: z.string(),
    baseline: z.object({
      ready: z.boolean(),
      source: z.enum(['node_getblocktemplate', 'native_v31']).nullable(),
      cachedAt: IsoTime.nullable(),
      cacheAgeMs: z.number().nullable(),
      txidCount: z.number().int().nullable(),
      timeoutSeconds: z.number(),
      lastError: z.string().nullable(),
      lastStatus: Status,
      lastDurationMs: z.number().nullable(),
      summary: z
        .object({
          selectedTxCount: z.number().int(),
          height: z.number().int(),
          previousBlockHash: Hash,
          weightLimit: z.number().int(),
          coinbaseValue: Sat.nullable(),
        })
        .nullable(),
    }),
    mempool: z.object({
      ready: z.boolean(),
      size: z.number().int(),
      bytes: z.number().int().nullable(),
      usage: z.number().int().nullable(),
      /** Satoshis. */
      totalFee: Sat.nullable(),
      minFeeRate: SatVb.nullable(),
      lastError: z.string().nullable(),
      lastStatus: Status,
      lastDurationMs: z.number().nullable(),
    }),
    baselineComparison: z.object({
      available: z.boolean(),
      reason: z.string().nullable(),
      sameTip: z.boolean(),
      optimizedTxidCount: z.number().int().optional(),
      baselineTxidCount: z.number().int().optional(),
      overlapTxidCount: z.number().int().optional(),
      optimizedOnlyTxidCount: z.number().int().optional(),
      baselineOnlyTxidCount: z.number().int().optional(),
      optimizedHeight: z.number().int().optional(),
      baselineHeight: z.number().int().optional(),
      previousBlockHash: Hash.optional(),
      feeDeltaSat: Sat.optional(),
    }),
    cachedAt: IsoTime.nullable(),
    cacheAgeMs: z.number().nullable(),
    optimizedTxidCount: z.number().int(),
    cacheIntervalSeconds: z.number(),
    timeoutSeconds: z.number(),
    request: z.object({ use_optimizer: z.boolean(), max_tx_count: z.number().int(), min_fee_rate_sat_vb: z.number(), include_raw_hex: z.literal(false) }),
    cycleCount: z.number().int(),
    lastError: z.string().nullable(),
    lastStatus: Status,
    lastRefreshStartedAt: IsoTime.nullable(),
    lastRefreshFinishedAt: IsoTime.nullable(),
    lastSuccessAt: IsoTime.nullable(),
    nextRefreshAt: IsoTime.nullable(),
    refreshInProgress: z.boolean(),
    phase: z.string(),
    lastDurationMs: z.number().nullable(),
    lastTemplateSummary: z
      .object({
        height: z.number().int(),
        txCount: z.number().int(),
        feeSat: Sat,
        weightWu: z.number().int(),
        baselineFeeSat: Sat,
        upperBoundFeeSat: z.number(),
        upperBoundExact: z.boolean(),
        nativeV31FeeSat: Sat,
        /** False when Core's v31 template itself breaks the request limits: then the optimized template may earn less than v31 by design. */
        v31WithinRequestLimits: z.boolean(),
        clusters: z.object({ count: z.number().int(), largest: z.number().int(), optimalCount: z.number().int() }),
      })
      .nullable(),
    receipt: z.object({ present: z.boolean(), schema: z.literal('bench-receipt/1'), keyId: z.string(), alg: z.literal('Ed25519'), publicKey: z.string() }),
  }),
  directCheckConfigured: z.boolean(),
  directCheckMode: z.string(),
  payment: z.object({
    model: z.string(),
    customerApiKeys: z.literal(false),
    payTo: z.string(),
    networks: z.array(z.object({ network: z.string(), label: z.string(), asset: z.string() })),
    settlement: z.enum(['facilitator', 'local-unsettled', 'demo']),
    note: z.string(),
  }),
  pricingUsdc: z.array(z.object({ price: z.string(), routes: z.array(z.string()), bestFor: z.string() })),
  whatBotsCanAsk: z.array(z.string()),
  exposedSafely: z.array(z.string()),
  notExposed: z.array(z.string()),
  limits: z.object({
    batchCheckMaxTxids: z.number().int(),
    streamTicketTtlSeconds: z.number().int(),
    customerAuth: z.literal('x402 only'),
    optimizedTxidsMax: z.number().int(),
    jsonRpcBatchMax: z.number().int(),
    bodyLimitBytes: z.number().int(),
    weightLimit: z.number().int(),
  }),
  jsonRpc: z.object({
    endpoint: z.literal('/v1/rpc'),
    methods: z.array(z.object({ method: z.string(), priceUsd: z.number(), summary: z.string() })),
    requestExample: z.object({ jsonrpc: z.literal('2.0'), id: z.number(), method: z.string(), params: z.array(z.unknown()) }),
  }),
  rest: z.object({
    endpoints: z.array(z.object({ method: z.enum(['GET', 'POST']), path: z.string(), priceUsd: z.number().nullable(), summary: z.string() })),
  }),
  examples: z.array(z.object({ title: z.string(), request: z.unknown(), response: z.unknown() })),
  /** Epoch milliseconds, as SPEC §2 fixes for this field (every other timestamp is ISO 8601). */
  timestamp: z.number().int(),
});

export function capabilities(ctx: ApiContext): z.input<typeof CapabilitiesResponse> {
  const { service, enabled, signer } = ctx.optimizer;
  const now = ctx.now();
  const cache = service.cache;
  const { mirror } = ctx.mempool;
  const { config } = ctx;
  const iso = isoFromMs;
  const stale = staleReason(ctx) !== null;
  const payments = ctx.payments.capabilities;
  const baselineReady = cache !== undefined;
  const info = mirror.info;

  return {
    success: true,
    name: 'Bitcoin fee intelligence',
    tagline: 'Bitcoin data, fee estimates and block-template intelligence over REST and EVM-style JSON-RPC, paid per request with x402.',
    version: SERVICE_VERSION,
    optimizer: {
      // With the node unreachable past NODE_STALE_AFTER_MS the cache is not served (503): not "ok".
      available: enabled && cache !== undefined && !stale,
      status: !enabled ? 'disabled' : cache ? (service.lastStatus === 'ok' && !stale ? 'ok' : 'degraded') : 'warming_up',
      data: 'native C++ cluster linearization (spanning-forest) and block-template optimizer over the whole mempool, every cycle',
      role: 'builds the highest-fee template under consensus limits and compares it with the node getblocktemplate baseline',
      note: TEMPLATE_NOTE,
    },
    optimizerCache: {
      cadence: cadence(ctx),
      enabled,
      lease: optimizerLease(ctx),
      configured: enabled,
      ready: cache !== undefined,
      source: TEMPLATE_SOURCE,
      mode: TEMPLATE_MODE,
      baseline: {
        ready: baselineReady,
        source: cache?.baseline.source ?? null,
        cachedAt: iso(cache?.cachedAt),
        cacheAgeMs: cache ? now - cache.cachedAt : null,
        txidCount: cache?.baseline.txCount ?? null,
        timeoutSeconds: config.BASELINE_TIMEOUT_SEC,
        lastError: service.baseline.lastError,
        lastStatus: service.baseline.lastStatus,
        lastDurationMs: service.baseline.lastDurationMs,
        summary: cache
          ? {
              selectedTxCount: cache.baseline.txCount,
              height: cache.baseline.height,
              previousBlockHash: cache.baseline.previousBlockHash,
              weightLimit: cache.baseline.weightLimitWu,
              coinbaseValue: cache.baseline.coinbaseValueSat,
            }
          : null,
      },
      mempool: {
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
      },
      baselineComparison: cache
        ? {
            available: cache.comparison.available,
            reason: cache.comparison.reason,
            sameTip: cache.comparison.sameTip,
            optimizedTxidCount: cache.optimized.txCount,
            baselineTxidCount: cache.baseline.txCount,
            overlapTxidCount: cache.comparison.overlapTxidCount,
            optimizedOnlyTxidCount: cache.comparison.optimizedOnlyTxidCount,
            baselineOnlyTxidCount: cache.comparison.baselineOnlyTxidCount,
            optimizedHeight: cache.comparison.optimizedHeight,
            baselineHeight: cache.comparison.baselineHeight,
            previousBlockHash: cache.comparison.previousBlockHash,
            feeDeltaSat: cache.comparison.feeDeltaSat,
          }
        : { available: false, reason: 'no cycle has finished yet', sameTip: false },
      cachedAt: iso(cache?.cachedAt),
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
      lastRefreshStartedAt: iso(service.lastRefreshStartedAt),
      lastRefreshFinishedAt: iso(service.lastRefreshFinishedAt),
      lastSuccessAt: iso(service.lastSuccessAt),
      nextRefreshAt: iso(service.nextRefreshAt),
      refreshInProgress: service.refreshInProgress,
      phase: service.phase,
      lastDurationMs: service.lastDurationMs,
      lastTemplateSummary: cache
        ? {
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
          }
        : null,
      receipt: { present: cache !== undefined, schema: 'bench-receipt/1', keyId: signer.keyId, alg: 'Ed25519', publicKey: signer.publicKeyBase64 },
    },
    directCheckConfigured: false,
    directCheckMode: 'cache_only',
    payment: payments.payment,
    pricingUsdc: pricingUsdc(ctx.registry),
    whatBotsCanAsk: [
      'What is the Bitcoin block height?',
      'What fee rate confirms within N blocks?',
      'What is the balance and what are the UTXOs of this address?',
      'Decode this transaction: fee, fee rate, status.',
      'How congested is the mempool, and what does the fee histogram look like?',
      'Where is my transaction in the mempool, what is its effective (CPFP) fee rate, and how many blocks away is it?',
      'Was this transaction replaced (RBF), and by what?',
      'Is my transaction in the optimized next-block template, and in the node baseline?',
      'Urgent / normal / cheap fee rates right now.',
      'The optimized template txid list with a signed receipt (miners, Stratum v2 job declaration).',
    ],
    exposedSafely: [
      'block height, fee estimates, fee histograms and mempool statistics',
      'per-transaction mempool analysis for a txid you name',
      'template membership and projected block for a txid you name',
      'the optimized template txid list (no raw transaction hex), with an Ed25519 receipt',
    ],
    notExposed: [
      'a raw mempool dump',
      'raw transaction hex in template responses',
      'cluster internals beyond the requested transaction',
      'server-side signing, custody or key storage (the service never holds keys or funds)',
    ],
    limits: {
      batchCheckMaxTxids: BATCH_CHECK_MAX_TXIDS,
      streamTicketTtlSeconds: config.STREAM_TICKET_TTL_SECONDS,
      customerAuth: payments.customerAuth,
      optimizedTxidsMax: OPTIMIZED_TXIDS_MAX,
      jsonRpcBatchMax: config.RPC_BATCH_MAX,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      weightLimit: MAX_BLOCK_WEIGHT_WU,
    },
    jsonRpc: {
      endpoint: '/v1/rpc',
      methods: rpcMethodRows(ctx.registry),
      requestExample: { jsonrpc: '2.0', id: 1, method: 'svc_feeLadder', params: [{ targetBlocks: 6 }] },
    },
    rest: { endpoints: restEndpoints(ctx.registry) },
    examples: [
      { title: 'Block height', request: 'GET /v1/block-height', response: { success: true, height: 850000, hex: '0xcf850' } },
      {
        title: 'Template check',
        request: 'POST /v1/template/check {"txid":"<64 hex>","targetBlocks":6}',
        response: 'inOptimizedTemplate, inBaselineTemplate, comparison',
      },
      {
        title: 'Fee ladder over JSON-RPC',
        request: { jsonrpc: '2.0', id: 1, method: 'svc_feeLadder', params: [{ targetBlocks: 3 }] },
        response: 'ladder.urgent/normal/cheap.satVb',
      },
    ],
    timestamp: now,
  };
}
