/**
 * What the payment gate puts on the wire: the 402 challenge, the headers of a replayed answer,
 * PAYMENT-RESPONSE of a recorded payment, and the error that replaces an answer. Also the small
 * readers the gate shares (payment identifier, hashes).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { DEFAULT_RETRY_AFTER_SECONDS, Errors, errorBody } from '../errors.js';
import { firstIssue } from '../util/zodIssue.js';
import type { paymentRequired } from './challenge.js';
import { encodeHeaderJson } from './decode.js';
import type { LedgerRow } from './ledger.js';
import { PAYMENT_IDENTIFIER, PaymentIdSchema, type PaymentPayload, type SettlementResponse } from './schemas.js';
import type { VerifiedPayment } from './verify.js';

export const EXPOSE_HEADERS = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-Payment-Charged, Retry-After';

/** PAYMENT-RESPONSE for a payment already recorded, from its ledger row as it is now. */
export function paymentResponseOf(row: LedgerRow): string {
  const settlement = row.status === 'pending' ? 'pending' : row.status === 'settled' ? 'settled' : 'unsettled';
  const response: SettlementResponse = {
    success: true,
    transaction: row.txHash ?? '',
    network: row.network,
    payer: row.payload.payload.authorization.from,
    amount: row.amount,
    extra: { settlement },
  };
  return encodeHeaderJson(response);
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function contentTypeOf(reply: FastifyReply): string {
  return String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
}

export function readPaymentId(payload: PaymentPayload): string | null {
  const ext = payload.extensions?.[PAYMENT_IDENTIFIER];
  if (ext === undefined || ext === null || typeof ext !== 'object') return null;
  const id = (ext as { info?: { id?: unknown } }).info?.id;
  if (id === undefined) return null;
  const parsed = PaymentIdSchema.safeParse(id);
  if (!parsed.success) throw new Errors.PAYMENT_MALFORMED(`extensions.${PAYMENT_IDENTIFIER}.info.id ${firstIssue(parsed.error).message}`);
  return parsed.data;
}

export function replayHeaders(reply: FastifyReply, paymentResponse: string): void {
  reply.header('PAYMENT-RESPONSE', paymentResponse);
  reply.header('x-payment-idempotent-replay', 'true');
  reply.header('cache-control', 'no-store');
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
}

export function challengeHeaders(reply: FastifyReply, body: ReturnType<typeof paymentRequired>): string {
  reply.header('PAYMENT-REQUIRED', encodeHeaderJson(body));
  reply.header('cache-control', 'no-store');
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  reply.header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify(body);
}

export function sendChallenge(reply: FastifyReply, body: ReturnType<typeof paymentRequired>): FastifyReply {
  const text = challengeHeaders(reply, body);
  return reply.code(402).send(text);
}

export function replaceWithError(reply: FastifyReply, err: Error & { statusCode?: number; code?: string }): string {
  reply.code(err.statusCode ?? 503);
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('retry-after', String(DEFAULT_RETRY_AFTER_SECONDS));
  return JSON.stringify(errorBody(err.code ?? 'PAYMENT_STORE_UNAVAILABLE', err.message));
}

/** The answer's body when it can be hashed and kept (not a stream). */
export function bodyOf(payload: unknown): string | Buffer | null {
  return typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null;
}

/** Nothing charged: said so, and readable by a browser client. */
export function uncharged(reply: FastifyReply, payload: unknown): unknown {
  reply.header('x-payment-charged', 'false');
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  return payload;
}

/** PAYMENT-RESPONSE for a payment whose settlement this replica cannot know (its owner died). */
export function unknownSettlement(verified: VerifiedPayment, payload: PaymentPayload): string {
  return encodeHeaderJson({
    success: true,
    transaction: '',
    network: verified.network.network,
    payer: payload.payload.authorization.from,
    amount: verified.requirement.amount,
    extra: { settlement: 'pending' },
  });
}
