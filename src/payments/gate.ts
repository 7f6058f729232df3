/**
 * The payment gate for one paid request, as the sequence it runs (the states: state/machine.ts):
 *
 * - `preHandler`: price → challenge or payment header → payment identifier → verify → the payer's
 *   paid budget and the claim, asked together (past the budget: 429, the claim given back) (or,
 *   a payment already taken for this very request, answer again: kept answer or recompute) →
 *   the facilitator's verdict → the handler runs.
 * - `onSend`: charges only what was served. A failed handler (4xx/5xx), a JSON-RPC answer with a
 *   failed priced call, or a client gone gives the claim back (`X-Payment-Charged: false`).
 *   Otherwise serve (answer kept) → record (ledger row with hashes of request and answer) →
 *   settle (one attempt, bounded by the settle timeout) → the answer goes out.
 *
 * Where the state lives (one process, or shared by replicas through Redis) is the `PaymentState`
 * handed in (state/paymentState.ts); the gate never asks which. `plugin.ts` attaches the hooks to
 * each paid route; free routes never reach this file.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../errors.js';
import type { SettlementMode } from './capabilities.js';
import { paymentRequired, type RequirementsBuilder } from './challenge.js';
import { encodeHeaderJson } from './decode.js';
import type { FacilitatorClient } from './facilitator.js';
import { facilitatorLog } from './facilitatorLog.js';
import type { CachedAnswer } from './keptAnswers.js';
import type { LedgerEntry } from './ledger.js';
import type { PaymentLimits } from './limits.js';
import { bindingOf, priceOf, readHeader, refuseHead, type RouteCtx } from './paidRequest.js';
import {
  bodyOf,
  challengeHeaders,
  contentTypeOf,
  EXPOSE_HEADERS,
  replaceWithError,
  replayHeaders,
  sendChallenge,
  sha256,
  uncharged,
  unknownSettlement,
} from './replies.js';
import type { PaymentPayload, PaymentRequirements, ResourceInfo, SettlementResponse } from './schemas.js';
import { settleForAnswer, type Settler } from './settlement.js';
import { MAX_RECOMPUTES, PaymentMachine } from './state/machine.js';
import type { ClaimOutcome, PaymentKey, PaymentState, Recompute, Stop } from './state/paymentState.js';
import { PaymentError, type VerifiedPayment, type Verifier } from './verify.js';

/** Claims and idempotency records outlive `validBefore` by this much (replays stay refused). */
export const NONCE_RETENTION_SECONDS = 3600;

/** Where a test's pause (injected through the plugin's `pause` option) can stop the gate. */
export type GateStep = 'after-verify' | 'after-handler' | 'after-record' | 'after-settle';

export interface GateDeps {
  mode: SettlementMode;
  builder: RequirementsBuilder;
  verifier: Verifier;
  /** The payment's state: local (SQLite/memory) or shared by the replicas (Redis). */
  state: PaymentState;
  facilitator: FacilitatorClient | null;
  settler: Settler | null;
  verifyWithFacilitator: boolean;
  /** The rate limits, told whether a payment verified (its payer's budget) or not (the client's unpaid one). */
  limits: PaymentLimits | null;
  /** Sent as `Retry-After` with PAYMENT_IN_PROGRESS: one settle timeout. */
  inProgressRetrySeconds: number;
  publicBaseUrl: string | undefined;
  now: () => number;
  log: FastifyBaseLogger;
  /** Test seam (plugin option `pause`): awaited at each step. */
  pause?: (step: GateStep) => Promise<void>;
}

/** What was offered and quoted for this request (a settlement refusal answers with it again). */
interface Offer {
  offered: readonly PaymentRequirements[];
  resource: ResourceInfo;
}

interface Accepted {
  ctx: RouteCtx;
  priceUsd: number;
  payload: PaymentPayload;
  verified: VerifiedPayment;
  key: PaymentKey;
  offer: Offer;
  machine: PaymentMachine;
  finished: boolean;
  /** A retry of a request already paid for, answered by running the handler again: nothing is charged. */
  recompute: Recompute | null;
}

type Identified = Omit<Accepted, 'finished' | 'recompute'>;

export class PaymentGate {
  private readonly accepted = new WeakMap<FastifyRequest, Accepted>();

  constructor(private readonly d: GateDeps) {}

  async preHandler(request: FastifyRequest, reply: FastifyReply, ctx: RouteCtx): Promise<FastifyReply | undefined> {
    const priceUsd = priceOf(request, ctx);
    if (!(priceUsd > 0)) return undefined;
    refuseHead(request, reply, ctx);
    const offer = this.offerFor(request, ctx, priceUsd);
    const read = readHeader(request);
    if ('refusal' in read) return this.refuse(reply, offer, read.refusal);

    const { requestHash, paymentId, fingerprint } = bindingOf(request, read.header, read.payload);
    const id = paymentId === null ? { kind: 'new' as const } : await this.d.state.checkId(paymentId, fingerprint);
    if (id.kind !== 'new' && id.kind !== 'done') return this.stop(reply, id, { paymentId, nonceKey: null, offer });

    const verified = await this.verify(request, reply, read.payload, offer);
    if (verified === null) return reply;
    const expiresAtMs = (verified.validBefore + NONCE_RETENTION_SECONDS) * 1000;
    const key: PaymentKey = { nonceKey: verified.nonceKey, requestHash, paymentId, fingerprint, validBefore: verified.validBefore, expiresAtMs };
    const a: Identified = { ctx, priceUsd, payload: read.payload, verified, key, offer, machine: new PaymentMachine() };
    return this.claimed(request, reply, a, await this.spendAndClaim(request, reply, a, id.kind === 'done'));
  }

  /**
   * The payer's paid budget and the claim, asked together: one wait instead of two in a row (with
   * Redis both commands leave in the same event-loop turn, on the limiter's connection and the
   * payments' one). Past the budget the request is 429 and a claim it took is given back at once:
   * nothing was charged, the payer may retry.
   */
  private async spendAndClaim(request: FastifyRequest, reply: FastifyReply, a: Identified, idDone: boolean): Promise<ClaimOutcome> {
    const [spent, claim] = await Promise.allSettled([this.d.limits?.verified(request, reply, a.verified.payer), this.d.state.claim(a.key, idDone)]);
    if (spent.status === 'fulfilled') {
      if (claim.status === 'rejected') throw claim.reason;
      return claim.value;
    }
    if (claim.status === 'fulfilled' && claim.value.kind === 'claimed') {
      a.machine.fire(claim.value.takenOver ? 'take-over' : 'claim');
      await this.release(a);
    }
    throw spent.reason;
  }

  /** Charges after a successful answer; gives the claim back otherwise. */
  async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const a = this.accepted.get(request);
    if (!a || a.finished) return payload;
    a.finished = true;
    if (a.recompute) return this.answeredAgain(reply, a, a.recompute, payload);
    try {
      return await this.charge(request, reply, a, payload);
    } finally {
      this.d.state.end(a.key);
    }
  }

  /** The request ended without reaching `onSend` (aborted): give the claim back. */
  async onResponse(request: FastifyRequest): Promise<void> {
    const a = this.accepted.get(request);
    if (!a || a.finished) return;
    a.finished = true;
    if (!a.recompute) await this.release(a);
  }

  /** Bound to this request: `accepted` with our `extra` (route, JSON-RPC methods), and the URL we quote for it. */
  private offerFor(request: FastifyRequest, ctx: RouteCtx, priceUsd: number): Offer {
    const quote = request.paymentQuote;
    const offered = this.d.builder.offer(priceUsd, { route: ctx.key, ...(quote?.methods ? { methods: quote.methods } : {}) });
    // Without TRUST_PROXY, fastify's `request.host` is the Host header, never X-Forwarded-Host.
    const base = this.d.publicBaseUrl ?? `${request.protocol}://${request.host}`;
    const resource = { url: `${base}${request.url}`, description: quote?.description ?? `${ctx.key} (${priceUsd} USD)`, mimeType: 'application/json' };
    return { offered, resource };
  }

  /** Checked by the verifier against our offer and the URL we quote (never a client-supplied forwarded host). Null: refused (counted as unpaid). */
  private async verify(request: FastifyRequest, reply: FastifyReply, payload: PaymentPayload, offer: Offer): Promise<VerifiedPayment | null> {
    const verified = this.d.verifier.verify(payload, offer.offered, Math.floor(this.d.now() / 1000));
    if (!verified.ok || payload.resource?.url !== offer.resource.url) {
      // Not a payment after all: an unpaid request (429 past the client's budget rather than another 402).
      await this.d.limits?.refused(request, reply);
      this.refuse(reply, offer, verified.ok ? PaymentError.RESOURCE : verified.reason);
      return null;
    }
    return verified;
  }

  /** What the claim said: ours (the handler runs), answered again, or stopped. */
  private async claimed(request: FastifyRequest, reply: FastifyReply, a: Identified, outcome: ClaimOutcome): Promise<FastifyReply | undefined> {
    switch (outcome.kind) {
      case 'claimed':
        a.machine.fire(outcome.takenOver ? 'take-over' : 'claim');
        return this.accept(request, reply, a);
      case 'kept':
        a.machine.fire('answer-kept');
        reply.code(outcome.answer.statusCode).header('content-type', outcome.answer.contentType);
        replayHeaders(reply, outcome.paymentResponse ?? unknownSettlement(a.verified, a.payload));
        void reply.send(outcome.answer.body);
        return reply;
      case 'recompute':
        a.machine.fire('recompute');
        this.accepted.set(request, { ...a, finished: false, recompute: outcome.recompute });
        return undefined;
      default:
        a.machine.fire('turn-away');
        return this.stop(reply, outcome, { paymentId: a.key.paymentId, nonceKey: a.key.nonceKey, offer: a.offer });
    }
  }

  /** The payment is claimed by this request: the facilitator's verdict, then the handler runs. */
  private async accept(request: FastifyRequest, reply: FastifyReply, a: Identified): Promise<FastifyReply | undefined> {
    const facilitator = this.d.facilitator;
    if (facilitator) {
      // An open breaker: refuse at once rather than take a payment we could not settle.
      if (facilitator.breakerState === 'open') {
        await this.release(a);
        reply.header('retry-after', String(facilitator.retryAfterSeconds()));
        throw new Errors.FACILITATOR_UNAVAILABLE('circuit breaker open');
      }
      if (this.d.verifyWithFacilitator) {
        const outcome = await facilitator.verify(a.payload, a.verified.requirement);
        if (outcome.kind === 'invalid') {
          await this.release(a);
          return this.refuse(reply, a.offer, outcome.reason);
        }
        // Unreachable facilitator: our local checks passed; settlement will have the last word (logged once per outage).
        facilitatorLog(this.d.log).verify(outcome);
      }
    }
    this.accepted.set(request, { ...a, finished: false, recompute: null });
    await this.d.pause?.('after-verify');
    return undefined;
  }

  /** serve → record → settle → the answer, each step a transition of the machine. */
  private async charge(request: FastifyRequest, reply: FastifyReply, a: Accepted, payload: unknown): Promise<unknown> {
    if (reply.statusCode >= 400 || request.paymentChargeable === false || request.raw.socket?.destroyed === true) {
      await this.release(a);
      return uncharged(reply, payload);
    }
    await this.d.pause?.('after-handler');

    const body = bodyOf(payload);
    const answer: CachedAnswer | null =
      body === null ? null : { requestHash: a.key.requestHash, statusCode: reply.statusCode, contentType: contentTypeOf(reply), body };
    const served = await this.d.state.serve(a.key, answer);
    if (served === 'unavailable') {
      await this.release(a);
      uncharged(reply, payload);
      return replaceWithError(reply, new Errors.PAYMENT_STORE_UNAVAILABLE('the shared payment state could not be written'));
    }
    if (served === 'lost') {
      a.machine.fire('lose');
      uncharged(reply, payload);
      return replaceWithError(reply, this.inProgress(reply, a.key.nonceKey.slice(0, 12)));
    }
    a.machine.fire('serve');

    const ledgerId = await this.d.state.record(a.key, this.entryOf(a, body), answer);
    if (ledgerId === null) {
      // No answer without a durable record: give the claim back and refuse.
      await this.release(a);
      return replaceWithError(reply, new Errors.PAYMENT_STORE_UNAVAILABLE('the payment ledger could not be written'));
    }
    a.machine.fire('record');
    await this.d.pause?.('after-record');

    const settlement = await settleForAnswer(this.d.mode === 'facilitator' ? this.d.settler : null, ledgerId, a.payload, a.verified.requirement);
    if (!settlement.success) return this.refused(reply, a, settlement);
    a.machine.fire('settle');
    const paymentResponse = encodeHeaderJson(settlement);
    await this.d.state.settled(a.key, paymentResponse);
    await this.d.pause?.('after-settle');
    reply.header('PAYMENT-RESPONSE', paymentResponse);
    // A shared cache must never hand a paid answer to the next, unpaying, client.
    reply.header('cache-control', 'no-store');
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    return payload;
  }

  /** The facilitator refused the payment: 402 with the offer again, the answer withheld. */
  private async refused(reply: FastifyReply, a: Accepted, settlement: SettlementResponse): Promise<string> {
    a.machine.fire('refuse');
    await this.d.state.refused(a.key);
    const challenge = paymentRequired(a.offer.resource, a.offer.offered, settlement.errorReason, this.d.mode);
    reply.code(402);
    reply.header('PAYMENT-RESPONSE', encodeHeaderJson(settlement));
    return challengeHeaders(reply, challenge);
  }

  /**
   * `onSend` of a recomputed answer: replay headers; the answer kept for the next retry, or, when it
   * could not be (failed, too large), the recompute counted. A 503 (not ready, node down) is not.
   */
  private async answeredAgain(reply: FastifyReply, a: Accepted, recompute: Recompute, payload: unknown): Promise<unknown> {
    replayHeaders(reply, recompute.paymentResponse() ?? unknownSettlement(a.verified, a.payload));
    const body = bodyOf(payload);
    if (reply.statusCode < 400 && body !== null && this.d.state.fits(body)) {
      a.machine.fire('keep');
      const answer = { requestHash: a.key.requestHash, statusCode: reply.statusCode, contentType: contentTypeOf(reply), body };
      await recompute.keep(answer).catch((err: unknown) => this.d.log.warn({ err }, 'payments: could not keep a recomputed answer'));
    } else if (reply.statusCode !== 503) {
      a.machine.fire('count');
      await recompute.count();
    } else a.machine.fire('not-ready');
    return payload;
  }

  private entryOf(a: Accepted, body: string | Buffer | null): LedgerEntry {
    const v = a.verified;
    return {
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
      requestHash: a.key.requestHash,
      // A streamed body cannot be hashed here; none of our paid routes streams.
      answerHash: body === null ? 'stream' : sha256(body),
    };
  }

  /** A request for this payment stops here, nothing claimed: a replay is a 402, the rest errors. */
  private stop(reply: FastifyReply, stop: Stop, at: { paymentId: string | null; nonceKey: string | null; offer: Offer }): FastifyReply {
    switch (stop.kind) {
      case 'replay':
        return this.refuse(reply, at.offer, PaymentError.NONCE_USED);
      case 'in-progress':
        throw this.inProgress(reply, stop.what);
      case 'id-conflict':
        throw new Errors.PAYMENT_ID_CONFLICT(at.paymentId ?? '');
      case 'exhausted':
        throw new Errors.PAYMENT_ANSWER_EXHAUSTED((at.nonceKey ?? '').slice(0, 12), MAX_RECOMPUTES);
    }
  }

  private refuse(reply: FastifyReply, offer: Offer, error: string): FastifyReply {
    return sendChallenge(reply, paymentRequired(offer.resource, offer.offered, error, this.d.mode));
  }

  private inProgress(reply: FastifyReply, what: string): Error {
    reply.header('retry-after', String(this.d.inProgressRetrySeconds));
    return new Errors.PAYMENT_IN_PROGRESS(what);
  }

  private async release(a: Identified): Promise<void> {
    a.machine.fire('release');
    await this.d.state.release(a.key);
  }
}
