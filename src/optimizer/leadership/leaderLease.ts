/**
 * A lease in Redis that one process holds at a time: the key holds the holder's id and expires by
 * itself (PX), so a holder that dies without releasing (kill -9) loses it after at most one lease.
 * Claiming is one Lua script, atomic on the server: take the key when it is free (as `SET NX PX`),
 * extend it when it is already ours (compare-and-set renewal), else report who holds it and for
 * how long. Release deletes the key only while it is still ours.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';

// KEYS[1] lease key; ARGV[1] our id, ARGV[2] lease ms, ARGV[3] '1' to take a free lease.
// Returns { holder ('' when none), remaining ms }.
const CLAIM = `
local holder = redis.call('GET', KEYS[1])
if holder == false then
  if ARGV[3] ~= '1' then return { '', 0 } end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return { ARGV[1], tonumber(ARGV[2]) }
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return { holder, tonumber(ARGV[2]) }
end
return { holder, redis.call('PTTL', KEYS[1]) }
`;

// KEYS[1] lease key; ARGV[1] our id, ARGV[2] channel told of the release. Returns 1 when released.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], 'released')
  return 1
end
return 0
`;

const ClaimReply = z.tuple([z.string().max(200), z.number().int()]);

export interface LeaseClaim {
  /** Who holds the lease now (our id when we got or kept it); null when nobody does. */
  holder: string | null;
  mine: boolean;
  /** How long the holder's lease still runs, ms (the full lease when it is ours). */
  remainingMs: number;
}

export class LeaderLease {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
    readonly id: string,
    readonly leaseMs: number,
  ) {}

  /**
   * Takes the lease if free (unless `take` is false: a replica that may not lead only looks),
   * renews it if ours; else tells who holds it.
   */
  async claim(take = true): Promise<LeaseClaim> {
    const reply = ClaimReply.parse(await this.redis.eval(CLAIM, 1, this.key, this.id, String(this.leaseMs), take ? '1' : '0'));
    const [holder, remaining] = reply;
    // PTTL is -1 for a key without expiry (set by hand): treat it as a full lease.
    return { holder: holder === '' ? null : holder, mine: holder === this.id, remainingMs: remaining < 0 ? this.leaseMs : remaining };
  }

  /** Gives the lease up if it is still ours, and tells `channel`'s subscribers. */
  async release(channel: string): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, this.key, this.id, channel)) === 1;
  }
}
