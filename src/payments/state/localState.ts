/**
 * One process's payment state (no REDIS_URL): claims in the replay store (SQLite, or memory in
 * tests), the ledger row as the durable claim, and the paid answer kept on disk in the row's group
 * commit (answerCache.ts, keptAnswers.ts), so that it outlives a crash.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AnswerCache, CachedAnswer } from '../answerCache.js';
import type { Ledger, LedgerEntry } from '../ledger.js';
import type { ReplayStore } from '../store/replayStore.js';
import { retryOfRow } from './ledgerRetry.js';
import { checkIdRecord, leaseUntil, storeCall, type ClaimOutcome, type PaymentKey, type PaymentState, type ServeOutcome } from './paymentState.js';

export interface LocalStateDeps {
  store: ReplayStore;
  ledger: Ledger;
  answers: AnswerCache;
  /** How long a pending payment-identifier record blocks its id at most. */
  pendingLeaseMs: number;
  now: () => number;
  log: FastifyBaseLogger;
}

export class LocalPaymentState implements PaymentState {
  /** Payments claimed by requests still running here: nonce key → request hash. */
  private readonly inFlight = new Map<string, string>();

  constructor(private readonly d: LocalStateDeps) {}

  checkId(paymentId: string, fingerprint: string): ReturnType<PaymentState['checkId']> {
    // One process: a pending record is a request still running here.
    return checkIdRecord(this.d.store, this.d.log, paymentId, fingerprint, true);
  }

  async claim(p: PaymentKey, idDone: boolean): Promise<ClaimOutcome> {
    const { store, ledger, log } = this.d;
    // This payment was already taken: a retry of the same request is answered, never charged again.
    const paid = ledger.findByNonceKey(p.nonceKey);
    if (paid) return this.retry(p, paid);
    if (idDone && p.paymentId !== null) return { kind: 'id-conflict' };

    const id = p.paymentId;
    if (id !== null && !(await storeCall(log, () => store.beginIdempotency(id, p.fingerprint, leaseUntil(p, this.d.now(), this.d.pendingLeaseMs))))) {
      // A concurrent request holds this id: the same payment still running, or another payment.
      const record = await storeCall(log, () => store.getIdempotency(id));
      return record && record.fingerprint === p.fingerprint ? { kind: 'in-progress', what: id } : { kind: 'id-conflict' };
    }
    const claimed = await storeCall(log, () => store.claimNonce(p.nonceKey, p.expiresAtMs), id === null ? undefined : () => store.releaseIdempotency(id));
    if (!claimed) {
      if (id !== null) await store.releaseIdempotency(id).catch(() => undefined);
      // The same payment for the same request, still running here: come back for its answer.
      if (this.inFlight.get(p.nonceKey) === p.requestHash) return { kind: 'in-progress', what: p.nonceKey.slice(0, 12) };
      const now = ledger.findByNonceKey(p.nonceKey);
      return now ? this.retry(p, now) : { kind: 'replay' };
    }
    this.inFlight.set(p.nonceKey, p.requestHash);
    return { kind: 'claimed', takenOver: false };
  }

  /** Nothing to write yet: the answer is kept with the ledger row, in one commit (`record`). */
  async serve(): Promise<ServeOutcome> {
    return 'kept';
  }

  async record(p: PaymentKey, entry: LedgerEntry, answer: CachedAnswer | null): Promise<number | null> {
    const { answers, ledger, store, log } = this.d;
    // Kept for a retry before settling (whoever is charged can fetch the answer again), on disk in
    // the row's group commit: the answer outlives a crash.
    const kept =
      answer === null
        ? undefined
        : answers
            .keep(p.nonceKey, answer, p.expiresAtMs)
            .catch((err: unknown) => log.warn({ err }, 'payments: could not keep a paid answer (a retry recomputes it)'));
    let id: number;
    try {
      id = await ledger.record(entry);
    } catch (err) {
      // No answer without a durable record: the caller gives the claim back and refuses.
      log.error({ err }, 'payments: ledger write failed');
      await kept;
      await answers.delete(p.nonceKey).catch(() => undefined);
      return null;
    }
    await kept;
    await store.retireNonce?.(p.nonceKey);
    await this.completeId(p);
    return id;
  }

  /** The row and the answer say it all: retries read PAYMENT-RESPONSE from the row. */
  async settled(): Promise<void> {}

  async refused(p: PaymentKey): Promise<void> {
    await this.d.answers.delete(p.nonceKey).catch(() => undefined);
    if (p.paymentId !== null) await this.d.store.releaseIdempotency(p.paymentId).catch(() => undefined);
  }

  async release(p: PaymentKey): Promise<void> {
    this.inFlight.delete(p.nonceKey);
    const id = p.paymentId;
    await Promise.all([this.d.store.releaseNonce(p.nonceKey), id === null ? undefined : this.d.store.releaseIdempotency(id)]).catch((err: unknown) =>
      this.d.log.error({ err }, 'payments: could not release a nonce claim'),
    );
  }

  end(p: PaymentKey): void {
    this.inFlight.delete(p.nonceKey);
  }

  fits(body: string | Buffer): boolean {
    return this.d.answers.fits(body);
  }

  private retry(p: PaymentKey, row: Parameters<typeof retryOfRow>[1]): ClaimOutcome {
    return retryOfRow(this.d.ledger, row, p, this.d.answers.get(row.nonceKey), (answer) => this.d.answers.keep(p.nonceKey, answer, p.expiresAtMs));
  }

  private async completeId(p: PaymentKey): Promise<void> {
    if (p.paymentId === null) return;
    await this.d.store.completeIdempotency(p.paymentId, p.fingerprint, p.expiresAtMs).catch((err: unknown) => {
      this.d.log.warn({ err }, 'payments: could not mark the payment identifier answered');
    });
  }
}
