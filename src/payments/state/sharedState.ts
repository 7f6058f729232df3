/**
 * The payment state several replicas share (REDIS_URL): each payment's record and kept answer in
 * Redis (store/sharedPayments.ts: claimed → charging → paid / failed, owner-checked), the payment
 * identifiers in the Redis replay store, and this replica's own ledger for the rows it charged.
 * A retry is answered by any replica; a claim of a replica gone before charging is taken over; a
 * payment a replica was charging when it died is answered again without a charge.
 */
import type { FastifyBaseLogger } from 'fastify';
import { bodyBytes, type CachedAnswer } from '../answerCache.js';
import type { Ledger, LedgerEntry } from '../ledger.js';
import { paymentResponseOf } from '../replies.js';
import type { ReplayStore } from '../store/replayStore.js';
import type { SharedPayments } from '../store/sharedPayments.js';
import { retryOfRow } from './ledgerRetry.js';
import { MAX_RECOMPUTES } from './machine.js';
import { checkIdRecord, leaseUntil, storeCall, type ClaimOutcome, type PaymentKey, type PaymentState, type ServeOutcome, type Stop } from './paymentState.js';

export interface SharedStateDeps {
  shared: SharedPayments;
  /** The Redis replay store: payment-identifier records. */
  store: ReplayStore;
  ledger: Ledger;
  /** Largest answer kept for retries (X402_ANSWER_CACHE_ENTRY_BYTES). */
  maxAnswerBytes: number;
  pendingLeaseMs: number;
  now: () => number;
  log: FastifyBaseLogger;
}

export class SharedPaymentState implements PaymentState {
  constructor(private readonly d: SharedStateDeps) {}

  checkId(paymentId: string, fingerprint: string): ReturnType<PaymentState['checkId']> {
    // A pending record may be a dead replica's: the shared claim below says whether its owner still runs it.
    return checkIdRecord(this.d.store, this.d.log, paymentId, fingerprint, false);
  }

  async claim(p: PaymentKey, idDone: boolean): Promise<ClaimOutcome> {
    const { shared, ledger, log } = this.d;
    const outcome = await storeCall(log, () => this.claimShared(p));
    if (outcome.kind !== 'claimed') return outcome;
    // Redis forgot a payment this replica recorded (restarted without persistence): it stays paid.
    const mine = ledger.findByNonceKey(p.nonceKey);
    if (mine) {
      await storeCall(log, () => shared.restore(p.nonceKey, mine.requestHash ?? '', mine.status === 'failed' ? null : paymentResponseOf(mine)));
      return retryOfRow(ledger, mine, p, undefined, (answer) => shared.keepAnswer(p.nonceKey, answer, p.validBefore));
    }
    if (p.paymentId !== null) {
      const stop = await this.beginId(p, p.paymentId, idDone, outcome.takenOver);
      if (stop) return stop;
    }
    return outcome;
  }

  async serve(p: PaymentKey, answer: CachedAnswer | null): Promise<ServeOutcome> {
    // Kept for a retry on any replica before the row is written: from here a dead owner's retry is
    // answered without a charge (its row, if committed, is settled on its restart).
    const ours = await this.d.shared.charging(p.nonceKey, p.requestHash, answer, p.validBefore).catch((err: unknown) => {
      this.d.log.error({ err }, 'payments: shared payment state failed');
      return null;
    });
    // false: this replica was taken for dead and another took the payment over.
    return ours === null ? 'unavailable' : ours ? 'kept' : 'lost';
  }

  async record(p: PaymentKey, entry: LedgerEntry): Promise<number | null> {
    let id: number;
    try {
      id = await this.d.ledger.record(entry);
    } catch (err) {
      this.d.log.error({ err }, 'payments: ledger write failed');
      return null;
    }
    await this.d.store.retireNonce?.(p.nonceKey);
    if (p.paymentId !== null) {
      await this.d.store.completeIdempotency(p.paymentId, p.fingerprint, p.expiresAtMs).catch((err: unknown) => {
        this.d.log.warn({ err }, 'payments: could not mark the payment identifier answered');
      });
    }
    return id;
  }

  async settled(p: PaymentKey, paymentResponse: string): Promise<void> {
    // Not fatal: the record stays `charging`, answered without a charge once this replica is gone.
    await this.d.shared
      .paid(p.nonceKey, p.requestHash, paymentResponse)
      .catch((err: unknown) => this.d.log.warn({ err }, 'payments: shared payment state failed'));
  }

  async refused(p: PaymentKey): Promise<void> {
    await this.d.shared.failed(p.nonceKey, p.requestHash).catch((err: unknown) => this.d.log.error({ err }, 'payments: shared payment state failed'));
    if (p.paymentId !== null) await this.d.store.releaseIdempotency(p.paymentId).catch(() => undefined);
  }

  async release(p: PaymentKey): Promise<void> {
    const id = p.paymentId;
    await Promise.all([this.d.shared.release(p.nonceKey), id === null ? undefined : this.d.store.releaseIdempotency(id)]).catch((err: unknown) =>
      this.d.log.error({ err }, 'payments: could not release a nonce claim'),
    );
  }

  end(): void {}

  fits(body: string | Buffer): boolean {
    return bodyBytes(body) <= this.d.maxAnswerBytes;
  }

  /** Claims the payment, takes it over from a replica that died before charging it, or says what the holder's record means. */
  private async claimShared(p: PaymentKey): Promise<ClaimOutcome> {
    const { shared, log } = this.d;
    const claim = await shared.claim(p.nonceKey, p.requestHash, p.expiresAtMs);
    if (claim.kind === 'claimed') return { kind: 'claimed', takenOver: false };
    const r = claim.record;
    const inProgress: Stop = { kind: 'in-progress', what: p.nonceKey.slice(0, 12) };
    if (!r || r.h !== p.requestHash || r.s === 'failed') return { kind: 'replay' };
    if (r.s === 'claimed') {
      // Nothing was charged yet: a dead (or stale) owner's claim is taken over, atomically.
      if (!claim.ownerLive && (await shared.takeOver(p.nonceKey, r.o, p.requestHash))) {
        log.warn({ nonceKey: p.nonceKey, deadReplica: r.o }, 'payments: took over a payment claimed by a replica gone before charging it');
        return { kind: 'claimed', takenOver: true };
      }
      return inProgress;
    }
    // `charging` on a live owner: it is recording and settling; its answer is coming.
    if (r.s === 'charging' && claim.ownerLive) return inProgress;
    // `paid`, or `charging` whose owner is gone: its row (if committed) is settled by its reconciler.
    const paymentResponse = r.r ?? null;
    const cached = await shared.answer(p.nonceKey);
    if (cached && cached.requestHash === p.requestHash) return { kind: 'kept', answer: cached, paymentResponse };
    // Counted after the recompute, only when it ran and its answer could not be kept.
    if ((await shared.recomputes(p.nonceKey)) >= MAX_RECOMPUTES) return { kind: 'exhausted' };
    if (r.o !== shared.replicaId) log.info({ nonceKey: p.nonceKey, replica: r.o }, 'payments: answering again a payment taken by another replica');
    return {
      kind: 'recompute',
      recompute: {
        paymentResponse: () => paymentResponse,
        keep: (answer) => shared.keepAnswer(p.nonceKey, answer, p.validBefore),
        count: () =>
          shared.countRecompute(p.nonceKey, MAX_RECOMPUTES, p.expiresAtMs).then(
            () => undefined,
            () => undefined,
          ),
      },
    };
  }

  /**
   * The payment-identifier record beside a shared claim: begun, or (taken over from a dead replica)
   * kept as it is; a conflict gives the claim back.
   */
  private async beginId(p: PaymentKey, paymentId: string, idDone: boolean, takenOver: boolean): Promise<Stop | null> {
    const { shared, store, log } = this.d;
    const fail = async (stop: Stop): Promise<Stop> => {
      await shared.release(p.nonceKey).catch(() => undefined);
      return stop;
    };
    if (idDone) return fail({ kind: 'id-conflict' });
    if (await storeCall(log, () => store.beginIdempotency(paymentId, p.fingerprint, leaseUntil(p, this.d.now(), this.d.pendingLeaseMs)))) return null;
    const record = await storeCall(log, () => store.getIdempotency(paymentId));
    if (record && record.fingerprint === p.fingerprint) {
      if (takenOver && record.state === 'pending') return null; // the dead replica's record: ours now
      return fail({ kind: 'in-progress', what: paymentId });
    }
    return fail({ kind: 'id-conflict' });
  }
}
