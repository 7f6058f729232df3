/**
 * The replay store: the state that several replicas behind a load balancer must share (DESIGN §6).
 *
 * - Nonce claims: `(chainId, asset, from, nonce)` is claimed atomically BEFORE the handler runs;
 *   of two concurrent requests carrying one authorization exactly one gets `true`. A claim is kept
 *   until well past the authorization's `validBefore`, or released when nothing was charged.
 * - Payment-identifier records: the answer to a paid request, replayed for a retry carrying the
 *   same id and the same payload.
 *
 * Implementations: `MemoryReplayStore` (tests, one process), `SqliteReplayStore` (default, one
 * machine, survives restarts), `RedisReplayStore` (`REDIS_URL`, several replicas).
 */

/** A paid answer kept for idempotent retries. */
export interface CachedResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** The serialized body; binary bodies are base64. */
  body: string;
  bodyEncoding: 'utf8' | 'base64';
}

export type IdempotencyRecord = { state: 'pending'; fingerprint: string } | { state: 'done'; fingerprint: string; response: CachedResponse };

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
  /** Creates a pending record; false when the id exists. Atomic across replicas. */
  beginIdempotency(id: string, fingerprint: string, expiresAtMs: number): Promise<boolean>;
  completeIdempotency(id: string, fingerprint: string, response: CachedResponse, expiresAtMs: number): Promise<void>;
  releaseIdempotency(id: string): Promise<void>;
  close(): Promise<void>;
}
