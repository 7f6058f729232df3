/**
 * One optimizer leader across the replicas that share `REDIS_URL` (issue 16). Every replica runs a
 * loop over the Redis lease (leaderLease.ts):
 *
 * - the holder is the **leader**: it renews every third of the lease, runs the optimizer cycles
 *   and publishes each new cache (cacheCodec.ts, sharedCache.ts, fenced by the lease);
 * - the others are **followers**: they compute nothing; on each publication (pub/sub, and a
 *   version check on every tick in case a message was missed) they load the leader's cache,
 *   check it (wire format, and the receipt: signed with this deployment's receipt key, covering the
 *   txid lists) and serve it as their own. A blob that fails a check is logged and ignored: the
 *   previous cache keeps serving;
 * - a follower retries the lease when the holder's lease runs out (it reads the remaining time), so
 *   after a leader dies without releasing (kill -9) another one leads within one lease. A leader
 *   that cannot renew steps down before its lease could have expired; a clean shutdown releases
 *   the lease and tells the followers, which claim it at once.
 *
 * Warm state (the leader's previous linearization) travels with the cache, so a new leader
 * continues the cycle numbering and warm-starts from the last published cycle.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { CacheDecodeError, decodeCache, encodeCache } from './cacheCodec.js';
import { LeaderLease } from './leaderLease.js';
import type { OptimizerService } from '../optimizerService.js';
import { verifyReceipt, type ReceiptSigner } from '../cache/receipts.js';
import { cacheVersion, RELEASED_MESSAGE, SharedCacheStore, sharedCacheKeys } from './sharedCache.js';
import type { TemplateCache } from '../cache/templateCache.js';

export type OptimizerRole = 'single' | 'leader' | 'follower';

/** What capabilities and cache-stats report about the lease. */
export interface LeaseStatus {
  role: OptimizerRole;
  /** This replica's id (random per process start). */
  replicaId: string;
  /** The lease holder as last seen; null without Redis or before the first claim. */
  leaderId: string | null;
  leaseMs: number | null;
  /** When the holder's lease runs out unless renewed (ms since the epoch). */
  leaseExpiresAt: number | null;
  /** The replica that computed the cache this one serves. */
  cacheFrom: string | null;
  /** The last Redis failure (lease, publish, load); null once a claim succeeds. */
  lastError: string | null;
  /** Why the last shared cache was refused (corrupt, oversized, signed by another key); null once one is served. */
  refused: string | null;
}

export const REDIS_PREFIX = 'btc-intel:optimizer:';

export function singleStatus(replicaId: string): LeaseStatus {
  return { role: 'single', replicaId, leaderId: replicaId, leaseMs: null, leaseExpiresAt: null, cacheFrom: replicaId, lastError: null, refused: null };
}

export function newReplicaId(): string {
  return randomBytes(6).toString('hex');
}

export interface LeadershipOptions {
  redisUrl: string;
  leaseMs: number;
  /** How long a published cache stays in Redis without a newer one. */
  cacheTtlMs: number;
  service: OptimizerService;
  signer: ReceiptSigner;
  /** Whether this replica may lead now (it reaches its node); a leader that may not steps down. */
  canLead?: () => boolean;
  replicaId?: string;
  prefix?: string;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

export class OptimizerLeadership {
  readonly status: LeaseStatus;
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly lease: LeaderLease;
  private readonly store: SharedCacheStore;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private started = false;
  /** Version of the cache served, when it came from Redis (or was published by us). */
  private servedVersion: string | null = null;
  /** The cache last adopted from Redis: its `published` event is not published again. */
  private adopted: TemplateCache | undefined;
  private loading: Promise<void> | undefined;

  constructor(private readonly options: LeadershipOptions) {
    const { redisUrl, leaseMs, replicaId = newReplicaId(), prefix = REDIS_PREFIX } = options;
    this.now = options.now ?? Date.now;
    // No offline queue: a command while Redis is away fails at once and the next tick retries. A
    // command timeout: a leader whose Redis hangs must still notice it cannot renew.
    this.redis = new Redis(redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      enableOfflineQueue: false,
      commandTimeout: Math.max(250, Math.floor(leaseMs / 3)),
    });
    this.subscriber = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000 });
    // Connection errors surface as failed ticks; the events need a listener or they would throw.
    this.redis.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
    const keys = sharedCacheKeys(prefix);
    this.lease = new LeaderLease(this.redis, keys.lease, replicaId, leaseMs);
    this.store = new SharedCacheStore(this.redis, keys);
    this.status = { role: 'follower', replicaId, leaderId: null, leaseMs, leaseExpiresAt: null, cacheFrom: null, lastError: null, refused: null };
  }

  /** Connects and claims the lease now; then keeps claiming, renewing and following. */
  async start(): Promise<void> {
    this.stopped = false;
    this.started = true;
    this.options.service.on('published', this.onPublished);
    this.subscriber.on('message', this.onMessage);
    // Not awaited: queued until Redis answers (ioredis reconnects on its own); until then the
    // version check of every tick finds new caches.
    this.subscriber.subscribe(this.store.keys.channel).catch((e: unknown) => this.fail('subscribe', e));
    // A failed first connection is retried by ioredis; the ticks fail until it succeeds.
    await this.redis.connect().catch((e: unknown) => this.fail('connect', e));
    this.options.logger?.info({ replicaId: this.status.replicaId }, 'optimizer lease: this replica competes for the optimizer lead');
    this.kick();
  }

  /** Stops the loop; a leader stops its cycles and releases the lease so that another takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (!this.started) return;
    clearTimeout(this.timer);
    this.options.service.off('published', this.onPublished);
    this.subscriber.off('message', this.onMessage);
    await this.ticking;
    await this.loading;
    if (this.status.role === 'leader') {
      await this.options.service.stop();
      await this.lease.release(this.store.keys.channel).catch((e: unknown) => this.fail('release', e));
      this.status.role = 'follower';
    }
    // quit() waits for a connection that may never come: only on a ready one.
    for (const client of [this.redis, this.subscriber]) {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    }
  }

  /** Runs a tick now (or right after the running one). */
  private kick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), Math.max(0, delayMs));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const { leaseMs } = this.lease;
    const renewEvery = Math.max(1, Math.floor(leaseMs / 3));
    const able = this.options.canLead?.() ?? true;
    const askedAt = this.now();
    let next = renewEvery;
    try {
      if (this.status.role === 'leader' && !able) {
        // A leader cut off from its node computes nothing: hand the lead to a replica that can.
        this.stepDown('its node is unreachable');
        await this.lease.release(this.store.keys.channel);
      }
      const claim = await this.lease.claim(able);
      this.status.leaderId = claim.holder;
      if (claim.mine) {
        // Counted from before the call: the server's expiry is at least this late.
        this.status.leaseExpiresAt = askedAt + leaseMs;
        if (this.status.role !== 'leader') await this.lead();
      } else {
        this.status.leaseExpiresAt = claim.holder === null ? null : this.now() + claim.remainingMs;
        if (this.status.role === 'leader') this.stepDown(`the lease is held by ${claim.holder ?? 'nobody'}`);
        // Claim again the moment the holder's lease runs out (a dead leader does not renew).
        if (claim.holder !== null) next = Math.min(renewEvery, claim.remainingMs + 5);
        await this.follow();
      }
      this.status.lastError = null;
    } catch (e) {
      this.fail('lease', e);
      // A leader that cannot renew stops leading before its lease may have run out elsewhere.
      if (this.status.role === 'leader' && this.now() >= (this.status.leaseExpiresAt ?? 0) - renewEvery) this.stepDown('the lease could not be renewed');
    }
    this.schedule(next);
  }

  /** Becomes the leader: catch up with the last published cache, then run the cycles. */
  private async lead(): Promise<void> {
    await this.follow().catch(() => undefined);
    this.status.role = 'leader';
    this.options.logger?.info(
      { replicaId: this.status.replicaId, cycle: this.options.service.cycleCount },
      'optimizer lease taken: this replica runs the cycles',
    );
    this.options.service.start();
  }

  private stepDown(reason: string): void {
    if (this.status.role !== 'leader') return;
    this.status.role = 'follower';
    this.options.logger?.warn({ replicaId: this.status.replicaId, reason }, 'optimizer lease lost: this replica stops its cycles and follows');
    // The running cycle (if any) ends on its own; its publication is refused by the fence.
    void this.options.service.stop();
  }

  /** Loads the published cache when its version differs from the one served (one load at a time). */
  private follow(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const version = await this.store.version();
    if (version === null || version === this.servedVersion) return;
    try {
      const blob = await this.store.load();
      if (blob === null) return;
      const { leaderId, leader, cache } = await decodeCache(blob);
      const { receipt } = cache;
      // Only this deployment's key signs caches: a blob signed otherwise is not ours to serve.
      if (receipt.publicKey !== this.options.signer.publicKeyBase64) {
        throw new CacheDecodeError(
          `signed by ${receipt.payload.keyId}, not by this replica's receipt key ${this.options.signer.keyId} (every replica needs the same RECEIPT_SECRET_KEY)`,
        );
      }
      if (!verifyReceipt(receipt, this.options.signer.publicKeyBase64)) throw new CacheDecodeError('the receipt signature does not verify');
      if (this.status.role === 'leader') return;
      this.adopted = cache;
      this.servedVersion = cacheVersion(leaderId, cache);
      this.status.cacheFrom = leaderId;
      this.status.refused = null;
      this.options.service.adopt(cache, leader);
    } catch (e) {
      // Redis trouble: the next tick retries. A bad blob: refused until a new version is published.
      if (!(e instanceof CacheDecodeError)) throw e;
      this.servedVersion = version;
      this.options.logger?.error({ err: e, version }, 'shared optimizer cache refused; the previous cache keeps serving');
      this.status.refused = `shared cache ${version} refused: ${e.message}`;
    }
  }

  private readonly onMessage = (channel: string, message: string): void => {
    if (channel !== this.store.keys.channel || this.stopped) return;
    if (message === RELEASED_MESSAGE) this.kick();
    else if (this.status.role === 'follower' && message !== this.servedVersion) void this.follow().catch((e: unknown) => this.fail('load', e));
  };

  /** A cache this replica computed: the leader publishes it; anything else resyncs on the next tick. */
  private readonly onPublished = (cache: TemplateCache): void => {
    if (cache === this.adopted) return;
    const { replicaId } = this.status;
    // Served from now on, published or not.
    this.status.cacheFrom = replicaId;
    if (this.status.role !== 'leader') {
      // A cycle that ended after this replica stepped down: serve the leader's again.
      this.servedVersion = null;
      return;
    }
    const version = cacheVersion(replicaId, cache);
    this.servedVersion = version;
    void (async () => {
      // After the cycle's record is in the history (the service adds it right after `published`).
      await Promise.resolve();
      const { history, baseline } = this.options.service;
      const blob = encodeCache(cache, replicaId, { history, baseline });
      const published = await this.store.publish(replicaId, blob, version, this.options.cacheTtlMs);
      if (!published) this.options.logger?.warn({ cycle: cache.cycle }, 'optimizer cache not published: this replica no longer holds the lease');
    })().catch((e: unknown) => this.fail('publish', e));
  };

  private fail(what: string, e: unknown): void {
    const message = `${what}: ${(e as Error)?.message ?? String(e)}`;
    if (message !== this.status.lastError) this.options.logger?.warn({ err: e }, `optimizer lease ${what} failed`);
    this.status.lastError = message;
  }
}
