/**
 * The payment gate for one paid request: verify → run the handler → record → settle → respond.
 *
 * - `preHandler` demands, decodes, binds (resource URL, route, JSON-RPC methods), verifies and
 *   claims a payment before the handler runs. A payment already taken for this very request (the
 *   payer retrying after a lost answer) is answered again, from the answer cache or recomputed,
 *   and never charged again.
 * - `onSend` charges only what was served: a failed handler (4xx/5xx), a JSON-RPC answer with a
 *   failed priced call, or a client gone before the answer gives the claim back and says
 *   `X-Payment-Charged: false`. Otherwise the ledger row (with hashes of the request and of the
 *   answer) is committed, the answer kept for retries, then settled (one attempt, bounded by the
 *   settle timeout), then sent.
 *
 * With REDIS_URL the payment's state and answer are shared (store/sharedPayments.ts, decided in
 * sharedRetries.ts): a retry is answered by any replica, and the replica that took the payment
 * holds its ledger row; before its ledger row, a payment is marked `charging` in Redis.
 *
 * `plugin.ts` attaches both to each paid route in `onRoute`; free routes never reach this file.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../errors.js';
import type { AnswerCache } from './answerCache.js';
import type { SettlementMode } from './capabilities.js';
import { bindOffer, paymentRequired, type RequirementsBuilder } from './challenge.js';
import { decodePaymentHeader, encodeHeaderJson } from './decode.js';
import type { FacilitatorClient } from './facilitator.js';
import { facilitatorLog } from './facilitatorLog.js';
import type { Ledger, LedgerEntry } from './ledger.js';
import type { PaymentLimits } from './limits.js';
import { challengeHeaders, contentTypeOf, EXPOSE_HEADERS, paymentResponseOf, readPaymentId, replaceWithError, sendChallenge, sha256 } from './replies.js';
import type { PaymentPayload, PaymentRequirements, ResourceInfo, SettlementResponse } from './schemas.js';
import type { Settler } from './settlement.js';
import type { ReplayStore } from './store/replayStore.js';
import type { SharedPayments } from './store/sharedPayments.js';
import { claimShared } from './sharedRetries.js';
import { MAX_RECOMPUTES, Replays, type Replay, type ReplayStep } from './replays.js';
import { PaymentError, type VerifiedPayment, type Verifier } from './verify.js';

/** Claims and idempotency records outlive `validBefore` by this much (replays stay refused). */
export const NONCE_RETENTION_SECONDS = 3600;

/** Where a test's pause (injected through the plugin's `pause` option) can stop the gate. */
export type GateStep = 'after-verify' | 'after-handler' | 'after-record' | 'after-settle';

export interface RouteCtx {
  /** `"<METHOD> <path>"` as registered, recorded in the ledger and bound into the offer. */
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
  answers: AnswerCache;
  /** With REDIS_URL: payment states and retry answers shared by every replica (else the local ledger and cache). */
  shared: SharedPayments | null;
  facilitator: FacilitatorClient | null;
  settler: Settler | null;
  verifyWithFacilitator: boolean;
  /** The rate limits, told whether a payment verified (its payer's budget) or not (the client's unpaid one). */
  limits: PaymentLimits | null;
  /** How long a pending payment-identifier record blocks its id at most (a crashed owner). */
  pendingLeaseMs: number;
  /** Sent as `Retry-After` with PAYMENT_IN_PROGRESS: one settle timeout. */
  inProgressRetrySeconds: number;
  publicBaseUrl: string | undefined;
  now: () => number;
  log: FastifyBaseLogger;
  /** Test seam (plugin option `pause`): awaited at each step. */
  pause?: (step: GateStep) => Promise<void>;
}

interface Accepted {
  ctx: RouteCtx;
  priceUsd: number;
  payload: PaymentPayload;
  verified: VerifiedPayment;
  paymentId: string | null;
  fingerprint: string;
  requestHash: string;
  expiresAtMs: number;
  /** What was offered and quoted for this request (a settlement refusal answers with it again). */
  offered: PaymentRequirements[];
  resource: ResourceInfo;
  finished: boolean;
  /** A retry of a request already paid for, answered by running the handler again: nothing is charged. */
  replay: Replay | null;
}

export class PaymentGate {
  private readonly accepted = new WeakMap<FastifyRequest, Accepted>();
  /** Payments claimed by requests still running here: nonce key → request hash. */
  private readonly inFlight = new Map<string, string>();

  private readonly replays: Replays;

  constructor(private readonly d: GateDeps) {
    this.replays = new Replays(d);
  }

  async preHandler(request: FastifyRequest, reply: FastifyReply, ctx: RouteCtx): Promise<void> {
    const quote = request.paymentQuote;
    const priceUsd = quote ? quote.priceUsd : ctx.priceUsd;
    if (priceUsd === null) throw new Error(`${ctx.key} is priced per request but set no payment quote`);
    if (!(priceUsd > 0)) return;
    if (request.method === 'HEAD') {
      // An empty body is nothing to pay for: HEAD is never charged (routes.ts exposes it on free GETs only).
      reply.header('allow', ctx.key.split(' ')[0] ?? 'GET');
      throw new Errors.METHOD_NOT_ALLOWED('HEAD', request.url.split('?')[0] ?? request.url);
    }
    const offered = bindOffer(this.d.builder.forPrice(priceUsd), { route: ctx.key, ...(quote?.methods ? { methods: quote.methods } : {}) });
    const resource = this.resourceOf(request, ctx, priceUsd, quote?.description);
    const refuse = (error: string) => sendChallenge(reply, paymentRequired(resource, offered, error, this.d.mode));

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
    const requestHash = sha256(`${request.method} ${request.url}\n${request.body === undefined ? '' : JSON.stringify(request.body)}`);
    // Payment-identifier records: the request and the exact header, hashed.
    const fingerprint = paymentId === null ? '' : sha256(`${requestHash}\n${header.trim()}`);
    let idDone = false;
    if (paymentId !== null) {
      const record = await this.storeCall(() => this.d.store.getIdempotency(paymentId));
      if (record) {
        if (record.fingerprint !== fingerprint) throw new Errors.PAYMENT_ID_CONFLICT(paymentId);
        // Shared: the nonce record below says whether its owner still runs it (or died: taken over).
        if (record.state === 'pending' && !this.d.shared) throw this.inProgress(reply, paymentId);
        idDone = record.state === 'done'; // answered before: the ledger row answers it again below
      }
    }

    // Bound to this request: `accepted` with our `extra` (route, JSON-RPC methods), checked by the
    // verifier, and the URL we quote for it (never a client-supplied forwarded host).
    const verified = this.d.verifier.verify(payload, offered, Math.floor(this.d.now() / 1000));
    if (!verified.ok || payload.resource?.url !== resource.url) {
      // Not a payment after all: an unpaid request (429 past the client's budget rather than another 402).
      await this.d.limits?.refused(request, reply);
      return refuse(verified.ok ? PaymentError.RESOURCE : verified.reason);
    }
    await this.d.limits?.verified(request, reply, verified.payer);
    const expiresAtMs = (verified.validBefore + NONCE_RETENTION_SECONDS) * 1000;
    const base = { ctx, priceUsd, payload, verified, paymentId, fingerprint, requestHash, expiresAtMs, offered, resource, finished: false };

    const shared = this.d.shared;
    if (shared) {
      const q = { nonceKey: verified.nonceKey, requestHash, expiresAtMs, maxRecomputes: MAX_RECOMPUTES };
      const outcome = await this.storeCall(() => claimShared(shared, this.d.log, q));
      if (outcome.kind !== 'claimed') return this.again(request, reply, this.replays.fromShared(reply, outcome, base), base, refuse);
      // Redis forgot a payment this replica recorded (restarted without persistence): it stays paid.
      const mine = this.d.ledger.findByNonceKey(verified.nonceKey);
      if (mine) {
        await this.storeCall(() => shared.restore(verified.nonceKey, mine.requestHash ?? '', mine.status === 'failed' ? null : paymentResponseOf(mine)));
        return this.again(request, reply, this.replays.fromRow(reply, mine, base), base, refuse);
      }
      if (paymentId !== null) await this.beginIdShared(reply, verified.nonceKey, paymentId, fingerprint, idDone, outcome.takenOver, expiresAtMs);
      return this.accept(request, reply, base, refuse);
    }
    // This payment was already taken: a retry of the same request is answered, never charged again.
    const paid = this.d.ledger.findByNonceKey(verified.nonceKey);
    if (paid) return this.again(request, reply, this.replays.fromRow(reply, paid, base), base, refuse);
    if (idDone && paymentId !== null) throw new Errors.PAYMENT_ID_CONFLICT(paymentId);

    const leaseUntil = Math.min(expiresAtMs, this.d.now() + this.d.pendingLeaseMs);
    if (paymentId !== null && !(await this.storeCall(() => this.d.store.beginIdempotency(paymentId, fingerprint, leaseUntil)))) {
      // A concurrent request holds this id: the same payment still running, or another payment.
      const record = await this.storeCall(() => this.d.store.getIdempotency(paymentId));
      if (record && record.fingerprint === fingerprint) throw this.inProgress(reply, paymentId);
      throw new Errors.PAYMENT_ID_CONFLICT(paymentId);
    }
    const claimed = await this.storeCall(
      () => this.d.store.claimNonce(verified.nonceKey, expiresAtMs),
      paymentId === null ? undefined : () => this.d.store.releaseIdempotency(paymentId),
    );
    if (!claimed) {
      if (paymentId !== null) await this.d.store.releaseIdempotency(paymentId).catch(() => undefined);
      // The same payment for the same request, still running here: come back for its answer.
      if (this.inFlight.get(verified.nonceKey) === requestHash) throw this.inProgress(reply, verified.nonceKey.slice(0, 12));
      const now = this.d.ledger.findByNonceKey(verified.nonceKey);
      if (now) return this.again(request, reply, this.replays.fromRow(reply, now, base), base, refuse);
      return refuse(PaymentError.NONCE_USED);
    }
    return this.accept(request, reply, base, refuse);
  }

  /** The payment is claimed by this request: the facilitator's verdict, then the handler runs. */
  private async accept(
    request: FastifyRequest,
    reply: FastifyReply,
    base: Omit<Accepted, 'replay'>,
    refuse: (error: string) => FastifyReply,
  ): Promise<FastifyReply | undefined> {
    const { verified, payload, paymentId } = base;
    this.inFlight.set(verified.nonceKey, base.requestHash);
    const release = () => this.release(verified.nonceKey, paymentId);

    if (this.d.facilitator) {
      // An open breaker: refuse at once rather than take a payment we could not settle.
      if (this.d.facilitator.breakerState === 'open') {
        await release();
        reply.header('retry-after', String(this.d.facilitator.retryAfterSeconds()));
        throw new Errors.FACILITATOR_UNAVAILABLE('circuit breaker open');
      }
      if (this.d.verifyWithFacilitator) {
        const outcome = await this.d.facilitator.verify(payload, verified.requirement);
        if (outcome.kind === 'invalid') {
          await release();
          return refuse(outcome.reason);
        }
        // Unreachable facilitator: our local checks passed; settlement will have the last word (logged once per outage).
        facilitatorLog(this.d.log).verify(outcome);
      }
    }
    this.accepted.set(request, { ...base, replay: null });
    await this.d.pause?.('after-verify');
    return undefined;
  }

  /** Charges after a successful answer; gives the claim back otherwise. */
  async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const a = this.accepted.get(request);
    if (!a || a.finished) return payload;
    a.finished = true;
    if (a.replay) return this.replays.decorate(reply, a, a.replay, payload);
    const v = a.verified;
    try {
      const served = reply.statusCode < 400 && request.paymentChargeable !== false && request.raw.socket?.destroyed !== true;
      if (!served) {
        await this.release(v.nonceKey, a.paymentId);
        reply.header('x-payment-charged', 'false');
        reply.header('access-control-expose-headers', EXPOSE_HEADERS);
        return payload;
      }
      await this.d.pause?.('after-handler');

      const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null;
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
        requestHash: a.requestHash,
        // A streamed body cannot be hashed here; none of our paid routes streams.
        answerHash: body === null ? 'stream' : sha256(body),
      };
      if (this.d.shared) {
        // Kept for a retry on any replica before the row is written: from here a dead owner's
        // retry is answered without a charge (its row, if committed, is settled on its restart).
        const answer = body === null ? null : { requestHash: a.requestHash, statusCode: reply.statusCode, contentType: contentTypeOf(reply), body };
        const ours = await this.d.shared.charging(v.nonceKey, a.requestHash, answer, v.validBefore).catch((err: unknown) => {
          this.d.log.error({ err }, 'payments: shared payment state failed');
          return null;
        });
        if (ours !== true) {
          if (ours === null) await this.release(v.nonceKey, a.paymentId);
          reply.header('x-payment-charged', 'false');
          reply.header('access-control-expose-headers', EXPOSE_HEADERS);
          // false: this replica was taken for dead and another took the payment over.
          return replaceWithError(
            reply,
            ours === null
              ? new Errors.PAYMENT_STORE_UNAVAILABLE('the shared payment state could not be written')
              : this.inProgress(reply, v.nonceKey.slice(0, 12)),
          );
        }
      }
      // Kept for a retry before settling (whoever is charged can fetch the answer again), on disk in
      // the row's group commit: the answer outlives a crash.
      const kept =
        body !== null && !this.d.shared
          ? this.d.answers
              .keep(v.nonceKey, { requestHash: a.requestHash, statusCode: reply.statusCode, contentType: contentTypeOf(reply), body }, a.expiresAtMs)
              .catch((err: unknown) => this.d.log.warn({ err }, 'payments: could not keep a paid answer (a retry recomputes it)'))
          : undefined;
      let ledgerId: number;
      try {
        ledgerId = await this.d.ledger.record(entry);
      } catch (err) {
        // No answer without a durable record: give the claim back and refuse.
        this.d.log.error({ err }, 'payments: ledger write failed');
        await kept;
        await this.d.answers.delete(v.nonceKey).catch(() => undefined);
        await this.release(v.nonceKey, a.paymentId);
        return replaceWithError(reply, new Errors.PAYMENT_STORE_UNAVAILABLE('the payment ledger could not be written'));
      }
      await kept;
      await this.d.store.retireNonce?.(v.nonceKey);
      if (a.paymentId !== null) {
        await this.d.store.completeIdempotency(a.paymentId, a.fingerprint, a.expiresAtMs).catch((err: unknown) => {
          this.d.log.warn({ err }, 'payments: could not mark the payment identifier answered');
        });
      }
      await this.d.pause?.('after-record');

      const settlement = await this.settle(ledgerId, a);
      if (!settlement.success) {
        await this.d.answers.delete(v.nonceKey).catch(() => undefined);
        await this.d.shared?.failed(v.nonceKey, a.requestHash).catch((err: unknown) => this.d.log.error({ err }, 'payments: shared payment state failed'));
        if (a.paymentId !== null) await this.d.store.releaseIdempotency(a.paymentId).catch(() => undefined);
        const challenge = paymentRequired(a.resource, a.offered, settlement.errorReason, this.d.mode);
        reply.code(402);
        reply.header('PAYMENT-RESPONSE', encodeHeaderJson(settlement));
        return challengeHeaders(reply, challenge);
      }
      const paymentResponse = encodeHeaderJson(settlement);
      // Not fatal: the record stays `charging`, answered without a charge once this replica is gone.
      await this.d.shared
        ?.paid(v.nonceKey, a.requestHash, paymentResponse)
        .catch((err: unknown) => this.d.log.warn({ err }, 'payments: shared payment state failed'));
      await this.d.pause?.('after-settle');
      reply.header('PAYMENT-RESPONSE', paymentResponse);
      // A shared cache must never hand a paid answer to the next, unpaying, client.
      reply.header('cache-control', 'no-store');
      reply.header('access-control-expose-headers', EXPOSE_HEADERS);
      return payload;
    } finally {
      this.inFlight.delete(v.nonceKey);
    }
  }

  /** The request ended without reaching `onSend` (aborted): give the claim back. */
  async onResponse(request: FastifyRequest): Promise<void> {
    const a = this.accepted.get(request);
    if (!a || a.finished) return;
    a.finished = true;
    if (!a.replay) await this.release(a.verified.nonceKey, a.paymentId);
  }

  /** The URL quoted for this request: the configured public base, else the Host the client connected to. */
  private resourceOf(request: FastifyRequest, ctx: RouteCtx, priceUsd: number, description: string | undefined): ResourceInfo {
    // Without TRUST_PROXY, fastify's `request.host` is the Host header, never X-Forwarded-Host.
    const base = this.d.publicBaseUrl ?? `${request.protocol}://${request.host}`;
    return { url: `${base}${request.url}`, description: description ?? `${ctx.key} (${priceUsd} USD)`, mimeType: 'application/json' };
  }

  /** One settle attempt (facilitator mode) or the unsettled answer; `success: false` = refused. */
  private async settle(ledgerId: number, a: Accepted): Promise<SettlementResponse> {
    const v = a.verified;
    const base = { network: v.network.network, payer: a.payload.payload.authorization.from, amount: v.requirement.amount };
    if (this.d.mode !== 'facilitator' || !this.d.settler) return { success: true, transaction: '', ...base, extra: { settlement: 'unsettled' } };
    const outcome = await this.d.settler.settleInline(ledgerId, a.payload, v.requirement);
    if (outcome.kind === 'failed') {
      return {
        success: false,
        errorReason: outcome.reason,
        ...(outcome.message ? { errorMessage: outcome.message } : {}),
        transaction: outcome.transaction ?? '',
        ...base,
      };
    }
    return outcome.kind === 'settled'
      ? { success: true, transaction: outcome.transaction, ...base, extra: { settlement: 'settled' } }
      : { success: true, transaction: outcome.transaction ?? '', ...base, extra: { settlement: 'pending' } };
  }

  /**
   * The payment-identifier record beside a shared claim: begun, or (taken over from a dead replica)
   * kept as it is; a conflict gives the claim back.
   */
  private async beginIdShared(
    reply: FastifyReply,
    nonceKey: string,
    paymentId: string,
    fingerprint: string,
    idDone: boolean,
    takenOver: boolean,
    expiresAtMs: number,
  ): Promise<void> {
    const leaseUntil = Math.min(expiresAtMs, this.d.now() + this.d.pendingLeaseMs);
    const fail = async (err: Error) => {
      await this.d.shared?.release(nonceKey).catch(() => undefined);
      return err;
    };
    if (idDone) throw await fail(new Errors.PAYMENT_ID_CONFLICT(paymentId));
    if (await this.storeCall(() => this.d.store.beginIdempotency(paymentId, fingerprint, leaseUntil))) return;
    const record = await this.storeCall(() => this.d.store.getIdempotency(paymentId));
    if (record && record.fingerprint === fingerprint) {
      if (takenOver && record.state === 'pending') return; // the dead replica's record: ours now
      throw await fail(this.inProgress(reply, paymentId));
    }
    throw await fail(new Errors.PAYMENT_ID_CONFLICT(paymentId));
  }

  /** A payment already taken: its answer went out, or the handler runs again uncharged, or refused. */
  private again(
    request: FastifyRequest,
    reply: FastifyReply,
    step: ReplayStep,
    base: Omit<Accepted, 'replay'>,
    refuse: (error: string) => FastifyReply,
  ): FastifyReply | undefined {
    if (step.kind === 'replay') return refuse(PaymentError.NONCE_USED);
    if (step.kind === 'exhausted') throw new Errors.PAYMENT_ANSWER_EXHAUSTED(base.verified.nonceKey.slice(0, 12), MAX_RECOMPUTES);
    if (step.kind === 'in-progress') throw this.inProgress(reply, base.verified.nonceKey.slice(0, 12));
    if (step.kind === 'sent') return reply;
    this.accepted.set(request, { ...base, replay: step.replay });
    return undefined;
  }

  private inProgress(reply: FastifyReply, what: string): Error {
    reply.header('retry-after', String(this.d.inProgressRetrySeconds));
    return new Errors.PAYMENT_IN_PROGRESS(what);
  }

  private async release(nonceKey: string, paymentId: string | null): Promise<void> {
    this.inFlight.delete(nonceKey);
    const nonce = this.d.shared ? this.d.shared.release(nonceKey) : this.d.store.releaseNonce(nonceKey);
    await Promise.all([nonce, paymentId === null ? undefined : this.d.store.releaseIdempotency(paymentId)]).catch((err: unknown) =>
      this.d.log.error({ err }, 'payments: could not release a nonce claim'),
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
