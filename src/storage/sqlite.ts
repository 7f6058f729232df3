/**
 * The one way the service opens SQLite: a file in the data directory (0700, even when it existed; the file 0600:
 * it may hold signed payment authorizations), WAL so readers never block the writer, a busy timeout
 * so several processes on one machine wait for the writer instead of failing, and versioned
 * migrations through `PRAGMA user_version`.
 *
 * Migrations are append-only: migration k (1-based) runs once, inside a transaction, when the
 * database's `user_version` is below k, which then becomes k. A database newer than the code (a
 * downgrade) is refused rather than misread.
 */
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir } from './privateDir.js';

export type SqliteDatabase = Database.Database;

/** `:memory:` instead of a data directory gives an in-memory database (tests, benchmarks). */
export const IN_MEMORY = ':memory:';

export interface OpenSqliteOptions {
  /** The data directory, or `:memory:`. */
  dataDir: string;
  /** File name inside the data directory. */
  file: string;
  /** SQL of each schema version, oldest first; never edit a released one, append a new one. */
  migrations: readonly string[];
  /**
   * `FULL`: a committed transaction survives a power cut (the payment ledger). `NORMAL` (default):
   * it survives the process being killed, which is enough for data that can be rebuilt.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** ms to wait for another writer (default 5,000). */
  busyTimeoutMs?: number;
}

export class SchemaTooNewError extends Error {
  constructor(file: string, found: number, known: number) {
    super(`${file}: schema version ${found} is newer than this build knows (${known}); refusing to open it`);
    this.name = 'SchemaTooNewError';
  }
}

/** Opens (creating if needed) and migrates a database. Complexity: O(migrations to run). */
export function openSqlite(options: OpenSqliteOptions): SqliteDatabase {
  let path = IN_MEMORY;
  if (options.dataDir !== IN_MEMORY) {
    ensurePrivateDir(options.dataDir);
    path = join(options.dataDir, options.file);
    if (!existsSync(path)) new Database(path).close();
    chmodSync(path, 0o600);
  }
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5_000}`);
    db.pragma('foreign_keys = ON');
    migrate(db, options.file, options.migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** The schema version a database is at. */
export function schemaVersion(db: SqliteDatabase): number {
  return Number(db.pragma('user_version', { simple: true }));
}

function migrate(db: SqliteDatabase, file: string, migrations: readonly string[]): void {
  // IMMEDIATE: two processes starting together do not both run a migration.
  db.transaction(() => {
    const current = schemaVersion(db);
    if (current > migrations.length) throw new SchemaTooNewError(file, current, migrations.length);
    migrations.slice(current).forEach((sql, k) => {
      db.exec(sql);
      db.pragma(`user_version = ${current + k + 1}`);
    });
  }).immediate();
}
