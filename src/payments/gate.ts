/**
 * The payment gate for one paid request: the `preHandler` that demands, decodes, verifies and
 * claims a payment before the handler runs, and the `onSend` that charges (records, settles) only
 * after a successful answer, or gives the claim back when nothing chargeable was served.
 * `plugin.ts` attaches both to each paid route in `onRoute`; free routes never reach this file.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../errors.js';
import type { SettlementMode } from './capabilities.js';
import { paymentRequired, type RequirementsBuilder } from './challenge.js';
import { decodePaymentHeader, encodeHeaderJson } from './decode.js';
import type { FacilitatorClient } from './facilitator.js';
import type { Ledger, LedgerEntry } from './ledger.js';
import { PAYMENT_IDENTIFIER, PaymentIdSchema, type PaymentPayload, type SettlementResponse } from './schemas.js';
import type { Settler } from './settlement.js';
import type { CachedResponse, ReplayStore } from './store/replayStore.js';
import { PaymentError, type VerifiedPayment, type Verifier } from './verify.js';
import { firstIssue } from '../util/zodIssue.js';

/** Claims and idempotency records outlive `validBefore` by this much (replays stay refused). */
export const NONCE_RETENTION_SECONDS = 3600;
export const EXPOSE_HEADERS = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE';
/** Largest answer kept for idempotent retries; a larger one is served but not cached. */
const MAX_CACHED_BODY_BYTES = 2 * 1024 * 1024;

export interface RouteCtx {
  /** `"<METHOD> <path>"`, recorded in the ledger. */
  key: string;
  /** USD; null when the route quotes each request (`request.paymentQuote`, JSON-RPC). */
  priceUsd: number | null;
}

export interface GateDeps {
  mode: SettlementMode;
  builder: RequirementsBuilder;
  verifier: Verifier;
  store: ReplayStore;
  ledger: Ledger;
  facilitator: FacilitatorClient | null;
  settler: Settler | null;
  verifyWithFacilitator: boolean;
  publicBaseUrl: string | undefined;
  now: () => number;
  log: FastifyBaseLogger;
}

interface Accepted {
  ctx: RouteCtx;
  priceUsd: number;
  payload: PaymentPayload;
  verified: VerifiedPayment;
  paymentId: string | null;
  fingerprint: string;
  expiresAtMs: number;
  finished: boolean;
}

export class PaymentGate {
  private readonly accepted = new WeakMap<FastifyRequest, Accepted>();

  constructor(private readonly d: GateDeps) {}

  async preHandler(request: FastifyRequest, reply: FastifyReply, ctx: RouteCtx): Promise<void> {
    const quote = request.paymentQuote;
    const priceUsd = quote ? quote.priceUsd : ctx.priceUsd;
    if (priceUsd === null) throw new Error(`${ctx.key} is priced per request but set no payment quote`);
    if (!(priceUsd > 0)) return;
    const offered = this.d.builder.forPrice(priceUsd);
    const resource = {
      url: `${this.d.publicBaseUrl ?? `${request.protocol}://${request.host}`}${request.url}`,
      description: quote?.description ?? `${ctx.key} (${priceUsd} USD)`,
      mimeType: 'application/json',
    };
    const refuse = (error: string) => sendChallenge(reply, paymentRequired(resource, offered, error));

    const header = request.headers['payment-signature'];
    if (header === undefined) {
      return refuse(request.headers['x-payment'] !== undefined ? PaymentError.VERSION_1 : PaymentError.MISSING);
    }
    if (typeof header !== 'string') throw new Errors.PAYMENT_MALFORMED('more than one PAYMENT-SIGNATURE header');
    const decoded = decodePaymentHeader(header);
    if (decoded.kind === 'malformed') throw new Errors.PAYMENT_MALFORMED(decoded.reason);
    if (decoded.kind === 'version') return refuse(decoded.version === 1 ? PaymentError.VERSION_1 : PaymentError.VERSION);
    const payload = decoded.payload;

    const paymentId = readPaymentId(payload);
    // Only idempotent retries need it: the request and the exact header, hashed.
    const fingerprint =
      paymentId === null
        ? ''
        : createHash('sha256')
            .update(`${request.method} ${request.url}\n${request.body === undefined ? '' : JSON.stringify(request.body)}\n${header.trim()}`)
            .digest('hex');
    if (paymentId !== null) {
      const record = await this.storeCall(() => this.d.store.getIdempotency(paymentId));
      if (record) {
        if (record.fingerprint !== fingerprint) throw new Errors.PAYMENT_ID_CONFLICT(paymentId);
        if (record.state === 'pending') throw new Errors.PAYMENT_IN_PROGRESS(paymentId);
        return sendCached(reply, record.response);
      }
    }

    const verified = this.d.verifier.verify(payload, offered, Math.floor(this.d.now() / 1000));
    if (!verified.ok) return refuse(verified.reason);

    const expiresAtMs = (verified.validBefore + NONCE_RETENTION_SECONDS) * 1000;
    if (paymentId !== null && !(await this.storeCall(() => this.d.store.beginIdempotency(paymentId, fingerprint, expiresAtMs)))) {
      // A concurrent request holds this id: the same payment still running, or another payment.
      const record = await this.storeCall(() => this.d.store.getIdempotency(paymentId));
      if (record && record.fingerprint === fingerprint) {
        if (record.state === 'done') return sendCached(reply, record.response);
        throw new Errors.PAYMENT_IN_PROGRESS(paymentId);
      }
      throw new Errors.PAYMENT_ID_CONFLICT(paymentId);
    }
    const claimed = await this.storeCall(
      () => this.d.store.claimNonce(verified.nonceKey, expiresAtMs),
      paymentId === null ? undefined : () => this.d.store.releaseIdempotency(paymentId),
    );
    if (!claimed) {
      if (paymentId !== null) await this.d.store.releaseIdempotency(paymentId).catch(() => undefined);
      return refuse(PaymentError.NONCE_USED);
    }
    const release = () => this.release(verified.nonceKey, paymentId);

    if (this.d.facilitator && this.d.verifyWithFacilitator) {
      const outcome = await this.d.facilitator.verify(payload, verified.requirement);
      if (outcome.kind === 'invalid') {
        await release();
        return refuse(outcome.reason);
      }
      // Unreachable facilitator: our local checks passed; settlement will have the last word.
      if (outcome.kind === 'unavailable')
        this.d.log.warn({ detail: outcome.detail }, 'payments: facilitator /verify unavailable, continuing on local verification');
    }
    this.accepted.set(request, { ctx, priceUsd, payload, verified, paymentId, fingerprint, expiresAtMs, finished: false });
  }

  /** Charges after a successful answer; gives the claim back otherwise. */
  async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const a = this.accepted.get(request);
    if (!a || a.finished) return payload;
    a.finished = true;
    const served = reply.statusCode < 400 && request.paymentChargeable !== false && request.raw.socket?.destroyed !== true;
    if (!served) {
      await this.release(a.verified.nonceKey, a.paymentId);
      return payload;
    }

    const v = a.verified;
    const entry: LedgerEntry = {
      nonceKey: v.nonceKey,
      route: a.ctx.key,
      priceUsd: a.priceUsd,
      amount: v.requirement.amount,
      network: v.network.network,
      asset: v.network.asset,
      payTo: v.requirement.payTo,
      payer: v.payer,
      nonce: a.payload.payload.authorization.nonce,
      validBefore: v.validBefore,
      payload: a.payload,
      requirements: v.requirement,
      status: this.d.mode === 'facilitator' ? 'pending' : 'unsettled',
    };
    let ledgerId: number;
    try {
      ledgerId = await this.d.ledger.record(entry);
    } catch (err) {
      // No answer without a durable record: give the claim back and refuse.
      this.d.log.error({ err }, 'payments: ledger write failed');
      await this.release(v.nonceKey, a.paymentId);
      return replaceWithError(reply, new Errors.PAYMENT_STORE_UNAVAILABLE('the payment ledger could not be written'));
    }

    await this.d.store.retireNonce?.(v.nonceKey);
    // The payer as the client wrote it (checksummed by stock clients), as the official facilitator answers.
    const base = { network: v.network.network, payer: a.payload.payload.authorization.from, amount: v.requirement.amount };
    let settlement: SettlementResponse;
    if (this.d.mode !== 'facilitator' || !this.d.settler) {
      settlement = { success: true, transaction: '', ...base, extra: { settlement: 'unsettled' } };
    } else {
      const outcome = await this.d.settler.settleInline(ledgerId, a.payload, v.requirement);
      if (outcome.kind === 'failed') {
        if (a.paymentId !== null) await this.d.store.releaseIdempotency(a.paymentId).catch(() => undefined);
        const failure: SettlementResponse = {
          success: false,
          errorReason: outcome.reason,
          ...(outcome.message ? { errorMessage: outcome.message } : {}),
          transaction: outcome.transaction ?? '',
          ...base,
        };
        const body = paymentRequired(
          {
            url: `${this.d.publicBaseUrl ?? `${request.protocol}://${request.host}`}${request.url}`,
            description: `${a.ctx.key} (${a.priceUsd} USD)`,
            mimeType: 'application/json',
          },
          this.d.builder.forPrice(a.priceUsd),
          outcome.reason,
        );
        reply.code(402);
        reply.header('PAYMENT-RESPONSE', encodeHeaderJson(failure));
        return challengeHeaders(reply, body);
      }
      settlement =
        outcome.kind === 'settled'
          ? { success: true, transaction: outcome.transaction, ...base, extra: { settlement: 'settled' } }
          : { success: true, transaction: outcome.transaction ?? '', ...base, extra: { settlement: 'pending' } };
    }
    const encoded = encodeHeaderJson(settlement);
    reply.header('PAYMENT-RESPONSE', encoded);
    // A shared cache must never hand a paid answer to the next, unpaying, client.
    reply.header('cache-control', 'no-store');
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    if (a.paymentId !== null) await this.remember({ ...a, paymentId: a.paymentId }, reply, payload, encoded);
    return payload;
  }

  /** The request ended without reaching `onSend` (aborted): give the claim back. */
  async onResponse(request: FastifyRequest): Promise<void> {
    const a = this.accepted.get(request);
    if (!a || a.finished) return;
    a.finished = true;
    await this.release(a.verified.nonceKey, a.paymentId);
  }

  private async remember(a: Accepted & { paymentId: string }, reply: FastifyReply, payload: unknown, paymentResponse: string): Promise<void> {
    const id = a.paymentId;
    const isText = typeof payload === 'string';
    if (!(isText || Buffer.isBuffer(payload)) || (isText ? Buffer.byteLength(payload) : payload.length) > MAX_CACHED_BODY_BYTES) {
      // Streams and huge bodies are not replayable: keep the id claimed so a retry is a 409, not a second charge.
      return;
    }
    const response: CachedResponse = {
      statusCode: reply.statusCode,
      headers: { 'content-type': String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), 'payment-response': paymentResponse },
      body: isText ? payload : payload.toString('base64'),
      bodyEncoding: isText ? 'utf8' : 'base64',
    };
    await this.d.store.completeIdempotency(id, a.fingerprint, response, a.expiresAtMs).catch((err: unknown) => {
      this.d.log.warn({ err }, 'payments: could not cache the answer for idempotent retries');
    });
  }

  private async release(nonceKey: string, paymentId: string | null): Promise<void> {
    await Promise.all([this.d.store.releaseNonce(nonceKey), paymentId === null ? undefined : this.d.store.releaseIdempotency(paymentId)]).catch(
      (err: unknown) => this.d.log.error({ err }, 'payments: could not release a nonce claim'),
    );
  }

  /** A store failure refuses the request (never serves unpaid, never charges twice). */
  private async storeCall<T>(fn: () => Promise<T>, undo?: () => Promise<void>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.d.log.error({ err }, 'payments: replay store failed');
      if (undo) await undo().catch(() => undefined);
      throw new Errors.PAYMENT_STORE_UNAVAILABLE(err instanceof Error ? err.message : 'error');
    }
  }
}

function readPaymentId(payload: PaymentPayload): string | null {
  const ext = payload.extensions?.[PAYMENT_IDENTIFIER];
  if (ext === undefined || ext === null || typeof ext !== 'object') return null;
  const id = (ext as { info?: { id?: unknown } }).info?.id;
  if (id === undefined) return null;
  const parsed = PaymentIdSchema.safeParse(id);
  if (!parsed.success) throw new Errors.PAYMENT_MALFORMED(`extensions.${PAYMENT_IDENTIFIER}.info.id ${firstIssue(parsed.error).message}`);
  return parsed.data;
}

function challengeHeaders(reply: FastifyReply, body: ReturnType<typeof paymentRequired>): string {
  reply.header('PAYMENT-REQUIRED', encodeHeaderJson(body));
  reply.header('cache-control', 'no-store');
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  reply.header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify(body);
}

function sendChallenge(reply: FastifyReply, body: ReturnType<typeof paymentRequired>): FastifyReply {
  const text = challengeHeaders(reply, body);
  return reply.code(402).send(text);
}

function sendCached(reply: FastifyReply, r: CachedResponse): FastifyReply {
  reply.code(r.statusCode);
  for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  reply.header('x-payment-idempotent-replay', 'true');
  return reply.send(r.bodyEncoding === 'base64' ? Buffer.from(r.body, 'base64') : r.body);
}

function replaceWithError(reply: FastifyReply, err: Error & { statusCode?: number; code?: string }): string {
  reply.code(err.statusCode ?? 503);
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('retry-after', '5');
  return JSON.stringify({ success: false, error: { code: err.code ?? 'PAYMENT_STORE_UNAVAILABLE', message: err.message } });
}
