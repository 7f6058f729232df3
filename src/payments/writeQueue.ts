/**
 * Group commit for the payments database: writes queued during one event-loop turn run in ONE
 * SQLite transaction, and each caller's promise settles only after that transaction committed.
 * Under load, one commit (the WAL append and its fsync) is shared by every request of the turn
 * instead of being paid per request. Nothing durable is acknowledged before it is on disk: a batch
 * holding a `durable` write (a ledger row, a nonce claim, a kept answer) commits at the database's
 * own level (`synchronous=FULL` for the service, db.ts).
 *
 * An `outcome` write (a settlement attempt's result, whose loss a crash may cause anyway: the row
 * stays pending and the reconciler settles it again) does not start a commit of its own: it waits
 * for the next durable write and commits in its transaction, or, when none comes within
 * `OUTCOME_WAIT_MS`, commits alone without the fsync (`synchronous=NORMAL`: still atomic, and on
 * disk with the next durable commit, the WAL being append-only). A commit costs about as much CPU
 * as the rows in it (one row alone ~300 µs, each of 8 in one commit ~60 µs, here): under paid load
 * each request's outcome now rides in a later request's ledger commit instead of paying for one.
 *
 * Writes run in queue order, so a claim and its release keep their order. A failing statement fails
 * only its own caller; a failing COMMIT fails the whole batch.
 */
import type { PaymentsDb } from './db.js';

/** `durable`: on disk at the database's level before the promise settles; `outcome`: atomic, fsync'd with the next durable commit. */
export type Durability = 'durable' | 'outcome';

interface Op {
  run: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Largest batch; a turn with more writes is split (bounds the time one transaction holds the lock). */
const MAX_BATCH = 512;

/**
 * Longest an outcome waits for a durable commit to ride in (its caller waits as long: a paid
 * answer goes out after its settlement's outcome is committed). Under load ledger rows commit every
 * few ms; when idle, this is what an outcome adds to its request.
 */
export const OUTCOME_WAIT_MS = 5;

/** PRAGMA synchronous as read back: 2 = FULL. */
const SYNCHRONOUS_FULL = 2;

export class WriteQueue {
  private queue: Op[] = [];
  /** A flush is due at the next turn (a durable write is queued). */
  private scheduled = false;
  /** Only outcomes are queued: they commit when this fires, unless a durable write takes them first. */
  private outcomeTimer: NodeJS.Timeout | null = null;
  /** Commits made and writes in them, since the start (/metrics; bench/paidProfile.ts prints writes per commit). */
  readonly totals = { commits: 0, writes: 0 };
  private readonly transaction: (ops: Op[]) => Outcome[];
  /** The database commits with an fsync (FULL): outcome-only batches then switch to NORMAL for their commit. */
  private readonly full: boolean;

  constructor(private readonly db: PaymentsDb) {
    this.transaction = db.transaction((ops: Op[]) =>
      ops.map((op): Outcome => {
        try {
          return { ok: true, value: op.run() };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
    this.full = db.pragma('synchronous', { simple: true }) === SYNCHRONOUS_FULL;
  }

  /** Runs `fn` (synchronous SQLite work) in the next group commit; resolves after COMMIT (see `Durability`). */
  run<T>(fn: () => T, durability: Durability = 'durable'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const durable = durability === 'durable';
      this.queue.push({ run: fn, durable, resolve: resolve as (v: unknown) => void, reject });
      if (this.scheduled) return;
      if (durable) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      } else {
        this.outcomeTimer ??= setTimeout(() => this.flush(), OUTCOME_WAIT_MS);
      }
    });
  }

  /** Commits everything queued now (also called on close). */
  flush(): void {
    this.scheduled = false;
    if (this.outcomeTimer) clearTimeout(this.outcomeTimer);
    this.outcomeTimer = null;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      let outcomes: Outcome[];
      try {
        outcomes = this.commit(batch);
      } catch (error) {
        for (const op of batch) op.reject(error);
        continue;
      }
      batch.forEach((op, i) => {
        const o = outcomes[i];
        if (!o) op.reject(new Error('write queue: no outcome for an operation'));
        else if (o.ok) op.resolve(o.value);
        else op.reject(o.error);
      });
    }
  }

  private commit(batch: Op[]): Outcome[] {
    this.totals.commits++;
    this.totals.writes += batch.length;
    if (!this.full || batch.some((op) => op.durable)) return this.transaction(batch);
    // A PRAGMA acts when it is compiled: db.pragma each time, not a prepared statement run again.
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.transaction(batch);
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }
}
