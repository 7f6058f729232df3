/**
 * The durable payment ledger (SQLite in DATA_DIR): one row per accepted authorization, written
 * once the handler produced its answer and BEFORE settlement is attempted, with the hash of the
 * request and of the answer. A process killed after that leaves a `pending` row that the
 * reconciler settles on the next start, and the payer's retry of the same header for the same
 * request is answered again (from the answer cache, or recomputed) without a second charge. A
 * `pending` row without an answer hash (written by an older build, before its answer was known)
 * is released at start: nothing proves its answer was produced. The row holds everything needed
 * to settle later (the payment payload and the matched requirements).
 *
 * Statuses: `pending` (to settle, maybe with a broadcast tx hash), `settled`, `unsettled` (no
 * facilitator: verified locally only), `failed` (the facilitator refused it definitively).
 */
import type { Statement } from 'better-sqlite3';
import type { PaymentsDb } from './db.js';
import { jsonOnce } from './jsonOnce.js';
import { WriteQueue } from './writeQueue.js';
import type { PaymentPayload, PaymentRequirements } from './schemas.js';

export type LedgerStatus = 'pending' | 'settled' | 'unsettled' | 'failed';

export interface LedgerEntry {
  nonceKey: string;
  route: string;
  priceUsd: number;
  amount: string;
  network: string;
  asset: string;
  payTo: string;
  payer: string;
  nonce: string;
  validBefore: number;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  status: LedgerStatus;
  /** SHA-256 of the request (method, URL, body): a retry must be the same request. */
  requestHash: string;
  /** SHA-256 of the answer's body, known before settlement. */
  answerHash: string;
}

export interface LedgerRow extends Omit<LedgerEntry, 'requestHash' | 'answerHash'> {
  id: number;
  /** Null on rows written by builds before schema 2. */
  requestHash: string | null;
  answerHash: string | null;
  /** Times the answer was recomputed for a retry. */
  replays: number;
  txHash: string | null;
  error: string | null;
  attempts: number;
  createdAt: number;
  updatedAt: number;
  settledAt: number | null;
}

interface RawRow {
  id: number;
  nonce_key: string;
  route: string;
  price_usd: number;
  amount: string;
  network: string;
  asset: string;
  pay_to: string;
  payer: string;
  nonce: string;
  valid_before: number;
  payload: string;
  requirements: string;
  status: LedgerStatus;
  tx_hash: string | null;
  error: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
  settled_at: number | null;
  request_hash: string | null;
  answer_hash: string | null;
  replays: number;
}

/** Retention: settled, unsettled and failed rows older than the cutoff whose payment expired (index `payments_created`). */
export const PURGE_SQL = "DELETE FROM payments WHERE status != 'pending' AND created_at < ? AND valid_before < ?";

export class Ledger {
  private readonly insert: Statement;
  private readonly update: Statement<[LedgerStatus, string | null, string | null, number, number | null, number]>;
  private readonly byStatus: Statement<[LedgerStatus, number, number], RawRow>;
  private readonly replay: Statement<[number, number]>;
  private readonly unanswered: Statement<[], { id: number }>;
  private readonly remove: Statement<[number]>;
  private readonly purgeOld: Statement<[number, number]>;
  private readonly db: PaymentsDb;
  private readonly byId: Statement<[number], RawRow>;
  private readonly byNonce: Statement<[string], RawRow>;
  /** Rows per status, counted once at open and maintained by this class (one writer per DATA_DIR). */
  private readonly counts: Record<LedgerStatus, number> = { pending: 0, settled: 0, unsettled: 0, failed: 0 };

  constructor(
    db: PaymentsDb,
    private readonly now: () => number = Date.now,
    private readonly writes: WriteQueue = new WriteQueue(db),
  ) {
    this.db = db;
    this.insert = db.prepare(`INSERT INTO payments (nonce_key, route, price_usd, amount, network, asset, pay_to, payer, nonce, valid_before,
      payload, requirements, status, created_at, updated_at, settled_at, request_hash, answer_hash)
      VALUES (@nonceKey, @route, @priceUsd, @amount, @network, @asset, @payTo, @payer, @nonce, @validBefore, @payload, @requirements, @status,
      @now, @now, NULL, @requestHash, @answerHash)`);
    // One write per settlement attempt: its outcome and the attempt count together.
    this.update = db.prepare(
      'UPDATE payments SET status = ?, tx_hash = COALESCE(?, tx_hash), error = ?, updated_at = ?, settled_at = ?, attempts = attempts + 1 WHERE id = ?',
    );
    this.byStatus = db.prepare('SELECT * FROM payments WHERE status = ? AND updated_at <= ? ORDER BY updated_at LIMIT ?');
    this.replay = db.prepare('UPDATE payments SET replays = replays + 1 WHERE id = ? AND replays < ?');
    this.unanswered = db.prepare("SELECT id FROM payments WHERE status = 'pending' AND answer_hash IS NULL");
    this.remove = db.prepare('DELETE FROM payments WHERE id = ?');
    this.purgeOld = db.prepare(PURGE_SQL);
    this.recount();
    this.byId = db.prepare('SELECT * FROM payments WHERE id = ?');
    this.byNonce = db.prepare('SELECT * FROM payments WHERE nonce_key = ?');
  }

  /**
   * Records an accepted payment (group commit); resolves with its id once durable. Rejects on a
   * duplicate nonce key (a replay).
   */
  record(entry: LedgerEntry): Promise<number> {
    const row = { ...entry, payload: jsonOnce(entry.payload), requirements: jsonOnce(entry.requirements), now: this.now() };
    return this.writes
      .run(() => Number(this.insert.run(row).lastInsertRowid))
      .then((id) => {
        this.counts[entry.status]++;
        return id;
      });
  }

  /**
   * The outcome of one settlement attempt (counted), in the next group commit, without an fsync of
   * its own (writeQueue.ts `outcome`: on disk with the next durable commit). Each used to be its
   * own synchronous transaction: two fsyncs (synchronous=FULL) per paid request on the event loop,
   * about a third of a replica's time under paid load (bench/paidProfile.ts). Losing an outcome
   * to a crash leaves the row pending: the reconciler settles it again (the facilitator answers
   * an authorization it already settled with the same transaction).
   */
  markSettled(id: number, txHash: string): Promise<void> {
    const now = this.now();
    return this.transition(id, 'settled', () => this.update.run('settled', txHash, null, now, now, id));
  }

  markPending(id: number, txHash: string | null, reason: string): Promise<void> {
    return this.transition(id, 'pending', () => this.update.run('pending', txHash, reason, this.now(), null, id));
  }

  markFailed(id: number, txHash: string | null, reason: string): Promise<void> {
    return this.transition(id, 'failed', () => this.update.run('failed', txHash, reason, this.now(), null, id));
  }

  /** Reads the old status in the same transaction to keep the counts exact. */
  private async transition(id: number, to: LedgerStatus, write: () => unknown): Promise<void> {
    const from = await this.writes.run(() => {
      const before = this.byId.get(id)?.status;
      write();
      return before;
    }, 'outcome');
    if (from !== undefined && from !== to) {
      this.counts[from]--;
      this.counts[to]++;
    }
  }

  get(id: number): LedgerRow | null {
    const row = this.byId.get(id);
    return row ? toRow(row) : null;
  }

  findByNonceKey(nonceKey: string): LedgerRow | null {
    const row = this.byNonce.get(nonceKey);
    return row ? toRow(row) : null;
  }

  /** Oldest-updated rows of a status first; with `quietMs`, only rows untouched for that long. */
  list(status: LedgerStatus, limit = 100, quietMs = 0): LedgerRow[] {
    return this.byStatus.all(status, this.now() - quietMs, limit).map(toRow);
  }

  /** Counts one recomputation of a row's answer; false when `max` were already made. */
  countReplay(id: number, max: number): boolean {
    return this.replay.run(id, max).changes === 1;
  }

  /**
   * At start: deletes `pending` rows that carry no answer hash (older builds wrote the row before
   * the answer was known), so their authorization is free again and nothing is settled for an
   * answer nobody can show. Returns how many were released.
   */
  releaseUnanswered(): number {
    const ids = this.unanswered.all().map((r) => r.id);
    this.db.transaction(() => {
      for (const id of ids) this.remove.run(id);
    })();
    if (ids.length > 0) this.recount();
    return ids.length;
  }

  /**
   * Deletes settled, unsettled and failed rows created before `createdBeforeMs` whose authorization
   * expired before `nowSeconds` (an expired authorization is refused by the checks, so dropping its
   * row cannot reopen a replay). Pending rows are kept until settled. Returns the rows removed.
   */
  purge(createdBeforeMs: number, nowSeconds: number): number {
    const removed = this.purgeOld.run(createdBeforeMs, nowSeconds).changes;
    if (removed > 0) this.recount();
    return removed;
  }

  private recount(): void {
    for (const s of Object.keys(this.counts) as LedgerStatus[]) this.counts[s] = 0;
    for (const { status, n } of this.db.prepare('SELECT status, COUNT(*) AS n FROM payments GROUP BY status').all() as Array<{
      status: LedgerStatus;
      n: number;
    }>) {
      this.counts[status] = n;
    }
  }

  /** O(1): maintained in memory (the /health route reads it). */
  countByStatus(): Record<LedgerStatus, number> {
    return { ...this.counts };
  }
}

function toRow(r: RawRow): LedgerRow {
  return {
    id: r.id,
    nonceKey: r.nonce_key,
    route: r.route,
    priceUsd: r.price_usd,
    amount: r.amount,
    network: r.network,
    asset: r.asset,
    payTo: r.pay_to,
    payer: r.payer,
    nonce: r.nonce,
    validBefore: r.valid_before,
    payload: JSON.parse(r.payload) as PaymentPayload,
    requirements: JSON.parse(r.requirements) as PaymentRequirements,
    status: r.status,
    txHash: r.tx_hash,
    error: r.error,
    attempts: r.attempts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    settledAt: r.settled_at,
    requestHash: r.request_hash,
    answerHash: r.answer_hash,
    replays: r.replays,
  };
}
