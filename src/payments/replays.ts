/**
 * Answering again a payment already taken (the payer retrying the same header for the same
 * request after a lost answer): the kept answer, else the handler runs again and nothing is
 * charged. From this replica's ledger row and answer cache, or (REDIS_URL) from the state and
 * answer the replicas share. Anything but the same request is a replay.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { AnswerCache } from './answerCache.js';
import { encodeHeaderJson } from './decode.js';
import type { Ledger, LedgerRow } from './ledger.js';
import { contentTypeOf, paymentResponseOf, replayHeaders } from './replies.js';
import type { PaymentPayload } from './schemas.js';
import type { SharedOutcome } from './sharedRetries.js';
import type { SharedPayments } from './store/sharedPayments.js';
import type { VerifiedPayment } from './verify.js';

/**
 * Times one paid answer may be recomputed for retries without being kept (a kept answer is given
 * again without limit). Counted only when a recompute ran and its answer could not be kept: it
 * failed (but 503, a service not ready yet: come back, nothing spent) or was too large to keep.
 */
export const MAX_RECOMPUTES = 3;

/** A retry answered by running the handler again: what its answer carries. */
export interface Replay {
  /** The local ledger row (its PAYMENT-RESPONSE is read again when answering); null when shared. */
  row: LedgerRow | null;
  paymentResponse: string;
}

/** The retry being answered. */
export interface RetryOf {
  requestHash: string;
  verified: VerifiedPayment;
  payload: PaymentPayload;
  /** When the payment's records expire (ms): a kept answer lives as long. */
  expiresAtMs: number;
}

/**
 * `sent`: the kept answer went out; `recompute`: run the handler (uncharged); `replay`: not this
 * request's payment, refuse; `exhausted`: charged for this request, but its answer can no longer
 * be recomputed (never a 402: the payer paid).
 */
export type ReplayStep = { kind: 'sent' } | { kind: 'recompute'; replay: Replay } | { kind: 'replay' } | { kind: 'in-progress' } | { kind: 'exhausted' };

export class Replays {
  constructor(private readonly d: { ledger: Ledger; answers: AnswerCache; shared: SharedPayments | null; log: FastifyBaseLogger }) {}

  /** The payment in this replica's ledger `row` was taken. */
  fromRow(reply: FastifyReply, row: LedgerRow, retry: RetryOf): ReplayStep {
    if (row.status === 'failed' || row.requestHash !== retry.requestHash) return { kind: 'replay' };
    const cached = this.d.answers.get(row.nonceKey);
    if (cached && cached.requestHash === retry.requestHash) {
      reply.code(cached.statusCode).header('content-type', cached.contentType);
      replayHeaders(reply, paymentResponseOf(row));
      void reply.send(cached.body);
      return { kind: 'sent' };
    }
    if (row.replays >= MAX_RECOMPUTES) return { kind: 'exhausted' };
    return { kind: 'recompute', replay: { row, paymentResponse: paymentResponseOf(row) } };
  }

  /** The shared state holds the payment (sharedRetries.ts decided what that means). */
  fromShared(reply: FastifyReply, outcome: Exclude<SharedOutcome, { kind: 'claimed' }>, retry: RetryOf): ReplayStep {
    if (outcome.kind === 'replay' || outcome.kind === 'in-progress' || outcome.kind === 'exhausted') return outcome;
    const paymentResponse = outcome.paymentResponse ?? unknownSettlement(retry);
    if (outcome.kind === 'cached') {
      reply.code(outcome.answer.statusCode).header('content-type', outcome.answer.contentType);
      replayHeaders(reply, paymentResponse);
      void reply.send(outcome.answer.body);
      return { kind: 'sent' };
    }
    return { kind: 'recompute', replay: { row: null, paymentResponse } };
  }

  /**
   * `onSend` of a recomputed answer: replay headers; the answer kept for the next retry, or, when it
   * could not be (failed, too large), the recompute counted. A 503 (not ready, node down) is not.
   */
  async decorate(reply: FastifyReply, retry: RetryOf, replay: Replay, payload: unknown): Promise<unknown> {
    const row = replay.row ? (this.d.ledger.get(replay.row.id) ?? replay.row) : null;
    replayHeaders(reply, row ? paymentResponseOf(row) : replay.paymentResponse);
    const key = retry.verified.nonceKey;
    const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null;
    if (reply.statusCode < 400 && body !== null && this.d.answers.fits(body)) {
      const answer = { requestHash: retry.requestHash, statusCode: reply.statusCode, contentType: contentTypeOf(reply), body };
      const keep = this.d.shared ? this.d.shared.keepAnswer(key, answer, retry.verified.validBefore) : this.d.answers.keep(key, answer, retry.expiresAtMs);
      await keep.catch((err: unknown) => this.d.log.warn({ err }, 'payments: could not keep a recomputed answer'));
    } else if (reply.statusCode !== 503) {
      if (row) this.d.ledger.countReplay(row.id, MAX_RECOMPUTES);
      else await this.d.shared?.countRecompute(key, MAX_RECOMPUTES, retry.expiresAtMs).catch(() => undefined);
    }
    return payload;
  }
}

/** PAYMENT-RESPONSE for a payment whose settlement this replica cannot know (its owner died). */
function unknownSettlement(retry: RetryOf): string {
  const v = retry.verified;
  return encodeHeaderJson({
    success: true,
    transaction: '',
    network: v.network.network,
    payer: retry.payload.payload.authorization.from,
    amount: v.requirement.amount,
    extra: { settlement: 'pending' },
  });
}
