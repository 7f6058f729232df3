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
    /** Shared with `SharedPayments` and, given by the app, with the rate limits (one connection per replica). */
    readonly redis: Redis,
    readonly prefix = 'x402:',
    private readonly now: () => number = Date.now,
    /** Whether `close` ends the connection (false: its owner does). */
    private readonly owned = true,
  ) {}

  /**
   * A client for `url` (`redis://` or `rediss://`), not connected yet (no I/O here: `open`
   * connects it), that fails fast instead of queueing commands forever. Auto-pipelining: the
   * commands issued in one tick (the payer's budget and the claim of every concurrent paid request,
   * when the app shares this client with the rate limits) go out in one write.
   */
  static client(url: string): Redis {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000, enableOfflineQueue: false, enableAutoPipelining: true });
    // Connection errors surface as rejected commands (→ 503 PAYMENT_STORE_UNAVAILABLE, or a rate
    // limit failing open); the event itself must have a listener or it would crash the process.
    redis.on('error', () => undefined);
    return redis;
  }

  /** A store on `redis`, connected first if it is not yet (start-up fails when Redis cannot be reached). `owned`: `close` ends it. */
  static async open(redis: Redis, prefix: string, now: () => number, owned: boolean): Promise<RedisReplayStore> {
    if (redis.status === 'wait') await redis.connect();
    return new RedisReplayStore(redis, prefix, now, owned);
  }

  /** A store on its own connection to `url`. */
  static async connect(url: string, prefix = 'x402:', now: () => number = Date.now): Promise<RedisReplayStore> {
    return RedisReplayStore.open(RedisReplayStore.client(url), prefix, now, true);
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
    if (!this.owned) return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
