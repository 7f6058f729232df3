import type { IdempotencyRecord, ReplayStore } from './replayStore.js';

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

  async beginIdempotency(id: string, fingerprint: string, leaseUntilMs: number): Promise<boolean> {
    if ((await this.getIdempotency(id)) !== null) return false;
    this.records.set(id, { record: { state: 'pending', fingerprint }, expiresAtMs: leaseUntilMs });
    return true;
  }

  async completeIdempotency(id: string, fingerprint: string, expiresAtMs: number): Promise<void> {
    this.records.set(id, { record: { state: 'done', fingerprint }, expiresAtMs });
  }

  async releaseIdempotency(id: string): Promise<void> {
    this.records.delete(id);
  }

  async close(): Promise<void> {
    this.nonces.clear();
    this.records.clear();
  }

  async purgeExpired(): Promise<number> {
    return this.sweep();
  }

  /** Amortized O(1): a full sweep every 4096 writes. */
  private sweepSometimes(): void {
    if (++this.writes % 4096 === 0) this.sweep();
  }

  private sweep(): number {
    const now = this.now();
    let n = 0;
    for (const [k, exp] of this.nonces) if (exp <= now && this.nonces.delete(k)) n++;
    for (const [k, e] of this.records) if (e.expiresAtMs <= now && this.records.delete(k)) n++;
    return n;
  }
}
