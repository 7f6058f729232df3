import type { Statement } from 'better-sqlite3';
import type { PaymentsDb } from '../db.js';
import type { CachedResponse, IdempotencyRecord, ReplayStore } from './replayStore.js';

/**
 * One machine: claims live in the payments database, so a replayed header is still refused after
 * a restart. Each statement is one atomic SQLite write; processes sharing the file are serialized
 * by SQLite's lock. Expired rows are purged by `purgeExpired` (the plugin calls it periodically).
 */
export class SqliteReplayStore implements ReplayStore {
  readonly kind = 'sqlite' as const;
  private readonly claim: Statement<[string, number, number]>;
  private readonly release: Statement<[string]>;
  private readonly getIdem: Statement<[string, number], { fingerprint: string; state: 'pending' | 'done'; response: string | null }>;
  private readonly beginIdem: Statement<[string, string, number, number]>;
  private readonly completeIdem: Statement<[string, string, string, number]>;
  private readonly releaseIdem: Statement<[string]>;
  private readonly purgeNonces: Statement<[number]>;
  private readonly purgeIdem: Statement<[number]>;

  constructor(
    private readonly db: PaymentsDb,
    private readonly now: () => number = Date.now,
  ) {
    // Insert, or take over a claim that has expired; `changes` says whether we own it.
    this.claim = db.prepare(
      'INSERT INTO nonce_claims (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE nonce_claims.expires_at <= ?',
    );
    this.release = db.prepare('DELETE FROM nonce_claims WHERE key = ?');
    this.getIdem = db.prepare('SELECT fingerprint, state, response FROM idempotency WHERE id = ? AND expires_at > ?');
    this.beginIdem = db.prepare(
      "INSERT INTO idempotency (id, fingerprint, state, expires_at) VALUES (?, ?, 'pending', ?) ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending', response = NULL, expires_at = excluded.expires_at WHERE idempotency.expires_at <= ?",
    );
    this.completeIdem = db.prepare("INSERT OR REPLACE INTO idempotency (id, fingerprint, state, response, expires_at) VALUES (?, ?, 'done', ?, ?)");
    this.releaseIdem = db.prepare('DELETE FROM idempotency WHERE id = ?');
    this.purgeNonces = db.prepare('DELETE FROM nonce_claims WHERE expires_at <= ?');
    this.purgeIdem = db.prepare('DELETE FROM idempotency WHERE expires_at <= ?');
  }

  async claimNonce(key: string, expiresAtMs: number): Promise<boolean> {
    return this.claim.run(key, expiresAtMs, this.now()).changes === 1;
  }

  async releaseNonce(key: string): Promise<void> {
    this.release.run(key);
  }

  async getIdempotency(id: string): Promise<IdempotencyRecord | null> {
    const row = this.getIdem.get(id, this.now());
    if (!row) return null;
    if (row.state === 'done' && row.response !== null) {
      return { state: 'done', fingerprint: row.fingerprint, response: JSON.parse(row.response) as CachedResponse };
    }
    return { state: 'pending', fingerprint: row.fingerprint };
  }

  async beginIdempotency(id: string, fingerprint: string, expiresAtMs: number): Promise<boolean> {
    return this.beginIdem.run(id, fingerprint, expiresAtMs, this.now()).changes === 1;
  }

  async completeIdempotency(id: string, fingerprint: string, response: CachedResponse, expiresAtMs: number): Promise<void> {
    this.completeIdem.run(id, fingerprint, JSON.stringify(response), expiresAtMs);
  }

  async releaseIdempotency(id: string): Promise<void> {
    this.releaseIdem.run(id);
  }

  /** Deletes expired claims and records. Complexity: O(k log n) for k expired rows. */
  purgeExpired(): number {
    const now = this.now();
    return this.purgeNonces.run(now).changes + this.purgeIdem.run(now).changes;
  }

  /** The database belongs to the plugin, which closes it after the ledger. */
  async close(): Promise<void> {}
}
