/**
 * Where a payment's state lives, behind one interface, so the gate never asks which storage runs:
 * `LocalPaymentState` (one process: the SQLite or memory replay store, the ledger and the kept
 * answers of the data directory) and `SharedPaymentState` (REDIS_URL: the states and answers every
 * replica shares, store/sharedPayments.ts, beside this replica's ledger). Each method is one
 * transition of machine.ts; the gate calls them in the table's order.
 */
import type { FastifyBaseLogger } from 'fastify';
import { Errors } from '../../errors.js';
import type { CachedAnswer } from '../keptAnswers.js';
import type { LedgerEntry } from '../ledger.js';
import type { ReplayStore } from '../store/replayStore.js';

/** One payment as the state implementations know it (claimed, or being looked up). */
export interface PaymentKey {
  /** `(chainId, asset, from, nonce)`: the authorization. */
  nonceKey: string;
  /** SHA-256 of the request: a retry must be the same request. */
  requestHash: string;
  /** The payment-identifier extension's id, if the payer sent one. */
  paymentId: string | null;
  /** SHA-256 of the request and the exact header (payment-identifier records). */
  fingerprint: string;
  /** The authorization's `validBefore` (seconds). */
  validBefore: number;
  /** When claims and records of this payment expire (ms): past `validBefore`. */
  expiresAtMs: number;
}

/** Why a request for this payment stops before the handler, with nothing claimed. */
export type Stop =
  /** Running now (here or on a live replica): come back after Retry-After. `what` names it. */
  | { kind: 'in-progress'; what: string }
  /** The payment identifier belongs to another request or payment. */
  | { kind: 'id-conflict' }
  /** Not this request's payment (another request's, or refused by the facilitator): 402. */
  | { kind: 'replay' }
  /** Charged for this request, but its answer can no longer be recomputed (never a 402: the payer paid). */
  | { kind: 'exhausted' };

/** A retry answered by running the handler again, uncharged. */
export interface Recompute {
  /**
   * PAYMENT-RESPONSE of the payment, read when the answer goes out (a local row may have settled
   * meanwhile); null when this replica cannot know its settlement (taken by a replica gone since).
   */
  paymentResponse(): string | null;
  /** Keeps the recomputed answer for the next retry. */
  keep(answer: CachedAnswer): Promise<void>;
  /** Counts a recompute that ran and could not be kept. */
  count(): Promise<void>;
}

export type ClaimOutcome =
  | { kind: 'claimed'; takenOver: boolean }
  | Stop
  /** Taken already for this request: the kept answer goes out again. */
  | { kind: 'kept'; answer: CachedAnswer; paymentResponse: string | null }
  | { kind: 'recompute'; recompute: Recompute };

/** `kept`: serve on; `lost`: another replica took it over; `unavailable`: the state could not be written (claim given back). */
export type ServeOutcome = 'kept' | 'lost' | 'unavailable';

export interface PaymentState {
  /**
   * Before the payment is verified: the payment identifier's record, if any. `done`: answered
   * before (the ledger decides below whether this is a retry or a conflict).
   */
  checkId(paymentId: string, fingerprint: string): Promise<{ kind: 'new' } | { kind: 'done' } | Stop>;
  /** new → claimed, or why not (a retry of a payment taken already, a replay, in progress). `idDone` from checkId. */
  claim(p: PaymentKey, idDone: boolean): Promise<ClaimOutcome>;
  /** claimed → served: the answer exists (null: streamed, not kept). */
  serve(p: PaymentKey, answer: CachedAnswer | null): Promise<ServeOutcome>;
  /** served → recorded: the ledger row (and, local, the answer) durable; null when the ledger failed (released). */
  record(p: PaymentKey, entry: LedgerEntry, answer: CachedAnswer | null): Promise<number | null>;
  /** recorded → settled: retries get `paymentResponse`. */
  settled(p: PaymentKey, paymentResponse: string): Promise<void>;
  /** recorded → refused: the answer is dropped, the payment identifier free. */
  refused(p: PaymentKey): Promise<void>;
  /** claimed → released: nothing charged, the payer may retry. Never throws (logged). */
  release(p: PaymentKey): Promise<void>;
  /** The request's part is over (whatever its end). */
  end(p: PaymentKey): void;
  /** Whether an answer of this body is small enough to keep (else a retry recomputes it). */
  fits(body: string | Buffer): boolean;
}

/** A store failure refuses the request (never serves unpaid, never charges twice). */
export async function storeCall<T>(log: FastifyBaseLogger, fn: () => Promise<T>, undo?: () => Promise<void>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    log.error({ err }, 'payments: replay store failed');
    if (undo) await undo().catch(() => undefined);
    throw new Errors.PAYMENT_STORE_UNAVAILABLE(err instanceof Error ? err.message : 'error');
  }
}

/** The payment identifier's record before verification; `pendingStops`: a pending record means "in progress" here. */
export async function checkIdRecord(
  store: ReplayStore,
  log: FastifyBaseLogger,
  paymentId: string,
  fingerprint: string,
  pendingStops: boolean,
): Promise<{ kind: 'new' } | { kind: 'done' } | Stop> {
  const record = await storeCall(log, () => store.getIdempotency(paymentId));
  if (!record) return { kind: 'new' };
  if (record.fingerprint !== fingerprint) return { kind: 'id-conflict' };
  if (record.state === 'pending' && pendingStops) return { kind: 'in-progress', what: paymentId };
  return record.state === 'done' ? { kind: 'done' } : { kind: 'new' };
}

/** Lease of a pending payment-identifier record: a crashed owner blocks its id no longer. */
export function leaseUntil(p: PaymentKey, now: number, pendingLeaseMs: number): number {
  return Math.min(p.expiresAtMs, now + pendingLeaseMs);
}
