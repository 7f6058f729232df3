/**
 * The payments database: one SQLite file in DATA_DIR holding the ledger (whose UNIQUE nonce_key
 * is also the durable replay record) and the payment-identifier records. Opened through the one
 * SQLite opener (`src/storage/sqlite.ts`: WAL, 0600 file in a 0700 directory, versioned
 * migrations), with `synchronous=FULL`: a ledger row acknowledged before an answer is sent
 * survives a power cut, not only the process being killed (its cost is in bench/payments.bench.ts).
 * The group commit (writeQueue.ts) then takes the WAL's sync off the event loop: its commits run at
 * NORMAL and are acknowledged only after an fdatasync of the WAL, which is what FULL adds.
 */
import { openSqlite, type SqliteDatabase } from '../storage/sqlite.js';

export type PaymentsDb = SqliteDatabase;

export const PAYMENTS_DB_FILE = 'payments.sqlite';

/** Schema versions, oldest first (append only). Version 1 is the schema every earlier build created. */
const MIGRATIONS = [
  `
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
`,
  // 2: a row is written once the answer exists: the request it answered and a hash of that answer
  // (a retry of the same payment for the same request is answered again, never charged again);
  // recomputed answers are counted. Idempotency records no longer hold answers (bounded memory
  // cache instead): their bodies are dropped.
  `
ALTER TABLE payments ADD COLUMN request_hash TEXT;
ALTER TABLE payments ADD COLUMN answer_hash TEXT;
ALTER TABLE payments ADD COLUMN replays INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency DROP COLUMN response;
`,
  // 3: the retention purge (`Ledger.purge`, on a timer) finds old rows by `created_at` instead of
  // scanning the whole table: its cost follows the rows it deletes, not the ledger's size. Pending
  // rows are never purged, so they are left out of the index.
  `
CREATE INDEX IF NOT EXISTS payments_created ON payments (created_at) WHERE status != 'pending';
`,
  // 4: a settled payment is an answer owed (issue 22.1): the answer it paid for is kept beside its
  // row until the authorization expires, so a retry after a crash gets it again without a recompute.
  `
CREATE TABLE IF NOT EXISTS answers (
  nonce_key     TEXT PRIMARY KEY,
  request_hash  TEXT NOT NULL,
  status_code   INTEGER NOT NULL,
  content_type  TEXT NOT NULL,
  body          BLOB NOT NULL,
  expires_at    INTEGER NOT NULL
) WITHOUT ROWID;
`,
];

/**
 * Opens (creating if needed) `DATA_DIR/payments.sqlite`, or an in-memory database for `':memory:'`.
 * `synchronous` is FULL for the service; the benchmark opens NORMAL too, to measure what FULL costs.
 */
export function openPaymentsDb(dataDir: string, synchronous: 'FULL' | 'NORMAL' = 'FULL'): PaymentsDb {
  return openSqlite({ dataDir, file: PAYMENTS_DB_FILE, migrations: MIGRATIONS, synchronous });
}
