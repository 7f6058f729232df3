/**
 * Template intelligence from the optimizer cache, over REST and as `svc_*` JSON-RPC methods (same
 * answers, built by `templateAnswers.ts`): free health; paid membership checks (single and
 * batch), the fee ladder, and the optimized txid list with its signed receipt. Before the first
 * cycle has published, paid template answers are 503 with `Retry-After`, not wrong data.
 */
import { z } from 'zod';
import type { TemplateCache } from '../../optimizer/cache/templateCache.js';
import { defineRoute, defineRpcMethod, type ApiContext } from '../define.js';
import { snapshotAge } from '../freshness.js';
import { assertAnyTxKnown, assertTxKnown } from '../txKnown.js';
import { Freshness, strictObject, Success, TargetBlocks, Txid } from '../schemas.js';
import { specNamed } from '../specNames.js';
import { BUMP_NOTE, BumpPlanAnswer, bumpPlanFor, TargetSatVb } from './bumpPlanAnswer.js';
import { EXAMPLE_BUMP_PLAN } from './bumpPlanExample.js';
import { BlockAuditsAnswer, blockAuditsAnswer, BlockAuditsQuery, BLOCK_AUDIT_NOTE } from './blockAudits.js';
import {
  FeeLadderAnswer,
  feeLadderAnswer,
  OptimizedTxidsAnswer,
  optimizedTxidsAnswer,
  requireCache,
  TemplateCheck,
  templateCheck,
  TemplateHealth,
  templateHealth,
} from './templateAnswers.js';

export const BATCH_CHECK_MAX_TXIDS = 10;
export const OPTIMIZED_TXIDS_MAX = 4000;

/** An absent body (fastify gives null) is an empty object: these bodies are optional. */
const optionalBody = <T extends z.ZodType>(schema: T) => z.preprocess((v) => v ?? {}, schema);

export const TxidRequest = specNamed(strictObject({ txid: Txid, targetBlocks: TargetBlocks }), 'TxidRequest');
/** The specification's TxidRequest, widened by the optional `targetSatVb`. */
export const BumpPlanRequest = specNamed(
  strictObject({ txid: Txid, targetBlocks: TargetBlocks, targetSatVb: TargetSatVb.optional() }),
  'BumpPlanRequest',
  'TxidRequest',
);
export const BatchTxidRequest = specNamed(
  strictObject({ txids: z.array(Txid).min(1).max(BATCH_CHECK_MAX_TXIDS), targetBlocks: TargetBlocks }),
  'BatchTxidRequest',
);
const TargetBlocksObject = strictObject({ targetBlocks: TargetBlocks });
export const TargetBlocksRequest = specNamed(optionalBody(TargetBlocksObject), 'TargetBlocksRequest');
const OptimizedTxidsObject = strictObject({ maxTxids: z.number().int().min(1).max(OPTIMIZED_TXIDS_MAX).default(OPTIMIZED_TXIDS_MAX) });
export const OptimizedTxidsRequest = optionalBody(OptimizedTxidsObject);

const BatchCheckAnswer = z.object({
  success: Success,
  targetBlocks: z.number().int(),
  count: z.number().int(),
  ...Freshness,
  cachedAt: z.string(),
  results: z.array(TemplateCheck),
});

async function bumpPlan(ctx: ApiContext, req: z.output<typeof BumpPlanRequest>): Promise<z.input<typeof BumpPlanAnswer>> {
  const plan = await bumpPlanFor(ctx, req.txid, req.targetBlocks, req.targetSatVb);
  return { success: true, ...plan, note: BUMP_NOTE };
}

const BUMP_DESCRIPTION =
  'Non-custodial RBF and CPFP plan for any mempool transaction: the least fee a replacement of the same size must pay on this node (rules 3 and 4 over the tx and every descendant it evicts at incrementalrelayfee, rule 6 checked with our linearizer) and on v30 / v29-and-older nodes, a per-size formula, the evicted txids, the inputs to keep; per spendable output the CPFP child fee that lifts the package to the target (v31 chunk and v30 ancestor math), dust, cluster and TRUC checks; the cheaper method as `recommended`, and the projected block after the bump. Target: targetSatVb, else the fee ladder normal rung for targetBlocks, never below the node floor. See docs/bump.md.';

const cache = (ctx: ApiContext): TemplateCache => requireCache(ctx.optimizer.service, ctx.optimizer.enabled);

function batchCheck(ctx: ApiContext, txids: readonly string[], targetBlocks: number): z.input<typeof BatchCheckAnswer> {
  const current = cache(ctx);
  const now = ctx.now();
  const results = txids.map((txid) => templateCheck(current, txid, targetBlocks, now));
  return {
    success: true,
    targetBlocks,
    count: results.length,
    ...snapshotAge(now, current.cachedAt),
    cachedAt: new Date(current.cachedAt).toISOString(),
    results,
  };
}

async function ladder(ctx: ApiContext, targetBlocks: number): Promise<z.input<typeof FeeLadderAnswer>> {
  const current = cache(ctx);
  const [smartTargetSatVb, smartDaySatVb] = await Promise.all([ctx.fees.smartFees.get(targetBlocks), ctx.fees.smartFees.get(144)]);
  return feeLadderAnswer({ cache: current, targetBlocks, floorSatVb: ctx.fees.floorFeeRateSatVb(), smartTargetSatVb, smartDaySatVb, now: ctx.now() });
}

const EXAMPLE_TXID = 'e4b2c1a0f8d7e6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4';
const EXAMPLE_CHECK: z.input<typeof TemplateCheck> = {
  success: true,
  txid: EXAMPLE_TXID,
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  inOptimizedTemplate: true,
  inBaselineTemplate: false,
  baselineComparisonAvailable: true,
  optimizerAdvantage: true,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  comparison: { available: true, optimizedOnlyTxidCount: 12, overlapTxidCount: 3_180, baselineOnlyTxidCount: 9 },
  note: 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction.',
  targetBlocks: 6,
  cacheAgeMs: 21_000,
  height: 850_001,
  baselineSource: 'node_getblocktemplate',
  inMempoolSnapshot: true,
  chunkFeeRateSatVb: 14.5,
  projectedBlock: 1,
  withinTarget: true,
};

const EXAMPLE_BATCH_CHECK: z.input<typeof BatchCheckAnswer> = {
  success: true,
  targetBlocks: 6,
  count: 1,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  results: [EXAMPLE_CHECK],
};
const EXAMPLE_HEALTH: z.input<typeof TemplateHealth> = {
  success: true,
  enabled: true,
  ready: true,
  status: 'ok',
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  cachedAt: '2026-11-25T10:00:00.000Z',
  cacheAgeMs: 21_000,
  height: 850_001,
  cycleCount: 42,
  refreshInProgress: false,
  phase: 'idle',
  lastStatus: 'ok',
  lastError: null,
  lastDurationMs: 1_450,
  nextRefreshAt: '2026-11-25T10:01:00.000Z',
  note: 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction.',
};
const rung = (satVb: number) => ({ satVb, useWhen: '…', derivation: '…' });
const EXAMPLE_LADDER: z.input<typeof FeeLadderAnswer> = {
  success: true,
  targetBlocks: 6,
  ladder: { urgent: rung(15.3), normal: rung(6.1), cheap: rung(2.4) },
  unit: 'sat/vB',
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  projectedBlocks: [{ block: 1, txCount: 3_200, feeSat: 25_000_000, weightWu: 3_992_000, minFeeRateSatVb: 14.5, medianFeeRateSatVb: 21, maxFeeRateSatVb: 600 }],
  floorFeeRateSatVb: 1,
  note: '…',
};

const EXAMPLE_OPTIMIZED_TXIDS: z.input<typeof OptimizedTxidsAnswer> = {
  success: true,
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  height: 850_001,
  previousBlockHash: '00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054',
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  cacheAgeMs: 21_000,
  weightLimit: 4_000_000,
  txCount: 3_200,
  feeSat: 25_000_000,
  weightWu: 3_992_000,
  sigopCost: 12_000,
  returnedTxidCount: 2,
  truncated: true,
  txids: [EXAMPLE_TXID, EXAMPLE_TXID.split('').reverse().join('')],
  wtxids: ['0b9e7c2f5a8d1e4b7c0a3f6d9e2b5c8a1f4e7d0c3b6a9f2e5d8c1b4a7f0e3d6c', EXAMPLE_TXID.split('').reverse().join('')],
  defaultWitnessCommitment: '6a24aa21a9ed921f9b76e2227d205e28f7339bf1aea5ebad6187e8082b930187ef30c18c67aa',
  receipt: {
    schema: 'bench-receipt/1',
    alg: 'Ed25519',
    keyId: 'ed25519:3f1c…',
    publicKey: '…base64…',
    payload: { schema: 'bench-receipt/1', optimized: { txidsSha256: '…' } },
    signature: '…base64…',
    covers: '…',
  },
  note: '…',
};

const EXAMPLE_AUDIT_SIDE = {
  txCount: 3_150,
  feeSat: 24_100_000,
  weightWu: 3_990_000,
  notInBlock: 60,
  blockTxsNotInIt: 41,
  matchRate: 0.98,
  feesLeftOnTableSat: 350_000,
};
const EXAMPLE_AUDIT = {
  height: 850_001,
  hash: '00000000000000000001b5e4c8a0f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c',
  previousBlockHash: '00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054',
  time: '2026-11-25T10:03:00.000Z',
  auditedAt: '2026-11-25T10:03:01.000Z',
  block: { txCount: 3_131, feeSat: 23_750_000, weightWu: 3_991_000 },
  optimized: { ...EXAMPLE_AUDIT_SIDE, cycle: 42, cachedAt: '2026-11-25T10:02:58.000Z' },
  baseline: { ...EXAMPLE_AUDIT_SIDE, feeSat: 23_800_000, feesLeftOnTableSat: 50_000, source: 'node_getblocktemplate' as const },
};

export const templateRoutes = [
  defineRoute({
    family: 'template',
    method: 'GET',
    path: '/v1/template/block-audits',
    price: 0.01,
    summary:
      'The last blocks next to our optimized template and the baseline for the same parent: fees left on the table, txs in one and not the other, match rate',
    description: `${BLOCK_AUDIT_NOTE} Newest first; \`limit\` (default 10) of the last BLOCK_AUDIT_KEEP blocks this server saw.`,
    query: BlockAuditsQuery,
    response: BlockAuditsAnswer,
    errors: [],
    example: {
      query: { limit: '1' },
      response: {
        success: true,
        count: 1,
        keep: 144,
        summary: { blocks: 12, withTemplate: 12, feesLeftOnTableSat: 2_400_000, meanMatchRate: 0.97, failures: 0, last: EXAMPLE_AUDIT },
        audits: [EXAMPLE_AUDIT],
        note: '…',
      },
    },
  }).handle(async (ctx, { query }) => blockAuditsAnswer(ctx.optimizer.audits, ctx.config.BLOCK_AUDIT_KEEP, query.limit)),

  defineRoute({
    family: 'template',
    method: 'GET',
    path: '/v1/template/health',
    price: 'free',
    summary: 'Optimizer cache readiness and status',
    response: TemplateHealth,
    errors: [],
    example: { response: EXAMPLE_HEALTH },
  }).handle(async (ctx) => templateHealth(ctx.optimizer.service, ctx.optimizer.enabled, ctx.now())),

  defineRoute({
    family: 'template',
    method: 'POST',
    path: '/v1/template/check',
    snapshot: 'optimizer',
    price: 0.01,
    summary: 'Is this txid in the optimized and in the baseline template?',
    description: 'From the latest cached optimizer cycle: membership in both templates, the chunk fee rate and the projected block (1 = next).',
    body: TxidRequest,
    response: TemplateCheck,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY'],
    example: { body: { txid: EXAMPLE_TXID, targetBlocks: 6 }, response: EXAMPLE_CHECK },
    precheck: async (ctx, { body }) => {
      cache(ctx); // not ready (503) before not found
      await assertTxKnown(ctx, body.txid);
    },
  }).handle(async (ctx, { body }) => templateCheck(cache(ctx), body.txid, body.targetBlocks, ctx.now())),

  defineRoute({
    family: 'template',
    method: 'POST',
    path: '/v1/template/batch-check',
    snapshot: 'optimizer',
    price: 0.05,
    summary: `Template check for 1 to ${BATCH_CHECK_MAX_TXIDS} txids`,
    body: BatchTxidRequest,
    response: BatchCheckAnswer,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY'],
    example: {
      body: { txids: [EXAMPLE_TXID], targetBlocks: 6 },
      response: EXAMPLE_BATCH_CHECK,
    },
    precheck: async (ctx, { body }) => {
      cache(ctx);
      await assertAnyTxKnown(ctx, body.txids);
    },
  }).handle(async (ctx, { body }) => batchCheck(ctx, body.txids, body.targetBlocks)),

  defineRoute({
    family: 'template',
    method: 'POST',
    path: '/v1/template/fee-ladder',
    snapshot: 'optimizer',
    price: 0.01,
    summary: 'Urgent / normal / cheap fee rates (sat/vB) from the projected blocks',
    description:
      'urgent = cutoff of projected block 1 × 1.05 + 0.1; normal = cutoff of block targetBlocks when it is full, else estimatesmartfee(targetBlocks) capped at urgent; cheap = estimatesmartfee(144) or the last cutoff, capped at normal. Every rung ≥ the node floor, rounded up to 0.1 sat/vB. The body is optional.',
    body: TargetBlocksRequest,
    response: FeeLadderAnswer,
    errors: ['TEMPLATE_NOT_READY', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { body: { targetBlocks: 6 }, response: EXAMPLE_LADDER },
  }).handle(async (ctx, { body }) => ladder(ctx, body.targetBlocks)),

  defineRoute({
    family: 'template',
    method: 'POST',
    path: '/v1/template/bump-plan',
    price: 0.01,
    summary: 'Fee-bump plan (RBF replacement or CPFP child) for a txid; the service never signs',
    description: BUMP_DESCRIPTION,
    body: BumpPlanRequest,
    response: BumpPlanAnswer,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { body: { txid: EXAMPLE_BUMP_PLAN.txid, targetSatVb: 5 }, response: EXAMPLE_BUMP_PLAN },
    precheck: async (ctx, { body }) => assertTxKnown(ctx, body.txid),
  }).handle(async (ctx, { body }) => bumpPlan(ctx, body)),

  defineRoute({
    family: 'template',
    method: 'POST',
    path: '/v1/template/optimized-txids',
    snapshot: 'optimizer',
    price: 0.05,
    summary: 'The optimized template txids and wtxids in block order, its witness commitment, and the signed receipt',
    description:
      'For miners (Stratum v2 job declaration) and benchmarkers: up to 4,000 txids, parents before children, their wtxids in the same order (what a job declaration client sends in DeclareMiningJob), the template’s default_witness_commitment (BIP 141 coinbase output script over all its wtxids), and the cycle’s Ed25519 bench-receipt/1 (verify it with the public key in capabilities). The body is optional. See docs/mining.md.',
    body: OptimizedTxidsRequest,
    response: OptimizedTxidsAnswer,
    errors: ['TEMPLATE_NOT_READY'],
    example: {
      body: { maxTxids: 2 },
      response: EXAMPLE_OPTIMIZED_TXIDS,
    },
  }).handle(async (ctx, { body }) => optimizedTxidsAnswer(cache(ctx), body.maxTxids, ctx.now())),
];

export const templateMethods = [
  defineRpcMethod({
    family: 'template',
    name: 'svc_templateHealth',
    price: 'free',
    summary: 'Optimizer cache readiness (as GET /v1/template/health)',
    params: z.union([z.tuple([]), z.tuple([strictObject({})])]),
    result: TemplateHealth,
    errors: [],
    example: { params: [], result: EXAMPLE_HEALTH },
  }).run(async (ctx) => templateHealth(ctx.optimizer.service, ctx.optimizer.enabled, ctx.now())),

  defineRpcMethod({
    family: 'template',
    name: 'svc_templateCheck',
    snapshot: 'optimizer',
    price: 0.01,
    summary: 'As POST /v1/template/check; params [{txid, targetBlocks?}]',
    params: z.tuple([TxidRequest]),
    result: TemplateCheck,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY'],
    example: { params: [{ txid: EXAMPLE_TXID, targetBlocks: 6 }], result: EXAMPLE_CHECK },
    precheck: async (ctx, [req]) => {
      cache(ctx);
      await assertTxKnown(ctx, req.txid);
    },
  }).run(async (ctx, [{ txid, targetBlocks }]) => templateCheck(cache(ctx), txid, targetBlocks, ctx.now())),

  defineRpcMethod({
    family: 'template',
    name: 'svc_templateBatchCheck',
    snapshot: 'optimizer',
    price: 0.05,
    summary: 'As POST /v1/template/batch-check; params [{txids, targetBlocks?}]',
    params: z.tuple([BatchTxidRequest]),
    result: BatchCheckAnswer,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY'],
    example: {
      params: [{ txids: [EXAMPLE_TXID], targetBlocks: 6 }],
      result: EXAMPLE_BATCH_CHECK,
    },
    precheck: async (ctx, [req]) => {
      cache(ctx);
      await assertAnyTxKnown(ctx, req.txids);
    },
  }).run(async (ctx, [{ txids, targetBlocks }]) => batchCheck(ctx, txids, targetBlocks)),

  defineRpcMethod({
    family: 'template',
    name: 'svc_feeLadder',
    snapshot: 'optimizer',
    price: 0.01,
    summary: 'As POST /v1/template/fee-ladder; params [{targetBlocks?}]',
    params: z.union([z.tuple([]), z.tuple([TargetBlocksObject])]),
    result: FeeLadderAnswer,
    errors: ['TEMPLATE_NOT_READY', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [{ targetBlocks: 6 }], result: EXAMPLE_LADDER },
  }).run(async (ctx, params) => ladder(ctx, params[0]?.targetBlocks ?? 6)),

  defineRpcMethod({
    family: 'template',
    name: 'svc_bumpPlan',
    price: 0.01,
    summary: 'As POST /v1/template/bump-plan; params [{txid, targetSatVb?, targetBlocks?}]',
    description: BUMP_DESCRIPTION,
    params: z.tuple([BumpPlanRequest]),
    result: BumpPlanAnswer,
    errors: ['INVALID_TXID', 'TX_NOT_FOUND', 'TEMPLATE_NOT_READY', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [{ txid: EXAMPLE_BUMP_PLAN.txid, targetSatVb: 5 }], result: EXAMPLE_BUMP_PLAN },
    precheck: async (ctx, [req]) => assertTxKnown(ctx, req.txid),
  }).run(async (ctx, [req]) => bumpPlan(ctx, req)),

  defineRpcMethod({
    family: 'template',
    name: 'svc_optimizedTxids',
    snapshot: 'optimizer',
    price: 0.05,
    summary: 'As POST /v1/template/optimized-txids; params [{maxTxids?}]',
    params: z.union([z.tuple([]), z.tuple([OptimizedTxidsObject])]),
    result: OptimizedTxidsAnswer,
    errors: ['TEMPLATE_NOT_READY'],
    example: { params: [{ maxTxids: 2 }], result: EXAMPLE_OPTIMIZED_TXIDS },
  }).run(async (ctx, params) => optimizedTxidsAnswer(cache(ctx), params[0]?.maxTxids ?? OPTIMIZED_TXIDS_MAX, ctx.now())),
];
