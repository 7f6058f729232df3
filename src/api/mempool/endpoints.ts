/**
 * Mempool intelligence: statistics and fee landscape, fee histogram with a target recommendation,
 * one transaction's entry with our analysis, and its RBF replacement history. Statistics come from
 * the mempool mirror (one consistent snapshot, refreshed every `MEMPOOL_POLL_MS`); the per-tx entry
 * is read live from the node.
 */
import { z } from 'zod';
import { btcPerKvbToSatVb } from '../../bitcoin/units.js';
import { Errors } from '../../errors.js';
import { feeHistogram } from '../../fees/feeHistogram.js';
import { congestion, feeRatePercentiles } from '../../fees/feeLandscape.js';
import { isAbsent } from '../../node/absent.js';
import { round } from '../../util/round.js';
import { defineRoute, type ApiContext } from '../define.js';
import { snapshotAge } from '../freshness.js';
import { absentIsFalse, assertTxKnown } from '../txKnown.js';
import { blocksQuery, Freshness, Hash, IsoTime, Sat, SatVb, strictObject, Success, TxidParams } from '../schemas.js';
import { MempoolTxAnalysis, mempoolTxAnalysis } from './mempoolTxAnalysis.js';

/** The mirror's current view, or 503 before its first poll. */
function view(ctx: ApiContext) {
  const { mirror } = ctx.mempool;
  const info = mirror.info;
  const at = mirror.matchedNodeAt;
  if (!mirror.ready || !info || at === undefined) throw new Errors.MEMPOOL_NOT_READY(mirror.lastError ?? 'the first mempool poll has not finished');
  return { info, sample: ctx.fees.sample(), ...snapshotAge(ctx.now(), at) };
}

const Derivation = z.string();

const StatsResponse = z.object({
  success: Success,
  ...Freshness,
  count: z.number().int(),
  vsize: z.number().int(),
  bytes: z.number().int(),
  usage: z.number().int(),
  maxMempool: z.number().int(),
  totalFeeSat: Sat,
  minFeeRateSatVb: SatVb,
  minRelayFeeRateSatVb: SatVb,
  congestion: z.object({ level: z.enum(['clear', 'normal', 'busy', 'congested', 'severe']), backlogBlocks: z.number(), explanation: z.string() }),
  /** Null percentiles: an empty mempool. */
  feeRates: z.object({
    unit: z.literal('sat/vB'),
    weighting: z.string(),
    min: SatVb.nullable(),
    p5: SatVb.nullable(),
    p10: SatVb.nullable(),
    p25: SatVb.nullable(),
    p50: SatVb.nullable(),
    p75: SatVb.nullable(),
    p90: SatVb.nullable(),
    p95: SatVb.nullable(),
    max: SatVb.nullable(),
  }),
  nextBlock: z.object({ feeRateSatVb: SatVb, full: z.boolean(), derivation: Derivation }).nullable(),
});

const FeesResponse = z.object({
  success: Success,
  ...Freshness,
  target: z.number().int(),
  unit: z.literal('sat/vB'),
  recommended: z.object({ feeRateSatVb: SatVb, competitive: z.boolean(), vsizeAhead: z.number(), derivation: Derivation }),
  floorFeeRateSatVb: SatVb,
  totals: z.object({ count: z.number().int(), vsize: z.number().int(), feeSat: Sat }),
  /** Buckets from the highest fee rate down; `cumulativeVsize` = vsize at this rate or above. */
  histogram: z.array(
    z.object({
      minFeeRateSatVb: SatVb,
      maxFeeRateSatVb: SatVb.nullable(),
      count: z.number().int(),
      vsize: z.number().int(),
      feeSat: Sat,
      cumulativeVsize: z.number().int(),
    }),
  ),
});

const Version = z.object({ txid: Hash, feeSat: Sat, vsize: z.number().int(), feeRateSatVb: SatVb, firstSeen: IsoTime });
type ReplacedNodeShape = z.infer<typeof Version> & { replacedAt: string; replaces: ReplacedNodeShape[] };
const ReplacedNode: z.ZodType<ReplacedNodeShape> = Version.extend({
  replacedAt: IsoTime,
  get replaces() {
    return z.array(ReplacedNode);
  },
});

const ReplacementsResponse = z.object({
  success: Success,
  status: z.enum(['replaced', 'in_mempool', 'evicted', 'not_in_mempool']),
  txid: Hash,
  replacedBy: Version.extend({ replacedAt: IsoTime, feeDeltaSat: Sat, feeRateDeltaSatVb: z.number() }).nullable(),
  latestTxid: Hash,
  replaces: z.array(ReplacedNode),
  evictedWithReplacementOf: Hash.nullable(),
  eventCount: z.number().int(),
  tracking: z.object({ since: z.string(), pollMs: z.number().int(), note: z.string() }),
  feeUnit: z.literal('sat'),
  feeRateUnit: z.literal('sat/vB'),
});

const EXAMPLE_TXID = 'e4b2c1a0f8d7e6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4';
const EXAMPLE_TXID_2 = '0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d';

export const mempoolRoutes = [
  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/stats',
    snapshot: 'mempool',
    price: 0.001,
    summary: 'Mempool size, congestion and fee landscape',
    description:
      'Congestion = pending vsize ÷ 1,000,000 vB (clear < 1 block, normal 1–3, busy 3–10, congested 10–50, severe ≥ 50). Fee-rate percentiles are weighted by vsize over effective (chunk) rates.',
    response: StatsResponse,
    errors: ['MEMPOOL_NOT_READY'],
    example: {
      response: {
        success: true,
        asOf: '2026-11-25T10:00:00.000Z',
        ageMs: 1_200,
        count: 41_000,
        vsize: 24_500_000,
        bytes: 41_000_000,
        usage: 210_000_000,
        maxMempool: 300_000_000,
        totalFeeSat: 61_000_000,
        minFeeRateSatVb: 1,
        minRelayFeeRateSatVb: 0.1,
        congestion: { level: 'congested', backlogBlocks: 24.5, explanation: '…' },
        feeRates: {
          unit: 'sat/vB',
          weighting: 'by vsize, effective (chunk) fee rates',
          min: 1,
          p5: 1,
          p10: 1.2,
          p25: 2,
          p50: 4.1,
          p75: 9,
          p90: 18,
          p95: 30,
          max: 650,
        },
        nextBlock: { feeRateSatVb: 12.4, full: true, derivation: '…' },
      },
    },
  }).handle(async (ctx) => {
    const { info, sample, asOf, ageMs } = view(ctx);
    const next = ctx.fees.projection(1);
    return {
      success: true,
      asOf,
      ageMs,
      count: sample.count,
      vsize: sample.vsize,
      bytes: info.bytes,
      usage: info.usage,
      maxMempool: info.maxmempool,
      totalFeeSat: sample.feeSat,
      minFeeRateSatVb: round(btcPerKvbToSatVb(info.mempoolminfee)),
      minRelayFeeRateSatVb: round(btcPerKvbToSatVb(info.minrelaytxfee)),
      congestion: congestion(sample.vsize),
      feeRates: { unit: 'sat/vB', weighting: 'by vsize, effective (chunk) fee rates', ...feeRatePercentiles(sample) },
      nextBlock: next && { feeRateSatVb: next.feeRateSatVb, full: next.competitive, derivation: next.derivation },
    };
  }),

  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/fees',
    snapshot: 'mempool',
    price: 0.001,
    summary: 'Fee-rate histogram and the fee rate for a confirmation target',
    description:
      'The rate for N blocks is the effective rate of the transaction at N × 998,000 vB from the top of the queue, rounded up to 0.1 sat/vB, never below the floor (max of the mempool minimum and the min relay fee).',
    query: strictObject({ target: blocksQuery(10) }),
    response: FeesResponse,
    errors: ['MEMPOOL_NOT_READY'],
    example: {
      query: { target: '10' },
      response: {
        success: true,
        asOf: '2026-11-25T10:00:00.000Z',
        ageMs: 1_200,
        target: 10,
        unit: 'sat/vB',
        recommended: { feeRateSatVb: 4.2, competitive: true, vsizeAhead: 9_980_000, derivation: '…' },
        floorFeeRateSatVb: 1,
        totals: { count: 41_000, vsize: 24_500_000, feeSat: 61_000_000 },
        histogram: [{ minFeeRateSatVb: 4, maxFeeRateSatVb: 5, count: 3_100, vsize: 1_250_000, feeSat: 5_600_000, cumulativeVsize: 9_100_000 }],
      },
    },
  }).handle(async (ctx, { query }) => {
    const { target } = query;
    const { sample, asOf, ageMs } = view(ctx);
    const recommendation = ctx.fees.projection(target);
    if (!recommendation) throw new Errors.MEMPOOL_NOT_READY('the first mempool poll has not finished');
    return {
      success: true,
      asOf,
      ageMs,
      target,
      unit: 'sat/vB',
      recommended: {
        feeRateSatVb: recommendation.feeRateSatVb,
        competitive: recommendation.competitive,
        vsizeAhead: recommendation.vsizeAhead,
        derivation: recommendation.derivation,
      },
      floorFeeRateSatVb: round(ctx.fees.floorFeeRateSatVb()),
      totals: { count: sample.count, vsize: sample.vsize, feeSat: sample.feeSat },
      histogram: feeHistogram(sample),
    };
  }),

  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/tx/:txid',
    price: 0.001,
    summary: 'Mempool entry with fee, package and position analysis',
    description:
      'Read live from the node (getmempoolentry). The effective fee rate is the rate of the chunk the transaction will be mined with: the node’s own chunk on v31, else our optimizer’s, else a package estimate. `position.blocksAway` is the projected block (1 = next).',
    params: TxidParams,
    response: MempoolTxAnalysis.extend({ success: Success }),
    errors: ['INVALID_TXID', 'TX_NOT_IN_MEMPOOL', 'TX_NOT_FOUND', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    // Before payment: not in the mempool is 404 (TX_NOT_IN_MEMPOOL when the node knows it otherwise).
    precheck: async (ctx, { params }) => {
      const inMempool = ctx.mempool.mirror.txs.has(params.txid) || (await ctx.node.getMempoolEntry(params.txid).then(() => true, absentIsFalse));
      if (inMempool) return;
      await assertTxKnown(ctx, params.txid);
      throw new Errors.TX_NOT_IN_MEMPOOL(params.txid);
    },
    example: {
      params: { txid: EXAMPLE_TXID },
      response: {
        success: true,
        txid: EXAMPLE_TXID,
        feeSat: 1_410,
        modifiedFeeSat: 1_410,
        vsize: 141,
        weight: 561,
        feeRateSatVb: 10,
        effectiveFeeRate: { satVb: 14.5, source: 'node_chunk' },
        firstSeen: '2026-11-25T09:58:00.000Z',
        ageSeconds: 120,
        entryHeight: 850_000,
        rbf: { replaceable: true, bip125Signaling: null, fullRbf: true },
        ancestors: { count: 0, vsize: 0, feeSat: 0 },
        descendants: { count: 1, vsize: 110, feeSat: 2_200 },
        parents: [],
        children: [EXAMPLE_TXID_2],
        position: { blocksAway: 2, beyondProjection: false, source: 'optimizer', vsizeAhead: null },
        belowMinimum: false,
        unit: { fee: 'sat', feeRate: 'sat/vB', size: 'vB' },
      },
    },
  }).handle(async (ctx, { params }) => {
    const entry = await ctx.node.getMempoolEntry(params.txid);
    return { success: true, ...mempoolTxAnalysis(ctx, params.txid, entry) };
  }),

  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/tx/:txid/replacements',
    price: 0.001,
    summary: 'RBF replacement history of a transaction',
    description:
      'What this transaction replaced (as a tree of earlier versions) and what replaced it (up to the newest version), as seen by the mempool mirror; the history persists across restarts.',
    params: TxidParams,
    response: ReplacementsResponse,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    precheck: async (ctx, { params }) => assertTxKnown(ctx, params.txid),
    example: {
      params: { txid: EXAMPLE_TXID },
      response: {
        success: true,
        status: 'replaced',
        txid: EXAMPLE_TXID,
        replacedBy: {
          txid: EXAMPLE_TXID_2,
          feeSat: 2_820,
          vsize: 141,
          feeRateSatVb: 20,
          firstSeen: '2026-11-25T10:00:00.000Z',
          replacedAt: '2026-11-25T10:00:01.000Z',
          feeDeltaSat: 1_410,
          feeRateDeltaSatVb: 10,
        },
        latestTxid: EXAMPLE_TXID_2,
        replaces: [],
        evictedWithReplacementOf: null,
        eventCount: 1,
        tracking: { since: 'service start or earlier (history persists across restarts)', pollMs: 2000, note: '…' },
        feeUnit: 'sat',
        feeRateUnit: 'sat/vB',
      },
    },
  }).handle(async (ctx, { params }) => {
    const { txid } = params;
    const { mirror, tracker } = ctx.mempool;
    const history = tracker.history(txid);
    // Only "the node does not know it" means absent: an unreachable node is a 503, not a 404.
    const absent = (error: unknown): false => {
      if (isAbsent(error)) return false;
      throw error;
    };
    const inMempool = mirror.txs.has(txid) || (await ctx.node.getMempoolEntry(txid).then(() => true, absent));
    const known = inMempool || history.eventCount > 0 || (await ctx.node.getRawTransaction(txid).then(() => true, absent));
    if (!known) throw new Errors.TX_NOT_FOUND(txid);
    const status = history.replacedBy ? 'replaced' : inMempool ? 'in_mempool' : history.evictedWithReplacementOf ? 'evicted' : 'not_in_mempool';
    return {
      success: true,
      status,
      ...history,
      tracking: {
        since: tracker.store.size() > 0 || mirror.ready ? 'service start or earlier (history persists across restarts)' : 'not yet started',
        pollMs: ctx.config.MEMPOOL_POLL_MS,
        note:
          ctx.mempool.follower?.mode === 'events'
            ? "replacements are seen from the node's events (ZMQ): every version, also one replaced a moment after it appeared"
            : 'replacements are seen by polling the node mempool; a version that appeared and was replaced between two polls is not recorded',
      },
      feeUnit: 'sat',
      feeRateUnit: 'sat/vB',
    };
  }),
];
