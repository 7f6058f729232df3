/**
 * The payments database's group commit (src/payments/writeQueue.ts): a durable write is told only
 * once the WAL sync that follows its commit ended (the fsync runs off the event loop), writes
 * arriving during a sync share the next commit and sync, outcomes never wait for a sync, and a
 * failed sync acknowledges nothing and stops the process.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaymentsDb, type PaymentsDb } from '../../src/payments/db.js';
import { OUTCOME_WAIT_MS, WriteQueue, type Syncer } from '../../src/payments/writeQueue.js';
import { tempDir } from './helpers.js';

const dbs: PaymentsDb[] = [];
const dirs: Array<ReturnType<typeof tempDir>> = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) d.remove();
});

function database(): PaymentsDb {
  const d = tempDir();
  dirs.push(d);
  const db = openPaymentsDb(d.dir);
  dbs.push(db);
  return db;
}

/** A sync the test ends by hand; `rowsAtStart`: the rows committed when each sync began. */
function heldSync(db: PaymentsDb) {
  const pending: Array<(err: Error | null) => void> = [];
  const rowsAtStart: number[] = [];
  const syncer: Syncer = {
    sync: (done) => {
      rowsAtStart.push(rows(db));
      pending.push(done);
    },
    syncNow: () => undefined,
    close: () => undefined,
  };
  return { syncer, pending, rowsAtStart };
}

const rows = (db: PaymentsDb) => (db.prepare('SELECT COUNT(*) AS n FROM idempotency').get() as { n: number }).n;
const insert = (db: PaymentsDb, id: string) => () =>
  db.prepare("INSERT INTO idempotency (id, fingerprint, state, expires_at) VALUES (?, 'f', 'pending', 1)").run(id).changes;
const turn = () => new Promise((r) => setImmediate(r));

/** Whether `p` has settled by now. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await turn();
  return done;
}

describe('payments group commit', () => {
  it('behavior: a durable write is told only after the WAL sync that follows its commit', async () => {
    const db = database();
    const held = heldSync(db);
    const q = new WriteQueue(db, { sync: held.syncer });
    const write = q.run(insert(db, 'a'));
    await turn();
    // Committed (the sync began after the row was in), not yet told.
    expect(held.rowsAtStart).toEqual([1]);
    expect(await settled(write)).toBe(false);
    held.pending[0]?.(null);
    expect(await write).toBe(1);
    expect(q.totals).toEqual({ commits: 1, writes: 1, syncs: 1 });
  });

  it('behavior: writes arriving while a sync runs commit together after it, under one sync', async () => {
    const db = database();
    const held = heldSync(db);
    const q = new WriteQueue(db, { sync: held.syncer });
    const first = q.run(insert(db, 'a'));
    await turn();
    const later = [q.run(insert(db, 'b'))];
    await turn();
    later.push(q.run(insert(db, 'c')), q.run(insert(db, 'd')));
    await turn();
    // Queued behind the sync in flight: not committed yet.
    expect(rows(db)).toBe(1);
    held.pending[0]?.(null);
    expect(await first).toBe(1);
    await turn();
    expect(held.rowsAtStart).toEqual([1, 4]);
    expect(await Promise.all(later.map(settled))).toEqual([false, false, false]);
    held.pending[1]?.(null);
    expect(await Promise.all(later)).toEqual([1, 1, 1]);
    expect(q.totals).toEqual({ commits: 2, writes: 4, syncs: 2 });
  });

  it('behavior: an outcome is told once committed, without a sync; one queued before a durable write rides in its commit', async () => {
    const db = database();
    const held = heldSync(db);
    const q = new WriteQueue(db, { sync: held.syncer });
    // Alone: committed after the wait, no sync.
    const alone = q.run(insert(db, 'a'), 'outcome');
    await new Promise((r) => setTimeout(r, OUTCOME_WAIT_MS * 3));
    expect(await settled(alone)).toBe(true);
    expect(held.pending).toHaveLength(0);
    // Beside a ledger row a turn later: one commit, the outcome told at once, the row after its sync.
    const outcome = q.run(insert(db, 'b'), 'outcome');
    await turn();
    const durable = q.run(insert(db, 'c'));
    await turn();
    expect(await settled(outcome)).toBe(true);
    expect(await settled(durable)).toBe(false);
    held.pending[0]?.(null);
    await durable;
    expect(q.totals).toEqual({ commits: 2, writes: 3, syncs: 1 });
  });

  it('error: a failed sync tells its writes nothing, refuses later ones and stops the process', async () => {
    const db = database();
    const held = heldSync(db);
    const failures: Error[] = [];
    const q = new WriteQueue(db, { sync: held.syncer, onSyncFailure: (err) => failures.push(err) });
    const write = q.run(insert(db, 'a'));
    await turn();
    const queued = q.run(insert(db, 'b')).catch((err: unknown) => err);
    await turn();
    held.pending[0]?.(new Error('EIO'));
    expect(failures.map((e) => e.message)).toEqual(['EIO']);
    // Never acknowledged as durable (the process is stopping, as a crash here would).
    expect(await settled(write)).toBe(false);
    expect(await queued).toMatchObject({ message: 'EIO' });
    await expect(q.run(insert(db, 'c'))).rejects.toThrow('EIO');
    expect(rows(db)).toBe(1);
  });

  it('behavior: the default sync is an fdatasync of the WAL; commits run at NORMAL, also for a second queue on the same database', async () => {
    const db = database();
    const q = new WriteQueue(db);
    const level = () => db.pragma('synchronous', { simple: true });
    expect(await Promise.all([q.run(level), q.run(level, 'outcome')])).toEqual([1, 1]);
    expect(q.totals).toEqual({ commits: 1, writes: 2, syncs: 1 });
    expect(existsSync(`${db.name}-wal`)).toBe(true);
    // The connection now reads NORMAL: another queue must still sync its durable writes.
    const again = new WriteQueue(db);
    await again.run(insert(db, 'a'));
    expect(again.totals).toEqual({ commits: 1, writes: 1, syncs: 1 });
  });

  it('behavior: close commits what is queued and syncs it before returning', async () => {
    const db = database();
    let syncedNow = 0;
    const q = new WriteQueue(db, { sync: { sync: () => undefined, syncNow: () => void syncedNow++, close: () => undefined } });
    const inFlight = q.run(insert(db, 'a'));
    await turn();
    const queued = q.run(insert(db, 'b'));
    q.close();
    expect(syncedNow).toBe(1);
    expect(await Promise.all([inFlight, queued])).toEqual([1, 1]);
    expect(rows(db)).toBe(2);
    await expect(q.run(insert(db, 'c'))).rejects.toThrow('closed');
  });
});
