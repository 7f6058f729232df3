/**
 * Mempool intelligence: statistics and fee landscape, fee histogram with a target recommendation,
 * one transaction's entry with our analysis, and its RBF replacement history. Statistics come from
 * the mempool mirror (one consistent snapshot, refreshed every `MEMPOOL_POLL_MS`); the per-tx entry
 * is read live from the node. Each route's handler is the named function above its declaration;
 * answers' shapes are in `endpoints.schemas.ts`, their examples in `endpoints.examples.ts`.
 */
import type { z } from 'zod';
import { btcPerKvbToSatVb } from '../../bitcoin/units.js';
import { Errors } from '../../errors.js';
import { feeHistogram } from '../../fees/feeHistogram.js';
import { congestion, feeRatePercentiles } from '../../fees/feeLandscape.js';
import { isAbsent } from '../../node/absent.js';
import { round } from '../../util/round.js';
import { defineRoute, type ApiContext } from '../define.js';
import { snapshotAge } from '../freshness.js';
import { absentIsFalse, assertTxKnown } from '../txKnown.js';
import { blocksQuery, strictObject, TxidParams } from '../schemas.js';
import { EXAMPLE_FEES, EXAMPLE_MEMPOOL_TX, EXAMPLE_REPLACEMENTS, EXAMPLE_STATS, EXAMPLE_TXID } from './endpoints.examples.js';
import { FeesResponse, MempoolTxResponse, ReplacementsResponse, StatsResponse } from './endpoints.schemas.js';
import { mempoolTxAnalysis } from './mempoolTxAnalysis.js';

type TxidInput = { params: z.output<typeof TxidParams> };
const FeesQuery = strictObject({ target: blocksQuery(10) });

/** The mirror's current view, or 503 before its first poll. */
function view(ctx: ApiContext) {
  const { mirror } = ctx.mempool;
  const info = mirror.info;
  const at = mirror.matchedNodeAt;
  if (!mirror.ready || !info || at === undefined) throw new Errors.MEMPOOL_NOT_READY(mirror.lastError ?? 'the first mempool poll has not finished');
  return { info, sample: ctx.fees.sample(), ...snapshotAge(ctx.now(), at) };
}

/** `GET /v1/mempool/stats` */
async function mempoolStats(ctx: ApiContext): Promise<z.input<typeof StatsResponse>> {
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
}

/** `GET /v1/mempool/fees` */
async function mempoolFees(ctx: ApiContext, { query }: { query: z.output<typeof FeesQuery> }): Promise<z.input<typeof FeesResponse>> {
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
}

/** Before payment: not in the mempool is 404 (TX_NOT_IN_MEMPOOL when the node knows it otherwise). */
async function checkInMempool(ctx: ApiContext, { params }: TxidInput): Promise<void> {
  const inMempool = ctx.mempool.mirror.txs.has(params.txid) || (await ctx.node.getMempoolEntry(params.txid).then(() => true, absentIsFalse));
  if (inMempool) return;
  await assertTxKnown(ctx, params.txid);
  throw new Errors.TX_NOT_IN_MEMPOOL(params.txid);
}

/** `GET /v1/mempool/tx/:txid` */
async function mempoolTx(ctx: ApiContext, { params }: TxidInput): Promise<z.input<typeof MempoolTxResponse>> {
  const entry = await ctx.node.getMempoolEntry(params.txid);
  return { success: true, ...mempoolTxAnalysis(ctx, params.txid, entry) };
}

async function checkTxKnown(ctx: ApiContext, { params }: TxidInput): Promise<void> {
  await assertTxKnown(ctx, params.txid);
}

/** Only "the node does not know it" means absent: an unreachable node is a 503, not a 404. */
function absentOnly(error: unknown): false {
  if (isAbsent(error)) return false;
  throw error;
}

/** `GET /v1/mempool/tx/:txid/replacements` */
async function replacements(ctx: ApiContext, { params }: TxidInput): Promise<z.input<typeof ReplacementsResponse>> {
  const { txid } = params;
  const { mirror, tracker } = ctx.mempool;
  const history = tracker.history(txid);
  const inMempool = mirror.txs.has(txid) || (await ctx.node.getMempoolEntry(txid).then(() => true, absentOnly));
  const known = inMempool || history.eventCount > 0 || (await ctx.node.getRawTransaction(txid).then(() => true, absentOnly));
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
}

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
    example: { response: EXAMPLE_STATS },
  }).handle(mempoolStats),

  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/fees',
    snapshot: 'mempool',
    price: 0.001,
    summary: 'Fee-rate histogram and the fee rate for a confirmation target',
    description:
      'The rate for N blocks is the effective rate of the transaction at N × 998,000 vB from the top of the queue, rounded up to 0.1 sat/vB, never below the floor (max of the mempool minimum and the min relay fee).',
    query: FeesQuery,
    response: FeesResponse,
    errors: ['MEMPOOL_NOT_READY'],
    example: { query: { target: '10' }, response: EXAMPLE_FEES },
  }).handle(mempoolFees),

  defineRoute({
    family: 'mempool',
    method: 'GET',
    path: '/v1/mempool/tx/:txid',
    price: 0.001,
    summary: 'Mempool entry with fee, package and position analysis',
    description:
      'Read live from the node (getmempoolentry). The effective fee rate is the rate of the chunk the transaction will be mined with: the node’s own chunk on v31, else our optimizer’s, else a package estimate. `position.blocksAway` is the projected block (1 = next).',
    params: TxidParams,
    response: MempoolTxResponse,
    errors: ['INVALID_TXID', 'TX_NOT_IN_MEMPOOL', 'TX_NOT_FOUND', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    precheck: checkInMempool,
    example: { params: { txid: EXAMPLE_TXID }, response: EXAMPLE_MEMPOOL_TX },
  }).handle(mempoolTx),

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
    precheck: checkTxKnown,
    example: { params: { txid: EXAMPLE_TXID }, response: EXAMPLE_REPLACEMENTS },
  }).handle(replacements),
];
