import type { CachedResponse, IdempotencyRecord, ReplayStore } from './replayStore.js';

/** One process, nothing survives a restart: tests and benchmarks. Expired entries are swept lazily. */
export class MemoryReplayStore implements ReplayStore {
  readonly kind = 'memory' as const;
  private readonly nonces = new Map<string, number>();
  private readonly records = new Map<string, { record: IdempotencyRecord; expiresAtMs: number }>();
  private writes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async claimNonce(key: string, expiresAtMs: number): Promise<boolean> {
    this.sweepSometimes();
    const held = this.nonces.get(key);
    if (held !== undefined && held > this.now()) return false;
    this.nonces.set(key, expiresAtMs);
    return true;
  }

  async releaseNonce(key: string): Promise<void> {
    this.nonces.delete(key);
  }

  async getIdempotency(id: string): Promise<IdempotencyRecord | null> {
    const entry = this.records.get(id);
    return entry && entry.expiresAtMs > this.now() ? entry.record : null;
  }

  async beginIdempotency(id: string, fingerprint: string, expiresAtMs: number): Promise<boolean> {
    if ((await this.getIdempotency(id)) !== null) return false;
    this.records.set(id, { record: { state: 'pending', fingerprint }, expiresAtMs });
    return true;
  }

  async completeIdempotency(id: string, fingerprint: string, response: CachedResponse, expiresAtMs: number): Promise<void> {
    this.records.set(id, { record: { state: 'done', fingerprint, response }, expiresAtMs });
  }

  async releaseIdempotency(id: string): Promise<void> {
    this.records.delete(id);
  }

  async close(): Promise<void> {
    this.nonces.clear();
    this.records.clear();
  }

  /** Amortized O(1): a full sweep every 4096 writes. */
  private sweepSometimes(): void {
    if (++this.writes % 4096 !== 0) return;
    const now = this.now();
    for (const [k, exp] of this.nonces) if (exp <= now) this.nonces.delete(k);
    for (const [k, e] of this.records) if (e.expiresAtMs <= now) this.records.delete(k);
  }
}
