/**
 * Template intelligence from the optimizer cache over REST (the same answers as the `svc_*`
 * methods of `methods.ts`, built by `templateAnswers.ts` and `templateCalls.ts`): free health;
 * paid membership checks (single and batch), the fee ladder, the bump plan, block audits and the
 * optimized txid list with its signed receipt. Before the first cycle has published, paid template
 * answers are 503 with `Retry-After`, not wrong data. Each handler is the named function above the
 * declarations; request bodies are in `endpoints.schemas.ts`, examples in `endpoints.examples.ts`.
 */
import type { z } from 'zod';
import { defineRoute, type ApiContext } from '../define.js';
import { BumpPlanAnswer } from '../shared/bumpPlan.js';
import { EXAMPLE_BUMP_PLAN } from '../shared/bumpPlan.examples.js';
import { BATCH_CHECK_MAX_TXIDS } from '../shared/requestLimits.js';
import { assertTxKnown } from '../txKnown.js';
import { BlockAuditsAnswer, blockAuditsAnswer, BlockAuditsQuery, BLOCK_AUDIT_NOTE } from './blockAudits.js';
import {
  EXAMPLE_BATCH_CHECK,
  EXAMPLE_BLOCK_AUDITS,
  EXAMPLE_CHECK,
  EXAMPLE_HEALTH,
  EXAMPLE_LADDER,
  EXAMPLE_OPTIMIZED_TXIDS,
  EXAMPLE_TXID,
} from './endpoints.examples.js';
import { BatchCheckAnswer, BatchTxidRequest, BumpPlanRequest, OptimizedTxidsRequest, TargetBlocksRequest, TxidRequest } from './endpoints.schemas.js';
import {
  FeeLadderAnswer,
  OptimizedTxidsAnswer,
  optimizedTxidsAnswer,
  TemplateCheck,
  templateCheck,
  TemplateHealth,
  templateHealth,
} from './templateAnswers.js';
import { batchCheck, BUMP_DESCRIPTION, bumpPlan, cache, checkTemplateTx, checkTemplateTxs, ladder } from './templateCalls.js';

type Body<T extends z.ZodType> = { body: z.output<T> };

/** `GET /v1/template/block-audits` */
async function blockAudits(ctx: ApiContext, { query }: { query: z.output<typeof BlockAuditsQuery> }): Promise<z.input<typeof BlockAuditsAnswer>> {
  return blockAuditsAnswer(ctx.optimizer.audits, ctx.config.BLOCK_AUDIT_KEEP, query.limit);
}

/** `GET /v1/template/health` */
async function health(ctx: ApiContext): Promise<z.input<typeof TemplateHealth>> {
  return templateHealth(ctx.optimizer.service, ctx.optimizer.enabled, ctx.now());
}

async function checkTxidBody(ctx: ApiContext, { body }: Body<typeof TxidRequest>): Promise<void> {
  await checkTemplateTx(ctx, body.txid);
}

/** `POST /v1/template/check` */
async function check(ctx: ApiContext, { body }: Body<typeof TxidRequest>): Promise<z.input<typeof TemplateCheck>> {
  return templateCheck(cache(ctx), body.txid, body.targetBlocks, ctx.now());
}

async function checkTxidsBody(ctx: ApiContext, { body }: Body<typeof BatchTxidRequest>): Promise<void> {
  await checkTemplateTxs(ctx, body.txids);
}

/** `POST /v1/template/batch-check` */
async function batchCheckRoute(ctx: ApiContext, { body }: Body<typeof BatchTxidRequest>): Promise<z.input<typeof BatchCheckAnswer>> {
  return batchCheck(ctx, body.txids, body.targetBlocks);
}

/** `POST /v1/template/fee-ladder` */
async function feeLadder(ctx: ApiContext, { body }: Body<typeof TargetBlocksRequest>): Promise<z.input<typeof FeeLadderAnswer>> {
  return ladder(ctx, body.targetBlocks);
}

async function checkBumpTx(ctx: ApiContext, { body }: Body<typeof BumpPlanRequest>): Promise<void> {
  await assertTxKnown(ctx, body.txid);
}

/** `POST /v1/template/bump-plan` */
async function bumpPlanRoute(ctx: ApiContext, { body }: Body<typeof BumpPlanRequest>): Promise<z.input<typeof BumpPlanAnswer>> {
  return bumpPlan(ctx, body);
}

/** `POST /v1/template/optimized-txids` */
async function optimizedTxids(ctx: ApiContext, { body }: Body<typeof OptimizedTxidsRequest>): Promise<z.input<typeof OptimizedTxidsAnswer>> {
  return optimizedTxidsAnswer(cache(ctx), body.maxTxids, ctx.now());
}

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
    example: { query: { limit: '1' }, response: EXAMPLE_BLOCK_AUDITS },
  }).handle(blockAudits),

  defineRoute({
    family: 'template',
    method: 'GET',
    path: '/v1/template/health',
    price: 'free',
    summary: 'Optimizer cache readiness and status',
    response: TemplateHealth,
    errors: [],
    example: { response: EXAMPLE_HEALTH },
  }).handle(health),

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
    precheck: checkTxidBody,
  }).handle(check),

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
    precheck: checkTxidsBody,
  }).handle(batchCheckRoute),

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
  }).handle(feeLadder),

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
    precheck: checkBumpTx,
  }).handle(bumpPlanRoute),

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
  }).handle(optimizedTxids),
];
