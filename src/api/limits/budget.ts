/**
 * One budget of requests per key and window, counted in memory or, with REDIS_URL, in Redis so
 * that replicas count together (rate-limiter-flexible: fixed windows, one atomic Lua call per
 * request). A Redis failure lets the request through rather than refusing everyone (fail open),
 * logged once when Redis fails and once when it answers again.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export type Spend = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface BudgetOptions {
  /** Names the budget in Redis keys and logs. */
  name: string;
  /** Requests per key and window; 0 = none allowed. */
  max: number;
  windowSec: number;
  redis: Redis | undefined;
  log: FastifyBaseLogger;
}

export class Budget {
  private readonly limiter: RateLimiterAbstract | null;
  private failing = false;

  constructor(private readonly o: BudgetOptions) {
    const common = { keyPrefix: `btc-intel:rate:${o.name}`, points: o.max, duration: o.windowSec };
    this.limiter =
      o.max <= 0
        ? null
        : o.redis
          ? // Not ready (reconnecting, offline queue off): fail at once rather than wait.
            new RateLimiterRedis({ ...common, storeClient: o.redis, rejectIfRedisNotReady: true })
          : new RateLimiterMemory(common);
  }

  /** Counts one request for `key`; `ok: false` once the window's budget is spent. */
  async spend(key: string): Promise<Spend> {
    if (!this.limiter) return { ok: false, retryAfterSeconds: this.o.windowSec };
    try {
      await this.limiter.consume(key);
      this.storeAnswered();
      return { ok: true };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        this.storeAnswered();
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
      if (!this.failing) this.o.log.warn({ err, budget: this.o.name }, 'rate limit: counter store failed; requests pass unlimited until it answers');
      this.failing = true;
      return { ok: true };
    }
  }

  private storeAnswered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.o.log.warn({ budget: this.o.name }, 'rate limit: counter store answers again');
  }
}
