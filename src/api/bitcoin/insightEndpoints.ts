/**
 * `POST /v1/bitcoin/insight` with `svc_bitcoinInsight`, and `svc_addressInsight`: the verdict, a
 * sentence to act on, the template check and the bump plan in one answer; with
 * `action: broadcast_signed_replacement`, the relay of the caller-signed bump (refused before any
 * payment when the hex is malformed, 400, or unrelated to the named txid, 422).
 */
import { z } from 'zod';
import type { ErrorCode } from '../../errors.js';
import { MAX_SIGNED_TX_HEX_CHARS } from '../../bump/relay.js';
import { ONE_CALL_BODY_BYTES } from '../bodyLimits.js';
import { defineRoute, defineRpcMethod, type ApiContext } from '../define.js';
import {
  AddressInsight,
  AddressInsightRequest,
  addressInsight,
  addressPrecheck,
  insight,
  InsightAnswer,
  insightPrecheck,
  InsightRequest,
} from './insightAnswers.js';
import { EXAMPLE_ADDRESS_INSIGHT, EXAMPLE_INSIGHT } from './insight.examples.js';

const ERRORS: readonly ErrorCode[] = [
  'INVALID_TXID',
  'INVALID_ADDRESS',
  'WRONG_NETWORK_ADDRESS',
  'TX_NOT_FOUND',
  'REPLACEMENT_NOT_CONFLICTING',
  'TEMPLATE_NOT_READY',
  'NODE_UNAVAILABLE',
  'NODE_TIMEOUT',
];

const DESCRIPTION =
  'verdict (confirmed, healthy_for_target, at_risk_for_target, below_target_bump_recommended, below_min_relay, replaced, target_unreachable_by_bump when no bump reaches the target; a txid the node does not know is 404 TX_NOT_FOUND before payment), a one-sentence summary, the template check and the full bump plan (as /v1/template/bump-plan). With address: the address insight. With action broadcast_signed_replacement and signedReplacementHex: the caller-signed replacement (spends an input of txid) or CPFP child (spends an output of txid) is checked by testmempoolaccept and relayed by sendrawtransaction; the node’s reject reason verbatim. Malformed hex: 400; a transaction that spends nothing of txid: 422 REPLACEMENT_NOT_CONFLICTING; both before payment. The service never signs.';

/** Room for the largest signed bump the relay accepts, besides the call itself. */
const SIGNED_BUMP_BODY_BYTES = MAX_SIGNED_TX_HEX_CHARS + ONE_CALL_BODY_BYTES;

const InsightParams = z.tuple([InsightRequest]);
const AddressInsightParams = z.tuple([AddressInsightRequest]);

/** Before payment: the txid known, the signed bump well-formed and related to it (`insightPrecheck`). */
async function checkInsightBody(ctx: ApiContext, { body }: { body: unknown }): Promise<void> {
  await insightPrecheck(ctx, body);
}

/** `POST /v1/bitcoin/insight` */
async function insightRoute(ctx: ApiContext, { body }: { body: z.output<typeof InsightRequest> }): Promise<z.input<typeof InsightAnswer>> {
  return insight(ctx, body);
}

async function checkInsightParams(ctx: ApiContext, [req]: z.output<typeof InsightParams>): Promise<void> {
  await insightPrecheck(ctx, req);
}

/** `svc_bitcoinInsight` */
async function svcBitcoinInsight(ctx: ApiContext, [req]: z.output<typeof InsightParams>): Promise<z.input<typeof InsightAnswer>> {
  return insight(ctx, req);
}

async function checkAddressInsightParams(ctx: ApiContext, [req]: z.output<typeof AddressInsightParams>): Promise<void> {
  await addressPrecheck(ctx, req.address);
}

/** `svc_addressInsight` */
async function svcAddressInsight(ctx: ApiContext, [req]: z.output<typeof AddressInsightParams>): Promise<z.input<typeof AddressInsight>> {
  return addressInsight(ctx, req.address, req.targetBlocks);
}

export const insightRoutes = [
  defineRoute({
    family: 'bitcoin',
    method: 'POST',
    path: '/v1/bitcoin/insight',
    price: 0.01,
    summary: 'Unified transaction insight: verdict, summary, template check, bump plan; relays a caller-signed bump',
    description: DESCRIPTION,
    mayBroadcast: true,
    body: InsightRequest,
    maxBodyBytes: SIGNED_BUMP_BODY_BYTES,
    response: InsightAnswer,
    errors: ERRORS,
    example: { body: { txid: EXAMPLE_INSIGHT.txid, targetBlocks: 1, targetSatVb: 5 }, response: EXAMPLE_INSIGHT },
    precheck: checkInsightBody,
  }).handle(insightRoute),
];

export const insightMethods = [
  defineRpcMethod({
    family: 'bitcoin',
    name: 'svc_bitcoinInsight',
    price: 0.01,
    summary: 'As POST /v1/bitcoin/insight; params [{txid, targetBlocks?, targetSatVb?, address?, action?, signedReplacementHex?}]',
    description: DESCRIPTION,
    mayBroadcast: true,
    params: InsightParams,
    maxBodyBytes: SIGNED_BUMP_BODY_BYTES,
    result: InsightAnswer,
    errors: ERRORS,
    example: { params: [{ txid: EXAMPLE_INSIGHT.txid, targetBlocks: 1, targetSatVb: 5 }], result: EXAMPLE_INSIGHT },
    precheck: checkInsightParams,
  }).run(svcBitcoinInsight),

  defineRpcMethod({
    family: 'bitcoin',
    name: 'svc_addressInsight',
    price: 0.01,
    summary: 'Address insight: balance, UTXOs, its unconfirmed transactions with verdicts, CPFP-able outputs; params [{address, targetBlocks?}]',
    params: AddressInsightParams,
    result: AddressInsight,
    errors: ['INVALID_ADDRESS', 'WRONG_NETWORK_ADDRESS', 'ADDRESS_SOURCE_UNAVAILABLE', 'NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [{ address: EXAMPLE_ADDRESS_INSIGHT.address, targetBlocks: 6 }], result: EXAMPLE_ADDRESS_INSIGHT },
    precheck: checkAddressInsightParams,
  }).run(svcAddressInsight),
];
