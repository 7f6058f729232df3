/**
 * Durable, bounded history of RBF replacements seen in the node's mempool: SQLite in the data
 * directory (WAL), so the history survives a restart. The oldest events are dropped past `maxEvents`.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { openSqlite, type SqliteDatabase } from '../storage/sqlite.js';

export interface ReplacementSide {
  txid: string;
  feeSat: number;
  vsize: number;
  /** Fee / vsize, sat/vB. */
  feeRateSatVb: number;
  /** Unix seconds the node first saw the tx. */
  firstSeen: number;
}

export interface ReplacementEvent {
  replaced: ReplacementSide;
  replacement: ReplacementSide;
  /** Milliseconds since the epoch when our mempool poll saw it. */
  detectedAt: number;
  /** Descendants of the replaced tx that left the mempool with it. */
  evictedDescendants: string[];
}

export const REPLACEMENTS_DB_FILE = 'replacements.sqlite';

/** Schema versions, oldest first (append only). Version 1 is the schema every earlier build created. */
const MIGRATIONS = [
  `
CREATE TABLE IF NOT EXISTS replacement (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  replaced_txid TEXT NOT NULL,
  replacement_txid TEXT NOT NULL,
  detected_at INTEGER NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS replacement_replaced ON replacement (replaced_txid);
CREATE INDEX IF NOT EXISTS replacement_replacement ON replacement (replacement_txid);
CREATE TABLE IF NOT EXISTS evicted (
  txid TEXT NOT NULL,
  event_id INTEGER NOT NULL REFERENCES replacement (id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS evicted_txid ON evicted (txid);
`,
];

const Side = z.object({ txid: z.string(), feeSat: z.number(), vsize: z.number(), feeRateSatVb: z.number(), firstSeen: z.number() });
const EventRow = z.object({ replaced: Side, replacement: Side, detectedAt: z.number(), evictedDescendants: z.array(z.string()) });

export class ReplacementStore {
  private readonly db: SqliteDatabase;
  private readonly insertEvent: Database.Statement;
  private readonly insertEvicted: Database.Statement;
  private readonly byReplaced: Database.Statement;
  private readonly byReplacement: Database.Statement;
  private readonly byEvicted: Database.Statement;
  private readonly count: Database.Statement;
  private readonly trim: Database.Statement;

  /** @param dataDir the data directory, or `:memory:` */
  constructor(
    dataDir: string,
    private readonly maxEvents: number,
  ) {
    this.db = openSqlite({ dataDir, file: REPLACEMENTS_DB_FILE, migrations: MIGRATIONS });
    this.insertEvent = this.db.prepare('INSERT INTO replacement (replaced_txid, replacement_txid, detected_at, event) VALUES (?, ?, ?, ?)');
    this.insertEvicted = this.db.prepare('INSERT INTO evicted (txid, event_id) VALUES (?, ?)');
    this.byReplaced = this.db.prepare('SELECT event FROM replacement WHERE replaced_txid = ? ORDER BY id');
    this.byReplacement = this.db.prepare('SELECT event FROM replacement WHERE replacement_txid = ? ORDER BY id');
    this.byEvicted = this.db.prepare('SELECT r.event FROM evicted e JOIN replacement r ON r.id = e.event_id WHERE e.txid = ? ORDER BY r.id');
    this.count = this.db.prepare('SELECT COUNT(*) AS n FROM replacement');
    this.trim = this.db.prepare('DELETE FROM replacement WHERE id IN (SELECT id FROM replacement ORDER BY id LIMIT ?)');
  }

  /** Records events atomically and drops the oldest beyond the bound. */
  add(events: readonly ReplacementEvent[]): void {
    if (events.length === 0) return;
    this.db.transaction(() => {
      for (const e of events) {
        const { lastInsertRowid } = this.insertEvent.run(e.replaced.txid, e.replacement.txid, e.detectedAt, JSON.stringify(e));
        for (const d of e.evictedDescendants) this.insertEvicted.run(d, lastInsertRowid);
      }
      const { n } = this.count.get() as { n: number };
      if (n > this.maxEvents) this.trim.run(n - this.maxEvents);
    })();
  }

  /** Events in which `txid` was replaced (normally one; several if conflicting replacements were seen). */
  replacedBy(txid: string): ReplacementEvent[] {
    return this.rows(this.byReplaced.all(txid));
  }

  /** Events in which `txid` was the replacement. */
  replacing(txid: string): ReplacementEvent[] {
    return this.rows(this.byReplacement.all(txid));
  }

  /** Events that evicted `txid` as a descendant of a replaced tx. */
  evicting(txid: string): ReplacementEvent[] {
    return this.rows(this.byEvicted.all(txid));
  }

  size(): number {
    return (this.count.get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }

  private rows(rows: unknown[]): ReplacementEvent[] {
    const out: ReplacementEvent[] = [];
    for (const row of rows) {
      const parsed = EventRow.safeParse(JSON.parse((row as { event: string }).event));
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }
}
