/**
 * The durable payment ledger (SQLite in DATA_DIR): one row per accepted authorization, written
 * BEFORE settlement is attempted so a process killed between the answer and the settlement leaves
 * a `pending` row that the reconciler settles on the next start. The row holds everything needed
 * to settle later (the payment payload and the matched requirements).
 *
 * Statuses: `pending` (to settle, maybe with a broadcast tx hash), `settled`, `unsettled` (no
 * facilitator: verified locally only), `failed` (the facilitator refused it definitively).
 */
import type { Statement } from 'better-sqlite3';
import type { PaymentsDb } from './db.js';
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
}

export interface LedgerRow extends LedgerEntry {
  id: number;
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
}

export class Ledger {
  private readonly insert: Statement;
  private readonly update: Statement<[LedgerStatus, string | null, string | null, number, number | null, number]>;
  private readonly attempt: Statement<[number, number]>;
  private readonly byStatus: Statement<[LedgerStatus, number], RawRow>;
  private readonly byId: Statement<[number], RawRow>;
  private readonly byNonce: Statement<[string], RawRow>;
  /** Rows per status, counted once at open and maintained by this class (one writer per DATA_DIR). */
  private readonly counts: Record<LedgerStatus, number> = { pending: 0, settled: 0, unsettled: 0, failed: 0 };

  constructor(
    db: PaymentsDb,
    private readonly now: () => number = Date.now,
    private readonly writes: WriteQueue = new WriteQueue(db),
  ) {
    this.insert = db.prepare(`INSERT INTO payments (nonce_key, route, price_usd, amount, network, asset, pay_to, payer, nonce, valid_before,
      payload, requirements, status, created_at, updated_at, settled_at)
      VALUES (@nonceKey, @route, @priceUsd, @amount, @network, @asset, @payTo, @payer, @nonce, @validBefore, @payload, @requirements, @status, @now, @now, NULL)`);
    this.update = db.prepare('UPDATE payments SET status = ?, tx_hash = COALESCE(?, tx_hash), error = ?, updated_at = ?, settled_at = ? WHERE id = ?');
    this.attempt = db.prepare('UPDATE payments SET attempts = attempts + 1, updated_at = ? WHERE id = ?');
    this.byStatus = db.prepare('SELECT * FROM payments WHERE status = ? ORDER BY updated_at LIMIT ?');
    for (const { status, n } of db.prepare('SELECT status, COUNT(*) AS n FROM payments GROUP BY status').all() as Array<{ status: LedgerStatus; n: number }>) {
      this.counts[status] = n;
    }
    this.byId = db.prepare('SELECT * FROM payments WHERE id = ?');
    this.byNonce = db.prepare('SELECT * FROM payments WHERE nonce_key = ?');
  }

  /**
   * Records an accepted payment (group commit); resolves with its id once durable. Rejects on a
   * duplicate nonce key (a replay).
   */
  record(entry: LedgerEntry): Promise<number> {
    const row = { ...entry, payload: JSON.stringify(entry.payload), requirements: JSON.stringify(entry.requirements), now: this.now() };
    return this.writes
      .run(() => Number(this.insert.run(row).lastInsertRowid))
      .then((id) => {
        this.counts[entry.status]++;
        return id;
      });
  }

  markSettled(id: number, txHash: string): void {
    const now = this.now();
    this.transition(id, 'settled', () => this.update.run('settled', txHash, null, now, now, id));
  }

  markPending(id: number, txHash: string | null, reason: string): void {
    this.transition(id, 'pending', () => this.update.run('pending', txHash, reason, this.now(), null, id));
  }

  markFailed(id: number, txHash: string | null, reason: string): void {
    this.transition(id, 'failed', () => this.update.run('failed', txHash, reason, this.now(), null, id));
  }

  /** Status changes are rare (settlement outcomes): read the old status to keep the counts exact. */
  private transition(id: number, to: LedgerStatus, write: () => unknown): void {
    const from = this.byId.get(id)?.status;
    write();
    if (from !== undefined && from !== to) {
      this.counts[from]--;
      this.counts[to]++;
    }
  }

  countAttempt(id: number): void {
    this.attempt.run(this.now(), id);
  }

  get(id: number): LedgerRow | null {
    const row = this.byId.get(id);
    return row ? toRow(row) : null;
  }

  findByNonceKey(nonceKey: string): LedgerRow | null {
    const row = this.byNonce.get(nonceKey);
    return row ? toRow(row) : null;
  }

  /** Oldest-updated rows of a status first. */
  list(status: LedgerStatus, limit = 100): LedgerRow[] {
    return this.byStatus.all(status, limit).map(toRow);
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
  };
}
