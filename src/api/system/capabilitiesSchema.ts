/**
 * The answer of `GET /v1/template/capabilities` (SPEC §2 "Capabilities response"), one named part
 * per section so each builder in `capabilities.ts` is typed by the part it answers.
 */
import { z } from 'zod';
import { Hash, IsoTime, Sat, SatVb, Success } from '../schemas.js';
import { ClusterStatsShape } from '../../optimizer/cache/cacheShapes.js';
import { Cadence } from './cacheStats.js';
import { OptimizerLease } from './optimizerLease.js';

const Status = z.string().nullable();

export const OptimizerPart = z.object({
  available: z.boolean(),
  status: z.enum(['disabled', 'ok', 'degraded', 'warming_up']),
  data: z.string(),
  role: z.string(),
  note: z.string(),
});

export const BaselinePart = z.object({
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
});

export const MempoolPart = z.object({
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
});

export const BaselineComparisonPart = z.object({
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
});

export const TemplateSummaryPart = z.object({
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
  clusters: ClusterStatsShape,
});

export const OptimizerCachePart = z.object({
  cadence: Cadence,
  enabled: z.boolean(),
  lease: OptimizerLease,
  configured: z.boolean(),
  ready: z.boolean(),
  source: z.string(),
  mode: z.string(),
  baseline: BaselinePart,
  mempool: MempoolPart,
  baselineComparison: BaselineComparisonPart,
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
  lastTemplateSummary: TemplateSummaryPart.nullable(),
  receipt: z.object({ present: z.boolean(), schema: z.literal('bench-receipt/1'), keyId: z.string(), alg: z.literal('Ed25519'), publicKey: z.string() }),
});

export const PaymentPart = z.object({
  model: z.string(),
  customerApiKeys: z.literal(false),
  payTo: z.string(),
  networks: z.array(z.object({ network: z.string(), label: z.string(), asset: z.string() })),
  settlement: z.enum(['facilitator', 'local-unsettled', 'demo']),
  note: z.string(),
});

export const LimitsPart = z.object({
  batchCheckMaxTxids: z.number().int(),
  streamTicketTtlSeconds: z.number().int(),
  customerAuth: z.literal('x402 only'),
  optimizedTxidsMax: z.number().int(),
  jsonRpcBatchMax: z.number().int(),
  bodyLimitBytes: z.number().int(),
  weightLimit: z.number().int(),
});

export const JsonRpcPart = z.object({
  endpoint: z.literal('/v1/rpc'),
  methods: z.array(z.object({ method: z.string(), priceUsd: z.number(), summary: z.string() })),
  requestExample: z.object({ jsonrpc: z.literal('2.0'), id: z.number(), method: z.string(), params: z.array(z.unknown()) }),
});

export const CapabilitiesResponse = z.object({
  success: Success,
  name: z.string(),
  tagline: z.string(),
  version: z.string(),
  optimizer: OptimizerPart,
  optimizerCache: OptimizerCachePart,
  directCheckConfigured: z.boolean(),
  directCheckMode: z.string(),
  payment: PaymentPart,
  pricingUsdc: z.array(z.object({ price: z.string(), routes: z.array(z.string()), bestFor: z.string() })),
  whatBotsCanAsk: z.array(z.string()),
  exposedSafely: z.array(z.string()),
  notExposed: z.array(z.string()),
  limits: LimitsPart,
  jsonRpc: JsonRpcPart,
  rest: z.object({
    endpoints: z.array(z.object({ method: z.enum(['GET', 'POST']), path: z.string(), priceUsd: z.number().nullable(), summary: z.string() })),
  }),
  examples: z.array(z.object({ title: z.string(), request: z.unknown(), response: z.unknown() })),
  /** Epoch milliseconds, as SPEC §2 fixes for this field (every other timestamp is ISO 8601). */
  timestamp: z.number().int(),
});
