/**
 * Reading a request to a paid route, before anything is claimed: its price, the HEAD refusal, the
 * PAYMENT-SIGNATURE header, and the hashes that bind a payment to this very request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../errors.js';
import { decodePaymentHeaderOf } from './decode.js';
import { readPaymentId, sha256 } from './replies.js';
import type { PaymentPayload } from './schemas.js';
import { PaymentError } from './verify.js';

export interface RouteCtx {
  /** `"<METHOD> <path>"` as registered, recorded in the ledger and bound into the offer. */
  key: string;
  /** USD; null when the route quotes each request (`request.paymentQuote`, JSON-RPC). */
  priceUsd: number | null;
}

export function priceOf(request: FastifyRequest, ctx: RouteCtx): number {
  const quote = request.paymentQuote;
  const priceUsd = quote ? quote.priceUsd : ctx.priceUsd;
  if (priceUsd === null) throw new Error(`${ctx.key} is priced per request but set no payment quote`);
  return priceUsd;
}

/** An empty body is nothing to pay for: HEAD is never charged (routes.ts exposes it on free GETs only). */
export function refuseHead(request: FastifyRequest, reply: FastifyReply, ctx: RouteCtx): void {
  if (request.method !== 'HEAD') return;
  reply.header('allow', ctx.key.split(' ')[0] ?? 'GET');
  throw new Errors.METHOD_NOT_ALLOWED('HEAD', request.url.split('?')[0] ?? request.url);
}

/** The PAYMENT-SIGNATURE header, decoded; a refusal (402) when absent or of another version; 400 when malformed. */
export function readHeader(request: FastifyRequest): { header: string; payload: PaymentPayload } | { refusal: string } {
  const header = request.headers['payment-signature'];
  if (header === undefined) return { refusal: request.headers['x-payment'] !== undefined ? PaymentError.VERSION_1 : PaymentError.MISSING };
  if (typeof header !== 'string') throw new Errors.PAYMENT_MALFORMED('more than one PAYMENT-SIGNATURE header');
  const decoded = decodePaymentHeaderOf(request, header);
  if (decoded.kind === 'malformed') throw new Errors.PAYMENT_MALFORMED(decoded.reason);
  if (decoded.kind === 'version') return { refusal: decoded.version === 1 ? PaymentError.VERSION_1 : PaymentError.VERSION };
  return { header, payload: decoded.payload };
}

/** The request (method, URL, body) hashed, the payment identifier, and (with one) the request and exact header hashed. */
export function bindingOf(
  request: FastifyRequest,
  header: string,
  payload: PaymentPayload,
): { requestHash: string; paymentId: string | null; fingerprint: string } {
  const requestHash = sha256(`${request.method} ${request.url}\n${request.body === undefined ? '' : JSON.stringify(request.body)}`);
  const paymentId = readPaymentId(payload);
  return { requestHash, paymentId, fingerprint: paymentId === null ? '' : sha256(`${requestHash}\n${header.trim()}`) };
}
