/**
 * The payments database: one SQLite file in DATA_DIR holding the ledger (whose UNIQUE nonce_key
 * is also the durable replay record) and the payment-identifier records. WAL with `synchronous=NORMAL`: a committed write survives the process being
 * killed (not necessarily a power cut), and readers never block the writer.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type PaymentsDb = Database.Database;

export const PAYMENTS_DB_FILE = 'payments.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS payments (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  nonce_key     TEXT NOT NULL UNIQUE,
  route         TEXT NOT NULL,
  price_usd     REAL NOT NULL,
  amount        TEXT NOT NULL,
  network       TEXT NOT NULL,
  asset         TEXT NOT NULL,
  pay_to        TEXT NOT NULL,
  payer         TEXT NOT NULL,
  nonce         TEXT NOT NULL,
  valid_before  INTEGER NOT NULL,
  payload       TEXT NOT NULL,
  requirements  TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'unsettled', 'failed')),
  tx_hash       TEXT,
  error         TEXT,
  attempts      INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  settled_at    INTEGER
);
-- Only pending rows are indexed (the reconciler's scan): inserting a settled/unsettled row touches
-- no page of this index.
DROP INDEX IF EXISTS payments_status;
CREATE INDEX IF NOT EXISTS payments_pending ON payments (updated_at) WHERE status = 'pending';
CREATE TABLE IF NOT EXISTS idempotency (
  id           TEXT PRIMARY KEY,
  fingerprint  TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('pending', 'done')),
  response     TEXT,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Opens (creating if needed) `DATA_DIR/payments.sqlite`, or an in-memory database for `':memory:'`. */
export function openPaymentsDb(dataDir: string): PaymentsDb {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    file = join(dataDir, PAYMENTS_DB_FILE);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Several processes on one machine may share the file: wait for the writer instead of failing.
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  return db;
}
