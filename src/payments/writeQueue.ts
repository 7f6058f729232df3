/**
 * Group commit for the payments database: writes queued during one event-loop turn run in ONE
 * SQLite transaction, and each caller's promise settles only once that transaction is durable.
 * Under load, one commit and one fsync are shared by every request of the turn instead of being
 * paid per request. Nothing durable is acknowledged before it is on disk.
 *
 * The fsync leaves the event loop. In WAL mode `synchronous=FULL` is `NORMAL` plus one sync of the
 * WAL file after each commit (sqlite.org/pragma.html#pragma_synchronous); done inside COMMIT it
 * blocked the event loop ~2 ms per commit (bench/paidProfile.ts). Here a batch holding a
 * `durable` write (a ledger row, a nonce claim, a kept answer) commits at `NORMAL`, then the WAL is
 * fdatasync'd on libuv's thread pool (`Syncer`) and only then are its callers told: the same
 * guarantee, and the event loop serves other requests meanwhile. While a sync runs, new writes
 * queue and commit together when it ends, under the next sync (one commit + one sync per round).
 * A committed write is visible to reads before its sync ends; nothing acts on it as durable (a
 * settlement waits for its row's promise). A sync that fails means the disk may have dropped
 * committed pages: its callers are never told durable and `onSyncFailure` stops the process (by
 * default: an uncaught error), as a crash at that point would; the reconciler and the payer's
 * retry take it from there (ledger.ts).
 *
 * An `outcome` write (a settlement attempt's result, whose loss a crash may cause anyway: the row
 * stays pending and the reconciler settles it again) does not start a commit of its own: it waits
 * for the next durable write and commits in its transaction, or, when none comes within
 * `OUTCOME_WAIT_MS`, commits alone without a sync (still atomic, and on disk with the next durable
 * commit, the WAL being append-only). It is told once committed, never waits for a sync.
 *
 * Writes run in queue order, so a claim and its release keep their order. A failing statement fails
 * only its own caller; a failing COMMIT fails the whole batch.
 */
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import type { PaymentsDb } from './db.js';

/** `durable`: on disk at the database's level before the promise settles; `outcome`: atomic, fsync'd with the next durable commit. */
export type Durability = 'durable' | 'outcome';

/** Makes everything committed so far durable: off the event loop (`sync`), or at once (`syncNow`, on close). */
export interface Syncer {
  sync(done: (err: Error | null) => void): void;
  syncNow(): void;
  close(): void;
}

export interface WriteQueueOptions {
  /** Replaces the WAL's fdatasync (tests); null: commit at the database's own level (no offloaded sync). */
  sync?: Syncer | null;
  /** A sync failed: the process must stop (default: an uncaught error). */
  onSyncFailure?: (err: Error) => void;
}

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

/** Whether each database was opened at FULL (before a queue switched its connection to NORMAL). */
const openedFull = new WeakMap<PaymentsDb, boolean>();

/** fdatasync of the database's WAL file (kept open: SQLite never removes it while a connection is open in WAL mode). */
export function walSyncer(db: PaymentsDb): Syncer {
  let fd: number | null = null;
  // The WAL exists from the first commit on (every sync follows one).
  const open = () => (fd ??= openSync(`${db.name}-wal`, 'r'));
  return {
    sync(done) {
      let at: number;
      try {
        at = open();
      } catch (err) {
        done(err as Error);
        return;
      }
      fdatasync(at, done);
    },
    syncNow: () => fdatasyncSync(open()),
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

export class WriteQueue {
  private queue: Op[] = [];
  /** A flush is due at the next turn (a durable write is queued). */
  private scheduled = false;
  /** Only outcomes are queued: they commit when this fires, unless a durable write takes them first. */
  private outcomeTimer: NodeJS.Timeout | null = null;
  /** Durable writes committed and waiting for the sync in flight (null: no sync in flight). */
  private syncing: Array<{ op: Op; value: unknown }> | null = null;
  /** A sync failed: nothing is acknowledged any more. */
  private broken: Error | null = null;
  /** Closed: a sync still in flight then ends unheard (close() made everything durable). */
  private closed = false;
  /** Commits and syncs made and the writes in them, since the start (/metrics; bench/paidProfile.ts prints writes per commit). */
  readonly totals = { commits: 0, writes: 0, syncs: 0 };
  private readonly transaction: (ops: Op[]) => Outcome[];
  /** The database was opened FULL: durable writes are synced (by `sync`, or inside COMMIT without one). */
  private readonly full: boolean;
  private readonly sync: Syncer | null;
  private readonly onSyncFailure: (err: Error) => void;

  constructor(
    private readonly db: PaymentsDb,
    options: WriteQueueOptions = {},
  ) {
    this.transaction = db.transaction((ops: Op[]) =>
      ops.map((op): Outcome => {
        try {
          return { ok: true, value: op.run() };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
    // As opened: a queue made after another switched the connection to NORMAL still knows it is FULL.
    this.full = openedFull.get(db) ?? db.pragma('synchronous', { simple: true }) === SYNCHRONOUS_FULL;
    openedFull.set(db, this.full);
    // An in-memory database has no WAL to sync (and nothing survives the process anyway).
    this.sync = !this.full || db.memory ? null : options.sync === undefined ? walSyncer(db) : options.sync;
    // Our commits are synced by `sync`: the connection commits at NORMAL from now on (toggling the
    // level per commit cost two PRAGMA compilations each). The few writes made beside this queue
    // (ledger.ts: a recompute counted, the retention purge, start-up cleanup) are then atomic but
    // on disk with the next synced commit: each is redone or harmless if a power cut loses it.
    if (this.sync) db.pragma('synchronous = NORMAL');
    this.onSyncFailure =
      options.onSyncFailure ??
      ((err) =>
        process.nextTick(() => {
          throw new Error(`payments database: the WAL could not be synced to disk (${err.message}); stopping`, { cause: err });
        }));
  }

  /** Runs `fn` (synchronous SQLite work) in the next group commit; resolves once committed (see `Durability`). */
  run<T>(fn: () => T, durability: Durability = 'durable'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.broken || this.closed) {
        reject(this.broken ?? new Error('payments database: closed'));
        return;
      }
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

  /** Commits everything queued now, unless a sync is in flight (its end flushes again). */
  flush(): void {
    this.scheduled = false;
    if (this.outcomeTimer) clearTimeout(this.outcomeTimer);
    this.outcomeTimer = null;
    if (this.syncing !== null || this.broken || this.closed) return;
    const committed = this.commitQueued();
    if (committed.length === 0) return;
    this.syncing = committed;
    this.totals.syncs++;
    this.sync?.sync((err) => this.synced(err));
  }

  /** On close (before the database's): commits what is queued and makes it durable before returning (a synchronous sync). */
  close(): void {
    this.scheduled = false;
    if (this.outcomeTimer) clearTimeout(this.outcomeTimer);
    this.outcomeTimer = null;
    if (this.broken || this.closed) return;
    this.closed = true;
    const waiting = [...(this.syncing ?? []), ...this.commitQueued()];
    this.syncing = null;
    if (this.sync && waiting.length > 0) this.sync.syncNow();
    this.sync?.close();
    for (const { op, value } of waiting) op.resolve(value);
  }

  private synced(err: Error | null): void {
    if (this.closed) return;
    const ops = this.syncing ?? [];
    this.syncing = null;
    if (err) {
      // Never told durable: as if the process had died here.
      this.broken = err;
      for (const op of this.queue.splice(0)) op.reject(err);
      this.onSyncFailure(err);
      return;
    }
    for (const { op, value } of ops) op.resolve(value);
    if (this.queue.length > 0) this.flush();
  }

  /** Commits the queue in batches; tells outcomes and failed writes at once, returns the durable writes to sync. */
  private commitQueued(): Array<{ op: Op; value: unknown }> {
    const toSync: Array<{ op: Op; value: unknown }> = [];
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
        else if (!o.ok) op.reject(o.error);
        else if (op.durable && this.sync) toSync.push({ op, value: o.value });
        else op.resolve(o.value);
      });
    }
    return toSync;
  }

  private commit(batch: Op[]): Outcome[] {
    this.totals.commits++;
    this.totals.writes += batch.length;
    // Without an offloaded sync, a FULL database commits durable batches with the fsync inside COMMIT.
    if (!this.full || this.sync || batch.some((op) => op.durable)) return this.transaction(batch);
    // A PRAGMA acts when it is compiled: db.pragma each time, not a prepared statement run again.
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.transaction(batch);
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }
}
