/**
 * Paid answers kept on disk (the `answers` table of the payments database, without REDIS_URL):
 * a settled payment is an answer owed, so the answer outlives a crash and a restarted process
 * gives it to the payer's retry without recomputing it (issue 22.1). Written in the ledger's group
 * commit, only for payments that were recorded (nothing unpaid reaches the disk), at most
 * X402_ANSWER_CACHE_ENTRY_BYTES each, and purged once the authorization has expired.
 */
import type { Statement } from 'better-sqlite3';
import type { PaymentsDb } from './db.js';
import type { WriteQueue } from './writeQueue.js';

/** A paid answer, kept for retries of its payment. */
export interface CachedAnswer {
  /** SHA-256 of the request it answered: a retry must be the same request. */
  requestHash: string;
  statusCode: number;
  contentType: string;
  body: string | Buffer;
}

interface RawAnswer {
  request_hash: string;
  status_code: number;
  content_type: string;
  body: Buffer;
}

export class KeptAnswers {
  private readonly insert: Statement<[string, string, number, string, Buffer, number]>;
  private readonly byKey: Statement<[string], RawAnswer>;
  private readonly remove: Statement<[string]>;
  private readonly expired: Statement<[number]>;

  constructor(
    db: PaymentsDb,
    private readonly writes: WriteQueue,
  ) {
    this.insert = db.prepare('INSERT OR REPLACE INTO answers (nonce_key, request_hash, status_code, content_type, body, expires_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.byKey = db.prepare('SELECT request_hash, status_code, content_type, body FROM answers WHERE nonce_key = ?');
    this.remove = db.prepare('DELETE FROM answers WHERE nonce_key = ?');
    this.expired = db.prepare('DELETE FROM answers WHERE expires_at < ?');
  }

  /** Durable once resolved (the same group commit as a ledger row written in the same turn). */
  keep(nonceKey: string, answer: CachedAnswer, expiresAtMs: number): Promise<void> {
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
    return this.writes.run(() => void this.insert.run(nonceKey, answer.requestHash, answer.statusCode, answer.contentType, body, expiresAtMs));
  }

  get(nonceKey: string): CachedAnswer | undefined {
    const r = this.byKey.get(nonceKey);
    return r && { requestHash: r.request_hash, statusCode: r.status_code, contentType: r.content_type, body: r.body };
  }

  delete(nonceKey: string): Promise<void> {
    return this.writes.run(() => void this.remove.run(nonceKey));
  }

  /** Drops answers whose payment expired; returns how many. */
  purge(nowMs: number): Promise<number> {
    return this.writes.run(() => this.expired.run(nowMs).changes);
  }
}
