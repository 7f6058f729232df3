/**
 * Paid answers kept for retries: a payer whose answer was lost (disconnect, crash, timeout) sends
 * the same payment header for the same request again and gets the answer without a second charge.
 * Bounded in bytes (least recently used dropped first, lru-cache) and small answers only: a larger
 * answer, one dropped from the cache, or one lost with a restart is recomputed instead (the ledger
 * row says the request was paid for). Memory only: nothing here is an unpaid disk sink. With
 * REDIS_URL the replicas keep answers in Redis instead (store/sharedPayments.ts).
 */
import { LRUCache } from 'lru-cache';

export interface CachedAnswer {
  /** SHA-256 of the request it answered: a retry must be the same request. */
  requestHash: string;
  statusCode: number;
  contentType: string;
  body: string | Buffer;
}

/** Bytes counted per entry beside the body (key, hash, headers, bookkeeping). */
const ENTRY_OVERHEAD_BYTES = 256;

export class AnswerCache {
  private readonly lru: LRUCache<string, CachedAnswer> | null;

  /** `maxBytes` 0 disables the cache (every retry recomputes). */
  constructor(
    maxBytes: number,
    private readonly maxEntryBytes: number,
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

  get(nonceKey: string): CachedAnswer | undefined {
    return this.lru?.get(nonceKey);
  }

  delete(nonceKey: string): void {
    this.lru?.delete(nonceKey);
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
