/**
 * This replica's part in the optimizer lead, as capabilities and cache-stats show it: `single`
 * (no Redis: it runs its own cycles), `leader` (it runs the cycles for every replica) or
 * `follower` (it serves the leader's cache), the leader, when its lease runs out, and how old the
 * served cache is.
 */
import { z } from 'zod';
import { isoFromMs } from '../../bitcoin/units.js';
import type { ApiContext } from '../define.js';
import { IsoTime } from '../schemas.js';

export const OptimizerLease = z.object({
  role: z
    .enum(['single', 'leader', 'follower'])
    .describe('single: no REDIS_URL, this replica runs its own cycles; leader: it runs them for every replica; follower: it serves the leader’s cache'),
  replicaId: z.string().describe('This replica (random per process start)'),
  leaderId: z.string().nullable().describe('The replica holding the optimizer lease, as last seen'),
  leaseMs: z.number().int().nullable(),
  leaseExpiresAt: IsoTime.nullable().describe('When the leader’s lease runs out unless renewed'),
  cacheFrom: z.string().nullable().describe('The replica that computed the cache served here'),
  cacheCycle: z.number().int().nullable(),
  cacheAgeMs: z.number().nullable(),
  lastError: z.string().nullable().describe('The last Redis failure of the lease loop'),
  refused: z.string().nullable().describe('Why the last shared cache was refused (corrupt, oversized, signed by another key)'),
});

export function optimizerLease(ctx: ApiContext): z.input<typeof OptimizerLease> {
  const { lease, service } = ctx.optimizer;
  const cache = service.cache;
  return {
    role: lease.role,
    replicaId: lease.replicaId,
    leaderId: lease.leaderId,
    leaseMs: lease.leaseMs,
    leaseExpiresAt: isoFromMs(lease.leaseExpiresAt),
    cacheFrom: cache ? lease.cacheFrom : null,
    cacheCycle: cache?.cycle ?? null,
    cacheAgeMs: cache ? ctx.now() - cache.cachedAt : null,
    lastError: lease.lastError,
    refused: lease.refused,
  };
}
