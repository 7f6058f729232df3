/**
 * `GET /v1/template/capabilities` (free): what the service offers, what it costs, and the live state
 * of the optimizer cache (SPEC §2 "Capabilities response"). Every field is read from running state:
 * the optimizer service, the mempool view, the payment plugin and the route table.
 */
import type { FastifyInstance } from 'fastify';
import { RPC_METHOD_PRICES_USD, REST_PRICES_USD } from '../payments/prices.js';
import { btcPerKvbToSatVb } from '../fees/feeEstimate.js';
import { btcToSats } from '../node/bitcoinNode.js';
import { round } from '../util/round.js';
import { SERVICE_VERSION } from '../version.js';
import type { RouteContext } from './context.js';
import { BATCH_CHECK_MAX_TXIDS, OPTIMIZED_TXIDS_MAX } from './template.js';
import { TEMPLATE_MODE, TEMPLATE_NOTE, TEMPLATE_SOURCE } from './templateAnswers.js';

export const STREAM_TICKET_TTL_SECONDS = 600;

export function capabilities(app: FastifyInstance, ctx: RouteContext, now: number) {
  const { service, enabled, signer } = app.optimizer;
  const cache = service.cache;
  const { mirror } = app.mempool;
  const { config } = ctx.deps;
  const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  const payments = app.hasDecorator('payments') ? app.payments.capabilities : null;
  const baselineReady = cache !== undefined;
  const info = mirror.info;

  return {
    success: true,
    name: 'Bitcoin fee intelligence',
    tagline: 'Bitcoin data, fee estimates and block-template intelligence over REST and EVM-style JSON-RPC, paid per request with x402.',
    version: SERVICE_VERSION,
    optimizer: {
      available: enabled && cache !== undefined,
      status: !enabled ? 'disabled' : cache ? (service.lastStatus === 'ok' ? 'ok' : 'degraded') : 'warming_up',
      data: 'native C++ cluster linearization (spanning-forest) and block-template optimizer over the whole mempool, every cycle',
      role: 'builds the highest-fee template under consensus limits and compares it with the node getblocktemplate baseline',
      note: TEMPLATE_NOTE,
    },
    optimizerCache: {
      enabled,
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
        summary: cache && {
          selectedTxCount: cache.baseline.txCount,
          height: cache.baseline.height,
          previousBlockHash: cache.baseline.previousBlockHash,
          weightLimit: cache.baseline.weightLimitWu,
          coinbaseValue: cache.baseline.coinbaseValueSat,
        },
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
      lastTemplateSummary: cache && {
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
      },
      receipt: { present: cache !== undefined, schema: 'bench-receipt/1', keyId: signer.keyId, alg: 'Ed25519', publicKey: signer.publicKeyBase64 },
    },
    directCheckConfigured: false,
    directCheckMode: 'cache_only',
    payment: payments?.payment ?? null,
    pricingUsdc: payments?.pricingUsdc ?? [],
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
      streamTicketTtlSeconds: STREAM_TICKET_TTL_SECONDS,
      customerAuth: payments?.customerAuth ?? 'x402 only',
      optimizedTxidsMax: OPTIMIZED_TXIDS_MAX,
      jsonRpcBatchMax: config.RPC_BATCH_MAX,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
    },
    jsonRpc: {
      endpoint: '/v1/rpc',
      methods: Object.entries(RPC_METHOD_PRICES_USD)
        .filter(([method]) => ctx.rpcMethods.includes(method))
        .map(([method, priceUsd]) => ({ method, priceUsd })),
      requestExample: { jsonrpc: '2.0', id: 1, method: 'svc_feeLadder', params: [{ targetBlocks: 6 }] },
    },
    rest: {
      endpoints: Object.entries(REST_PRICES_USD)
        .filter(([key]) => ctx.restRoutes.includes(key))
        .map(([key, priceUsd]) => ({ method: key.split(' ')[0], path: key.split(' ')[1], priceUsd })),
    },
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
