/**
 * Paid answers kept for retries: a payer whose answer was lost (disconnect, crash, timeout) sends
 * the same payment header for the same request again and gets the answer without a second charge.
 * Bounded in bytes (least recently used dropped first, lru-cache) and small answers only: a larger
 * answer, one dropped from the cache, or one lost with a restart is recomputed instead (the ledger
 * row says the request was paid for). Behind the memory, answers are kept on disk (keptAnswers.ts)
 * so that they outlive a crash; only answers of recorded payments are kept, nothing unpaid. With
 * REDIS_URL the replicas keep answers in Redis instead (store/sharedPayments.ts).
 */
import { LRUCache } from 'lru-cache';
import type { CachedAnswer, KeptAnswers } from './keptAnswers.js';

export type { CachedAnswer };

/** Bytes counted per entry beside the body (key, hash, headers, bookkeeping). */
const ENTRY_OVERHEAD_BYTES = 256;

export class AnswerCache {
  private readonly lru: LRUCache<string, CachedAnswer> | null;

  /** `maxBytes` 0 disables the memory tier; `disk` (none in tests of the memory alone) outlives a crash. */
  constructor(
    maxBytes: number,
    private readonly maxEntryBytes: number,
    private readonly disk: KeptAnswers | null = null,
  ) {
    this.lru =
      maxBytes > 0
        ? new LRUCache<string, CachedAnswer>({
            maxSize: maxBytes,
            maxEntrySize: Math.min(maxBytes, maxEntryBytes + ENTRY_OVERHEAD_BYTES),
            sizeCalculation: (a) => bodyBytes(a.body) + ENTRY_OVERHEAD_BYTES,
          })
        : null;
  }

  /** Keeps `answer` under the payment's nonce key when it is small enough; returns whether it did. */
  set(nonceKey: string, answer: CachedAnswer): boolean {
    if (!this.lru || bodyBytes(answer.body) > this.maxEntryBytes) return false;
    this.lru.set(nonceKey, answer);
    return this.lru.has(nonceKey);
  }

  /** Whether an answer of this body is small enough to be kept (else a retry recomputes it). */
  fits(body: string | Buffer): boolean {
    return bodyBytes(body) <= this.maxEntryBytes;
  }

  /** Keeps `answer` in memory and on disk until `expiresAtMs`; resolves once it is durable. */
  async keep(nonceKey: string, answer: CachedAnswer, expiresAtMs: number): Promise<void> {
    if (!this.fits(answer.body)) return;
    this.set(nonceKey, answer);
    await this.disk?.keep(nonceKey, answer, expiresAtMs);
  }

  get(nonceKey: string): CachedAnswer | undefined {
    return this.lru?.get(nonceKey) ?? this.disk?.get(nonceKey);
  }

  async delete(nonceKey: string): Promise<void> {
    this.lru?.delete(nonceKey);
    await this.disk?.delete(nonceKey);
  }

  /** Drops expired answers from the disk; returns how many. */
  purge(nowMs: number): Promise<number> {
    return this.disk ? this.disk.purge(nowMs) : Promise.resolve(0);
  }

  /** Bytes held (bodies plus the per-entry overhead). */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }
}

export function bodyBytes(body: string | Buffer): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}
