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

/** Times one paid answer may be recomputed for retries (a cached answer is replayed without limit). */
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
}

/** `sent`: the kept answer went out; `recompute`: run the handler (uncharged); `replay`: refuse. */
export type ReplayStep = { kind: 'sent' } | { kind: 'recompute'; replay: Replay } | { kind: 'replay' } | { kind: 'in-progress' };

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
    if (!this.d.ledger.countReplay(row.id, MAX_RECOMPUTES)) return { kind: 'replay' };
    return { kind: 'recompute', replay: { row, paymentResponse: paymentResponseOf(row) } };
  }

  /** The shared state holds the payment (sharedRetries.ts decided what that means). */
  fromShared(reply: FastifyReply, outcome: Exclude<SharedOutcome, { kind: 'claimed' }>, retry: RetryOf): ReplayStep {
    if (outcome.kind === 'replay' || outcome.kind === 'in-progress') return outcome;
    const paymentResponse = outcome.paymentResponse ?? unknownSettlement(retry);
    if (outcome.kind === 'cached') {
      reply.code(outcome.answer.statusCode).header('content-type', outcome.answer.contentType);
      replayHeaders(reply, paymentResponse);
      void reply.send(outcome.answer.body);
      return { kind: 'sent' };
    }
    return { kind: 'recompute', replay: { row: null, paymentResponse } };
  }

  /** `onSend` of a recomputed answer: replay headers, and the answer kept for the next retry. */
  async decorate(reply: FastifyReply, retry: RetryOf, replay: Replay, payload: unknown): Promise<unknown> {
    const row = replay.row ? (this.d.ledger.get(replay.row.id) ?? replay.row) : null;
    replayHeaders(reply, row ? paymentResponseOf(row) : replay.paymentResponse);
    if (reply.statusCode < 400 && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const answer = { requestHash: retry.requestHash, statusCode: reply.statusCode, contentType: contentTypeOf(reply), body: payload };
      if (this.d.shared) {
        await this.d.shared
          .keepAnswer(retry.verified.nonceKey, answer, retry.verified.validBefore)
          .catch((err: unknown) => this.d.log.warn({ err }, 'payments: could not keep a recomputed answer'));
      } else this.d.answers.set(retry.verified.nonceKey, answer);
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
