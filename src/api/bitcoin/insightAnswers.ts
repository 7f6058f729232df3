/**
 * The unified insight: a transaction's verdict, a sentence a person can act on, its template check
 * and its bump plan (`src/bump/`), optionally an address's picture, and the relay of a
 * caller-signed bump (`action: broadcast_signed_replacement`). Shared by `POST /v1/bitcoin/insight`,
 * `svc_bitcoinInsight` and `svc_addressInsight`.
 */
import { z } from 'zod';
import { ADDRESS_TYPES, parseAddress } from '../../bitcoin/address.js';
import { bumpKind, MAX_SIGNED_TX_HEX_CHARS, relaySignedBump, signedTxid, signedTxInputs } from '../../bump/relay.js';
import { chooseTarget } from '../../bump/target.js';
import { summaryOf, verdictOf, VERDICTS } from '../../bump/verdict.js';
import { Errors } from '../../errors.js';
import { txChunkFeeRate, txProjectedPlacement } from '../../optimizer/cache/templateCache.js';
import { round } from '../../util/round.js';
import type { ApiContext } from '../define.js';
import { AddressParam, Hash, Sat, SatVb, strictObject, Success, TargetBlocks, Txid } from '../schemas.js';
import { BumpPlanSchema, bumpPlanFor, TargetSatVb } from '../shared/bumpPlan.js';
import { specNamed } from '../specNames.js';
import { assertTxKnown } from '../txKnown.js';
import { projectedBlockSummaries, TEMPLATE_MODE, TEMPLATE_NOTE, TEMPLATE_SOURCE } from '../shared/templateFacts.js';

/** Most unconfirmed transactions of an address analysed in one answer. */
export const ADDRESS_INSIGHT_MAX_TXS = 25;

const SignedHex = z
  .string()
  .max(MAX_SIGNED_TX_HEX_CHARS, `at most ${MAX_SIGNED_TX_HEX_CHARS} hex characters`)
  .refine((s) => signedTxInputs(s) !== null, 'not a serialized Bitcoin transaction (hex)');

export const InsightRequest = specNamed(
  strictObject({
    txid: Txid,
    targetBlocks: TargetBlocks,
    targetSatVb: TargetSatVb.optional(),
    address: AddressParam.optional(),
    action: z.enum(['analyze', 'broadcast_signed_replacement']).default('analyze'),
    signedReplacementHex: SignedHex.optional(),
  }).refine((r) => r.action !== 'broadcast_signed_replacement' || r.signedReplacementHex !== undefined, {
    message: 'broadcast_signed_replacement needs signedReplacementHex',
    path: ['signedReplacementHex'],
  }),
  'BitcoinInsightRequest',
);
export const AddressInsightRequest = strictObject({ address: AddressParam, targetBlocks: TargetBlocks });

const Verdict = z.enum(VERDICTS);

export const Broadcast = z.object({
  accepted: z.boolean(),
  txid: Hash.nullable(),
  wtxid: Hash.nullable(),
  kind: z.enum(['replacement', 'cpfp_child']),
  replaced: z.array(Hash),
  alreadyInMempool: z.boolean(),
  rejectReason: z.string().nullable(),
  rejectDetails: z.string().nullable(),
});

export const AddressInsight = z.object({
  success: Success,
  address: z.string(),
  type: z.enum(ADDRESS_TYPES),
  source: z.enum(['esplora', 'scantxoutset']),
  targetBlocks: z.number().int(),
  targetFeeRate: SatVb.nullable(),
  balance: z.object({ confirmedSat: Sat, unconfirmedSat: Sat.nullable(), totalSat: Sat }),
  utxos: z.object({ count: z.number().int(), valueSat: Sat, confirmedCount: z.number().int(), unconfirmedCount: z.number().int() }),
  unconfirmedTransactions: z.array(
    z.object({
      txid: Hash,
      verdict: Verdict,
      effectiveFeeRate: SatVb.nullable(),
      projectedBlock: z.number().int().nullable(),
      blocksAway: z.number().int().nullable(),
    }),
  ),
  cpfpCandidates: z.array(z.object({ txid: Hash, vout: z.number().int(), valueSat: Sat, parentVerdict: Verdict })),
  note: z.string(),
});

export const InsightAnswer = z.object({
  success: Success,
  txid: Hash,
  targetBlocks: z.number().int(),
  verdict: Verdict,
  summary: z.string(),
  templateCheck: z.object({
    mode: z.literal(TEMPLATE_MODE),
    source: z.literal(TEMPLATE_SOURCE),
    inOptimizedTemplate: z.boolean(),
    effectiveFeeRate: SatVb.nullable(),
    targetFeeRate: SatVb,
    projectedBlock: z.number().int().nullable(),
    cachedAt: z.string().nullable(),
  }),
  bump: z.object({
    available: z.boolean(),
    method: z.enum(['rbf_signed_replacement', 'cpfp_child', 'none_needed', 'not_possible']),
    additionalFeeSats: Sat,
    signsOrCustodiesFunds: z.literal(false),
    plan: BumpPlanSchema,
  }),
  address: AddressInsight.omit({ success: true }).optional(),
  broadcast: Broadcast.optional(),
  note: z.string(),
});

type InsightInput = z.output<typeof InsightRequest>;

/**
 * Before payment: a broadcast must spend an input (replacement) or an output (child) of the named
 * transaction, else 422 REPLACEMENT_NOT_CONFLICTING; the address must be of the node's network.
 */
export async function addressPrecheck(ctx: ApiContext, raw: string): Promise<void> {
  parseAddress(raw, await ctx.chain.network());
}

export async function insightPrecheck(ctx: ApiContext, raw: unknown): Promise<void> {
  const parsed = InsightRequest.safeParse(raw);
  if (!parsed.success) return; // validation answers 400 right after
  const req = parsed.data;
  if (req.address !== undefined) await addressPrecheck(ctx, req.address);
  // A relay names a tx the signed one may already have replaced: `relationOf` decides (404 when neither is known).
  if (req.action === 'broadcast_signed_replacement' && req.signedReplacementHex !== undefined) await relationOf(ctx, req.txid, req.signedReplacementHex);
  else await assertTxKnown(ctx, req.txid);
}

async function relationOf(ctx: ApiContext, txid: string, signedHex: string) {
  const inputs = signedTxInputs(signedHex);
  if (inputs === null) throw new Errors.INVALID_REQUEST('signedReplacementHex is not a serialized Bitcoin transaction');
  let named: string[];
  try {
    named = (await ctx.node.getRawTransaction(txid)).vin.filter((i) => i.txid !== undefined).map((i) => `${i.txid}:${i.vout}`);
  } catch (error) {
    // Sent again after it replaced the named tx: the node no longer knows the original, but the
    // signed tx is in its mempool; relaying it again is harmless and reported as already there.
    if ((error as { code?: unknown }).code !== 'TX_NOT_FOUND') throw error;
    const inMempool = await ctx.node.getMempoolEntry(signedTxid(signedHex)).then(
      () => true,
      () => false,
    );
    if (!inMempool) throw error;
    return inputs.some((o) => o.startsWith(`${txid}:`)) ? ('cpfp_child' as const) : ('replacement' as const);
  }
  const kind = bumpKind(inputs, { txid, inputs: named });
  if (kind === null) throw new Errors.REPLACEMENT_NOT_CONFLICTING(txid);
  return kind;
}

export async function insight(ctx: ApiContext, req: InsightInput): Promise<z.input<typeof InsightAnswer>> {
  const plan = await bumpPlanFor(ctx, req.txid, req.targetBlocks, req.targetSatVb);
  const cache = ctx.optimizer.service.cache;
  const stateVerdict = verdictOf({
    status: plan.state.status,
    effectiveRateSatVb: plan.state.effectiveFeeRateSatVb,
    projectedBlock: plan.state.projectedBlock,
    projectedBlockCount: cache?.projectedBlocks.length ?? 0,
    targetSatVb: plan.target.feeRateSatVb,
    targetBlocks: req.targetBlocks,
    floorSatVb: plan.target.floorFeeRateSatVb,
  });
  // No method keeps the promise: its own verdict, never a recommendation that misses its target.
  const unreachable = plan.reason === 'target_unreachable' && stateVerdict !== 'healthy_for_target';
  const verdict = unreachable ? 'target_unreachable_by_bump' : stateVerdict;
  const method = plan.recommended;
  const available = method === 'rbf_signed_replacement' || method === 'cpfp_child';
  const detail = available
    ? `${method === 'cpfp_child' ? 'a child paying' : 'a replacement paying'} ${plan.additionalFeeSats} sat more reaches ${plan.target.feeRateSatVb} sat/vB${plan.effect?.projectedBlockAfter ? ` (projected block ${plan.effect.projectedBlockAfter})` : ''}`
    : unreachable && plan.effect
      ? `the best a bump reaches is projected block ${plan.effect.projectedBlockAfter ?? '?'} (${plan.effect.method === 'cpfp_child' ? 'a child' : 'a replacement'} paying ${plan.additionalFeeSats} sat more)`
      : plan.state.replacedBy
        ? `by ${plan.state.replacedBy}`
        : '';
  let broadcast: z.input<typeof Broadcast> | undefined;
  if (req.action === 'broadcast_signed_replacement' && req.signedReplacementHex !== undefined) {
    const kind = await relationOf(ctx, req.txid, req.signedReplacementHex);
    broadcast = await relaySignedBump(ctx.node, req.signedReplacementHex, kind, req.txid);
  }
  const address = req.address !== undefined ? await addressInsight(ctx, req.address, req.targetBlocks) : undefined;
  const relayed = broadcast
    ? ` The signed ${broadcast.kind === 'cpfp_child' ? 'child' : 'replacement'} was ${broadcast.accepted ? 'accepted by the node' : `rejected by the node (${broadcast.rejectReason ?? 'rejected'})`}.`
    : '';
  return {
    success: true,
    txid: req.txid,
    targetBlocks: req.targetBlocks,
    verdict,
    summary: summaryOf(req.txid, verdict, detail) + relayed,
    templateCheck: {
      mode: TEMPLATE_MODE,
      source: TEMPLATE_SOURCE,
      inOptimizedTemplate: cache?.optimized.txidSet.has(req.txid) ?? false,
      effectiveFeeRate: plan.state.effectiveFeeRateSatVb,
      targetFeeRate: plan.target.feeRateSatVb,
      projectedBlock: plan.state.projectedBlock,
      cachedAt: plan.cachedAt,
    },
    bump: { available, method, additionalFeeSats: plan.additionalFeeSats, signsOrCustodiesFunds: false, plan },
    ...(address ? { address: (({ success: _s, ...rest }) => rest)(address) } : {}),
    ...(broadcast ? { broadcast } : {}),
    note: `${TEMPLATE_NOTE} The service never signs, holds or spends funds; it relays only a bump of the named transaction that the caller signed.`,
  };
}

export async function addressInsight(ctx: ApiContext, raw: string, targetBlocks: number): Promise<z.input<typeof AddressInsight>> {
  const parsed = parseAddress(raw, await ctx.chain.network());
  const [balance, utxos, touching] = await Promise.all([
    ctx.addressSource.balance(parsed),
    ctx.addressSource.utxos(parsed),
    ctx.addressSource.mempoolTxids(parsed),
  ]);
  const cache = ctx.optimizer.service.cache;
  const floor = ctx.fees.floorFeeRateSatVb();
  const ladderTarget = cache ? await bumpTarget(ctx, targetBlocks) : null;
  // Payments it sent (the stuck ones a person asks about) and received, from the source's mempool
  // view where it has one, and the transactions paying its unconfirmed outputs.
  const unconfirmedTxids = [...new Set([...(touching ?? []), ...utxos.filter((u) => !u.confirmed).map((u) => u.txid)])].slice(0, ADDRESS_INSIGHT_MAX_TXS);
  const verdicts = new Map(
    unconfirmedTxids.map((txid) => {
      const rate = cache ? (txChunkFeeRate(cache, txid) ?? null) : null;
      const placement = cache ? txProjectedPlacement(cache, txid) : undefined;
      const projectedBlock = placement && !placement.beyond ? placement.block : null;
      const verdict = verdictOf({
        status: placement === undefined && cache ? 'not_found' : 'mempool',
        effectiveRateSatVb: rate,
        projectedBlock,
        projectedBlockCount: cache?.projectedBlocks.length ?? 0,
        targetSatVb: ladderTarget ?? floor,
        targetBlocks,
        floorSatVb: floor,
      });
      return [txid, { txid, verdict, effectiveFeeRate: rate === null ? null : round(rate), projectedBlock, blocksAway: projectedBlock }] as const;
    }),
  );
  const unconfirmed = utxos.filter((u) => !u.confirmed);
  return {
    success: true,
    address: parsed.address,
    type: parsed.type,
    source: ctx.addressSource.kind,
    targetBlocks,
    targetFeeRate: ladderTarget,
    balance: { confirmedSat: balance.confirmedSat, unconfirmedSat: balance.unconfirmedSat, totalSat: balance.confirmedSat + (balance.unconfirmedSat ?? 0) },
    utxos: {
      count: utxos.length,
      valueSat: utxos.reduce((s, u) => s + u.valueSat, 0),
      confirmedCount: utxos.length - unconfirmed.length,
      unconfirmedCount: unconfirmed.length,
    },
    unconfirmedTransactions: [...verdicts.values()],
    cpfpCandidates: unconfirmed
      .filter((u) => verdicts.has(u.txid))
      .map((u) => ({ txid: u.txid, vout: u.vout, valueSat: u.valueSat, parentVerdict: verdicts.get(u.txid)?.verdict ?? 'not_found' })),
    note: `Unconfirmed transactions: those spending from or paying to this address (at most ${ADDRESS_INSIGHT_MAX_TXS}); spending one of cpfpCandidates is a CPFP child of its transaction: ask POST /v1/template/bump-plan for the fee.${touching === null ? ' This source (scantxoutset) sees confirmed outputs only: no unconfirmed transaction is listed.' : ''}`,
  };
}

async function bumpTarget(ctx: ApiContext, targetBlocks: number): Promise<number> {
  const cache = ctx.optimizer.service.cache;
  const [smartTargetSatVb, smartDaySatVb] = await Promise.all([ctx.fees.smartFees.get(targetBlocks), ctx.fees.smartFees.get(144)]);
  const floorSatVb = ctx.fees.floorFeeRateSatVb();
  const target = chooseTarget({
    targetSatVb: undefined,
    targetBlocks,
    projectedBlocks: cache ? projectedBlockSummaries(cache) : [],
    floorSatVb,
    smartTargetSatVb,
    smartDaySatVb,
  });
  return Math.max(target.satVb, floorSatVb);
}
