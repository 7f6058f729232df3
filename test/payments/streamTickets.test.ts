import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamTickets } from '../../src/payments/streamTickets.js';
import { MemoryReplayStore } from '../../src/payments/store/memoryReplayStore.js';
import { RedisReplayStore } from '../../src/payments/store/redisReplayStore.js';
import { redisAvailable, startRedis, type RedisServer } from './redisServer.js';

describe('StreamTickets', () => {
  it('default: a ticket redeems once, then is used; a forged one is unknown', async () => {
    let now = 1_800_000_000_000;
    const tickets = new StreamTickets(new MemoryReplayStore(() => now), () => now);
    const { ticket, expiresAt } = await tickets.issue(600_000);
    expect(expiresAt).toBe(now + 600_000);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tickets.redeem(ticket)).toEqual({ ok: true, expiresAt });
    expect(await tickets.redeem(ticket)).toEqual({ ok: false, reason: 'used' });
    // Same expiry prefix, other random part: not sold here.
    const forged = Buffer.from(ticket, 'base64url');
    forged[31] = (forged[31] ?? 0) ^ 1;
    expect(await tickets.redeem(forged.toString('base64url'))).toEqual({ ok: false, reason: 'unknown' });
    expect(await tickets.redeem('short')).toEqual({ ok: false, reason: 'unknown' });
    const late = await tickets.issue(1000);
    now += 1000;
    expect(await tickets.redeem(late.ticket)).toEqual({ ok: false, reason: 'expired' });
  });
});

describe.skipIf(!redisAvailable())('StreamTickets on Redis (two replicas)', () => {
  let redis: RedisServer;
  let a: RedisReplayStore;
  let b: RedisReplayStore;
  beforeAll(async () => {
    redis = await startRedis();
    a = await RedisReplayStore.connect(redis.url, `tickets-${process.pid}:`);
    b = await RedisReplayStore.connect(redis.url, `tickets-${process.pid}:`);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('behavior: a ticket sold by one replica opens on another, once', async () => {
    const sold = await new StreamTickets(a, Date.now).issue(60_000);
    const other = new StreamTickets(b, Date.now);
    const both = await Promise.all([other.redeem(sold.ticket), new StreamTickets(a, Date.now).redeem(sold.ticket)]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(both.filter((r) => !r.ok)).toEqual([{ ok: false, reason: 'used' }]);
  });
});
