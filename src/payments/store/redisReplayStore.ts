import { Redis } from 'ioredis';
import type { IdempotencyRecord, ReplayStore } from './replayStore.js';

/**
 * Several replicas: claims are `SET key 1 PX ttl NX` (atomic on the server), records are JSON
 * strings under `SET … NX` / `SET … XX`; Redis expires both itself. Keys are prefixed so one Redis
 * can serve several deployments.
 */
export class RedisReplayStore implements ReplayStore {
  readonly kind = 'redis' as const;

  constructor(
    /** Shared with `SharedPayments` (one connection per replica). */
    readonly redis: Redis,
    readonly prefix = 'x402:',
    private readonly now: () => number = Date.now,
  ) {}

  /** Connects to `url` (`redis://` or `rediss://`); fails fast instead of queueing commands forever. */
  static async connect(url: string, prefix?: string, now?: () => number): Promise<RedisReplayStore> {
    // Auto-pipelining: the commands of concurrent paid requests issued in one tick go out in one write.
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000, enableOfflineQueue: false, enableAutoPipelining: true });
    // Connection errors surface as rejected commands (→ 503 PAYMENT_STORE_UNAVAILABLE); the event
    // itself must have a listener or it would crash the process.
    redis.on('error', () => undefined);
    await redis.connect();
    return new RedisReplayStore(redis, prefix, now);
  }

  private ttl(expiresAtMs: number): number {
    return Math.max(1, Math.ceil(expiresAtMs - this.now()));
  }

  async claimNonce(key: string, expiresAtMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}nonce:${key}`, '1', 'PX', this.ttl(expiresAtMs), 'NX')) === 'OK';
  }

  async releaseNonce(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}nonce:${key}`);
  }

  async getIdempotency(id: string): Promise<IdempotencyRecord | null> {
    const raw = await this.redis.get(`${this.prefix}idem:${id}`);
    return raw === null ? null : (JSON.parse(raw) as IdempotencyRecord);
  }

  async beginIdempotency(id: string, fingerprint: string, leaseUntilMs: number): Promise<boolean> {
    const record: IdempotencyRecord = { state: 'pending', fingerprint };
    return (await this.redis.set(`${this.prefix}idem:${id}`, JSON.stringify(record), 'PX', this.ttl(leaseUntilMs), 'NX')) === 'OK';
  }

  async completeIdempotency(id: string, fingerprint: string, expiresAtMs: number): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint };
    await this.redis.set(`${this.prefix}idem:${id}`, JSON.stringify(record), 'PX', this.ttl(expiresAtMs));
  }

  async releaseIdempotency(id: string): Promise<void> {
    await this.redis.del(`${this.prefix}idem:${id}`);
  }

  /** Redis expires claims and records itself (PX). */
  async purgeExpired(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
