import { afterEach, describe, expect, it } from 'vitest';
import { openPaymentsDb, type PaymentsDb } from '../../src/payments/db.js';
import { Ledger } from '../../src/payments/ledger.js';
import { MemoryReplayStore } from '../../src/payments/store/memoryReplayStore.js';
import type { ReplayStore } from '../../src/payments/store/replayStore.js';
import { SqliteReplayStore } from '../../src/payments/store/sqliteReplayStore.js';
import { WriteQueue } from '../../src/payments/writeQueue.js';
import { ledgerEntry, tempDir } from './helpers.js';

const dbs: PaymentsDb[] = [];
const dirs: Array<ReturnType<typeof tempDir>> = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) d.remove();
});

function sqlite(): SqliteReplayStore {
  const d = tempDir();
  dirs.push(d);
  const db = openPaymentsDb(d.dir);
  dbs.push(db);
  return new SqliteReplayStore(db);
}

const makers: Array<[string, () => ReplayStore]> = [
  ['memory', () => new MemoryReplayStore()],
  ['sqlite', sqlite],
];

for (const [name, make] of makers) {
  describe(`replay store contract: ${name}`, () => {
    it('default: a claim is exclusive until released', async () => {
      const s = make();
      const exp = Date.now() + 60_000;
      expect(await s.claimNonce('a', exp)).toBe(true);
      expect(await s.claimNonce('a', exp)).toBe(false);
      await s.releaseNonce('a');
      expect(await s.claimNonce('a', exp)).toBe(true);
    });

    it('behavior: of 20 concurrent claims exactly one wins', async () => {
      const s = make();
      const results = await Promise.all(Array.from({ length: 20 }, () => s.claimNonce('race', Date.now() + 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('behavior: an expired claim can be taken again', async () => {
      const s = make();
      expect(await s.claimNonce('old', Date.now() - 1)).toBe(true);
      expect(await s.claimNonce('old', Date.now() + 60_000)).toBe(true);
    });

    it('behavior: idempotency records (begin exclusive, complete, release)', async () => {
      const s = make();
      const exp = Date.now() + 60_000;
      expect(await s.beginIdempotency('id_0123456789abcdef', 'fp', exp)).toBe(true);
      expect(await s.beginIdempotency('id_0123456789abcdef', 'other', exp)).toBe(false);
      expect(await s.getIdempotency('id_0123456789abcdef')).toEqual({ state: 'pending', fingerprint: 'fp' });
      await s.completeIdempotency('id_0123456789abcdef', 'fp', exp);
      expect(await s.getIdempotency('id_0123456789abcdef')).toEqual({ state: 'done', fingerprint: 'fp' });
      await s.releaseIdempotency('id_0123456789abcdef');
      expect(await s.getIdempotency('id_0123456789abcdef')).toBeNull();
    });
  });
}

describe('SQLite store backed by the ledger', () => {
  it('behavior: a key recorded in the ledger stays claimed after a restart', async () => {
    const d = tempDir();
    dirs.push(d);
    const db = openPaymentsDb(d.dir);
    const writes = new WriteQueue(db);
    const ledger = new Ledger(db, Date.now, writes);
    const store = new SqliteReplayStore(db, Date.now, writes);
    expect(await store.claimNonce('k', Date.now() + 60_000)).toBe(true);
    await ledger.record(ledgerEntry('k', 'unsettled'));
    await store.retireNonce('k');
    expect(await store.claimNonce('k', Date.now() + 60_000)).toBe(false);
    db.close();

    const db2 = openPaymentsDb(d.dir);
    dbs.push(db2);
    const again = new SqliteReplayStore(db2);
    expect(await again.claimNonce('k', Date.now() + 60_000)).toBe(false);
    expect(await again.claimNonce('other', Date.now() + 60_000)).toBe(true);
    expect(new Ledger(db2).countByStatus()).toMatchObject({ unsettled: 1 });
  });

  it('error: a failing statement fails only its own caller in a group commit', async () => {
    const d = tempDir();
    dirs.push(d);
    const db = openPaymentsDb(d.dir);
    dbs.push(db);
    const q = new WriteQueue(db);
    const results = await Promise.allSettled([
      q.run(() => db.prepare("INSERT INTO idempotency (id, fingerprint, state, expires_at) VALUES ('a', 'f', 'pending', 1)").run().changes),
      q.run(() => db.prepare("INSERT INTO idempotency (id, fingerprint, state, expires_at) VALUES ('a', 'f', 'pending', 1)").run().changes),
      q.run(() => db.prepare("INSERT INTO idempotency (id, fingerprint, state, expires_at) VALUES ('b', 'f', 'pending', 1)").run().changes),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM idempotency').get()).toEqual({ n: 2 });
  });
});
