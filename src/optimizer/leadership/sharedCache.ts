/**
 * The optimizer cache as shared in Redis: the leader's latest blob (cacheCodec.ts), its version
 * (`<leader id>:<cycle>:<cachedAt>`), and a pub/sub channel that tells followers a new version is
 * there. Publishing is fenced: one Lua script writes blob and version and notifies only while the
 * publisher still holds the lease, so a leader that lost its lease (a long pause, a partition)
 * cannot overwrite its successor's cache.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CACHE_WIRE_MAX_BYTES, CacheDecodeError } from './cacheCodec.js';
import type { TemplateCache } from '../cache/templateCache.js';

export interface SharedCacheKeys {
  lease: string;
  blob: string;
  version: string;
  /** Pub/sub channel: a version string per publication, `released` when the leader steps down. */
  channel: string;
}

export function sharedCacheKeys(prefix: string): SharedCacheKeys {
  return { lease: `${prefix}lease`, blob: `${prefix}cache`, version: `${prefix}cache-version`, channel: `${prefix}events` };
}

export const RELEASED_MESSAGE = 'released';

export function cacheVersion(leaderId: string, cache: Pick<TemplateCache, 'cycle' | 'cachedAt'>): string {
  return `${leaderId}:${cache.cycle}:${cache.cachedAt}`;
}

// KEYS: lease, blob, version. ARGV: our id, blob, version, ttl ms, channel. 1 when published.
const PUBLISH = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[3])
return 1
`;

const Version = z.string().max(300);

export class SharedCacheStore {
  constructor(
    private readonly redis: Redis,
    readonly keys: SharedCacheKeys,
  ) {}

  /** Writes a new cache if `holderId` still holds the lease; false when it does not. */
  async publish(holderId: string, blob: Buffer, version: string, ttlMs: number): Promise<boolean> {
    const { lease, blob: blobKey, version: versionKey, channel } = this.keys;
    return (await this.redis.eval(PUBLISH, 3, lease, blobKey, versionKey, holderId, blob, version, String(ttlMs), channel)) === 1;
  }

  /** The version of the latest published cache, or null when none is there. */
  async version(): Promise<string | null> {
    const raw = await this.redis.get(this.keys.version);
    return raw === null ? null : Version.parse(raw);
  }

  /** The latest blob, or null. A blob over `maxBytes` is refused (`CacheDecodeError`) without being read. */
  async load(maxBytes = CACHE_WIRE_MAX_BYTES): Promise<Buffer | null> {
    const size = await this.redis.strlen(this.keys.blob);
    if (size === 0) return null;
    if (size > maxBytes) throw new CacheDecodeError(`${size} bytes is over the ${maxBytes}-byte limit`);
    return this.redis.getBuffer(this.keys.blob);
  }
}
