/**
 * The replay store: the state that several replicas behind a load balancer must share (DESIGN §6).
 *
 * - Nonce claims: `(chainId, asset, from, nonce)` is claimed atomically BEFORE the handler runs;
 *   of two concurrent requests carrying one authorization exactly one gets `true`. A claim is kept
 *   until well past the authorization's `validBefore`, or released when nothing was charged.
 * - Payment-identifier records: which request and payload an id belongs to, and whether it is
 *   still running (`pending`, a short lease) or done. They hold no answer: answers live in the
 *   gate's bounded memory cache (`answerCache.ts`), or with Redis in `sharedPayments.ts` (which
 *   also holds each payment's state for the replicas), or are recomputed.
 *
 * Implementations: `MemoryReplayStore` (tests, one process), `SqliteReplayStore` (default, one
 * machine, survives restarts), `RedisReplayStore` (`REDIS_URL`, several replicas).
 */

export interface IdempotencyRecord {
  state: 'pending' | 'done';
  fingerprint: string;
}

export interface ReplayStore {
  readonly kind: 'memory' | 'sqlite' | 'redis';
  /** Claims `key` until `expiresAtMs`; false when someone holds it. Atomic across replicas. */
  claimNonce(key: string, expiresAtMs: number): Promise<boolean>;
  /** Gives a claim back (nothing was charged: the client may retry with the same authorization). */
  releaseNonce(key: string): Promise<void>;
  /**
   * The payment under `key` is now durably in the ledger. Stores whose claims are backed by the
   * ledger (SQLite) drop their in-memory copy; the others keep the claim until it expires.
   */
  retireNonce?(key: string): Promise<void>;
  getIdempotency(id: string): Promise<IdempotencyRecord | null>;
  /**
   * Creates a pending record living until `leaseUntilMs` (a crashed owner cannot block its id for
   * longer); false when the id exists. Atomic across replicas.
   */
  beginIdempotency(id: string, fingerprint: string, leaseUntilMs: number): Promise<boolean>;
  /** The request was answered and paid: the record is kept until `expiresAtMs`. */
  completeIdempotency(id: string, fingerprint: string, expiresAtMs: number): Promise<void>;
  releaseIdempotency(id: string): Promise<void>;
  /** Deletes expired claims and records (the scheduled purge); returns how many. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}
