/**
 * The optimizer leader lease on a real redis-server (issue 16): the lease itself (exclusive,
 * renewed, taken over after it runs out, released), and two replicas of the app on one node and
 * one Redis: one leads, the other serves the leader's cache with the same receipt, refuses a
 * corrupt or foreign cache while keeping the previous one, and takes over when the leader stops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { EsploraAddressSource } from '../../src/node/esploraAddressSource.js';
import { CacheDecodeError, encodeCache } from '../../src/optimizer/leadership/cacheCodec.js';
import { LeaderLease } from '../../src/optimizer/leadership/leaderLease.js';
import { REDIS_PREFIX } from '../../src/optimizer/leadership/leadership.js';
import { verifyReceipt, type SignedReceipt } from '../../src/optimizer/cache/receipts.js';
import { RELEASED_MESSAGE, SharedCacheStore, sharedCacheKeys } from '../../src/optimizer/leadership/sharedCache.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { redisAvailable, startRedis, type RedisServer } from '../payments/redisServer.js';
import { switchableProxy, type SwitchableProxy } from '../helpers/switchableProxy.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';

const available = redisAvailable();
if (!available) console.warn('SKIPPED: redis-server is not installed (apt-get install -y redis-server); the optimizer lease tests did not run');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it answers; the deadline only bounds a failure (a loaded machine is slow, not wrong). */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!available)('the optimizer leader lease (real redis-server)', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
    // The last test stops Redis: this client then reconnects in vain until the end.
    client.on('error', () => undefined);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it('default: one holder at a time; the holder renews, the other sees who holds it and for how long', async () => {
    // A lease no pause of a loaded machine outlasts; the time that passes is played by shortening it in Redis.
    const a = new LeaderLease(client, 'lease:1', 'a', 60_000);
    const b = new LeaderLease(client, 'lease:1', 'b', 60_000);
    expect(await a.claim()).toEqual({ holder: 'a', mine: true, remainingMs: 60_000 });
    const seen = await b.claim();
    expect(seen).toMatchObject({ holder: 'a', mine: false });
    expect(seen.remainingMs).toBeGreaterThan(0);
    expect(seen.remainingMs).toBeLessThanOrEqual(60_000);
    // Most of the lease has gone by: renewal pushes the expiry out again to a full lease.
    await client.pexpire('lease:1', 1000);
    expect((await a.claim()).mine).toBe(true);
    expect(await client.pttl('lease:1')).toBeGreaterThan(1000);
    const later = await b.claim();
    expect(later).toMatchObject({ holder: 'a', mine: false });
    expect(later.remainingMs).toBeGreaterThan(1000);
  });

  it('behavior: a holder that stops renewing (killed) loses the lease after it runs out; another takes it', async () => {
    const LEASE = 1000;
    const a = new LeaderLease(client, 'lease:2', 'a', LEASE);
    const b = new LeaderLease(client, 'lease:2', 'b', LEASE);
    const before = Date.now();
    expect((await a.claim()).mine).toBe(true);
    // b keeps claiming: refused while a's lease runs (however slow this machine), granted once it ran out.
    const taken = await until('b takes the lease', async () => {
      const claim = await b.claim();
      if (!claim.mine) expect(claim).toMatchObject({ holder: 'a' });
      return claim.mine ? claim : undefined;
    });
    expect(Date.now() - before).toBeGreaterThanOrEqual(LEASE - 5);
    expect(taken).toMatchObject({ holder: 'b', mine: true });
    // The old holder cannot renew what it no longer holds, nor release it.
    expect(await a.claim()).toMatchObject({ holder: 'b', mine: false });
    expect(await a.release('events')).toBe(false);
    expect(await client.get('lease:2')).toBe('b');
  });

  it('behavior: a release frees the lease at once and tells the subscribers', async () => {
    const sub = new Redis(redis.url);
    try {
      await sub.subscribe('lease:3:events');
      const heard = new Promise<string>((resolve) => sub.once('message', (_channel: string, message: string) => resolve(message)));
      const a = new LeaderLease(client, 'lease:3', 'a', 60_000);
      const b = new LeaderLease(client, 'lease:3', 'b', 60_000);
      expect((await a.claim()).mine).toBe(true);
      expect(await a.release('lease:3:events')).toBe(true);
      expect(await heard).toBe('released');
      // A replica that may not lead (its node is unreachable) only looks at a free lease.
      expect(await a.claim(false)).toEqual({ holder: null, mine: false, remainingMs: 0 });
      expect((await b.claim()).mine).toBe(true);
    } finally {
      sub.disconnect();
    }
  });

  it('error: an oversized shared cache is refused before it is read', async () => {
    const store = new SharedCacheStore(client, sharedCacheKeys('oversized:'));
    await client.set(store.keys.blob, Buffer.alloc(1000));
    await expect(store.load(999)).rejects.toThrow(CacheDecodeError);
    expect((await store.load(1000))?.length).toBe(1000);
  });

  describe('two replicas on one node', () => {
    let simnet: SimnetHandle;
    const dirs: string[] = [];
    const apps: App[] = [];
    const KEY = '5a'.repeat(32);
    /** Long enough that a takeover well within it comes from a release, not from expiry. */
    const LEASE_MS = 15_000;

    async function replica(env: Record<string, string> = {}, nodeUrl = simnet.rpcUrl): Promise<App> {
      const dataDir = mkdtempSync(join(tmpdir(), 'lease-replica-'));
      dirs.push(dataDir);
      const config = loadConfig({
        DATA_DIR: dataDir,
        PAYMENTS_ENABLED: 'false',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_MAX: '0',
        REDIS_URL: redis.url,
        RECEIPT_SECRET_KEY: KEY,
        OPTIMIZER_LEASE_MS: String(LEASE_MS),
        // Cycles only when a test asks (refresh), after the first one on taking the lead.
        OPTIMIZER_INTERVAL_SEC: '3600',
        MEMPOOL_POLL_MS: '250',
        // A node counts as unreachable (the leader hands the lead over) after 5 s without an answer:
        // the proxy's `down()` refuses at once, while a loaded machine may answer late.
        NODE_STALE_AFTER_MS: '5000',
        BITCOIN_RPC_TIMEOUT_MS: '2000',
        ...env,
      });
      const node = new BitcoinNode({ url: nodeUrl, timeoutMs: config.BITCOIN_RPC_TIMEOUT_MS, scanTimeoutMs: config.BITCOIN_RPC_SCAN_TIMEOUT_MS });
      const app = await buildApp({
        config,
        node,
        addressSource: new EsploraAddressSource(simnet.esploraUrl, config.ESPLORA_TIMEOUT_MS),
        nodeKind: 'simulated',
        checkResponses: true,
        logger: false,
      });
      apps.push(app);
      await app.ready();
      return app;
    }

    const stats = async (app: App) =>
      (await app.inject({ method: 'GET', url: '/v1/template/cache-stats' })).json<{
        lease: {
          role: string;
          replicaId: string;
          leaderId: string | null;
          leaseExpiresAt: string | null;
          cacheFrom: string | null;
          cacheCycle: number | null;
          lastError: string | null;
          refused: string | null;
        };
        cache: { cycle: number } | null;
      }>();
    const optimizedTxids = async (app: App) =>
      (await app.inject({ method: 'POST', url: '/v1/template/optimized-txids', payload: {} })).json<{
        txids: string[];
        receipt: SignedReceipt & { covers: string };
      }>();

    let leader: App;
    let follower: App;
    /** The first replica reaches the node through this proxy. */
    let leaderNode: SwitchableProxy;

    beforeAll(async () => {
      await client.flushall();
      simnet = await startSimnet({ seed: 9, blockIntervalSec: 0, txPerSec: 0, initialTxs: 200, policyModule: CORE_V31_POLICY_MODULE });
      leaderNode = await switchableProxy(simnet.rpcUrl);
      leader = await replica({}, leaderNode.url);
      await until('the first replica leads with a cache', async () => {
        const s = await stats(leader);
        return s.lease.role === 'leader' && s.cache ? s : undefined;
      });
      follower = await replica();
    }, 60_000);
    afterAll(async () => {
      for (const app of apps) await app.close();
      await leaderNode?.close();
      await simnet?.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('default: the follower computes nothing and serves the leader’s cycle, txids and receipt, byte for byte', async () => {
      const l = await stats(leader);
      const f = await until('the follower serves the leader’s cache', async () => {
        const s = await stats(follower);
        return s.cache?.cycle === l.cache?.cycle ? s : undefined;
      });
      expect(f.lease).toMatchObject({ role: 'follower', leaderId: l.lease.replicaId, cacheFrom: l.lease.replicaId });
      expect(l.lease).toMatchObject({ role: 'leader', leaderId: l.lease.replicaId });
      // It ran no cycle: it shows the leader's cycle records, and counted none of its own.
      expect(follower.optimizer.service.history).toEqual(leader.optimizer.service.history);
      expect(follower.optimizer.service.history[0]?.cycle).toBe(l.cache?.cycle);
      expect((await follower.inject({ method: 'GET', url: '/metrics' })).body).not.toContain('optimizer_cycles_total{');
      const [a, b] = [await optimizedTxids(leader), await optimizedTxids(follower)];
      expect(b.txids).toEqual(a.txids);
      expect(JSON.stringify(b.receipt)).toBe(JSON.stringify(a.receipt));
      expect(verifyReceipt(b.receipt, follower.optimizer.signer.publicKeyBase64)).toBe(true);
      // Capabilities say the same.
      const caps = (await follower.inject({ method: 'GET', url: '/v1/template/capabilities' })).json<{
        optimizerCache: { lease: { role: string; cacheAgeMs: number } };
      }>();
      expect(caps.optimizerCache.lease.role).toBe('follower');
      expect(caps.optimizerCache.lease.cacheAgeMs).toBeGreaterThanOrEqual(0);
      // And /metrics, for alerts on a deployment without a leader.
      expect((await follower.inject({ method: 'GET', url: '/metrics' })).body).toContain('optimizer_role{role="follower"} 1');
      expect((await leader.inject({ method: 'GET', url: '/metrics' })).body).toContain('optimizer_role{role="leader"} 1');
    });

    it('behavior: each new cycle of the leader reaches the follower', async () => {
      const cache = await leader.optimizer.service.refresh();
      expect(cache).toBeDefined();
      await until('the follower serves the new cycle', async () => ((await stats(follower)).cache?.cycle === cache?.cycle ? true : undefined));
      expect(JSON.stringify((await optimizedTxids(follower)).receipt)).toBe(JSON.stringify((await optimizedTxids(leader)).receipt));
    });

    it('error: a corrupt shared cache is refused and logged; the previous cache keeps serving', async () => {
      const keys = sharedCacheKeys(REDIS_PREFIX);
      const before = (await stats(follower)).cache?.cycle;
      await client.set(keys.blob, Buffer.from('BTCICACH\u0000\u0000\u0000\u0009garbage!!'));
      await client.set(keys.version, 'someone:999:1');
      await client.publish(keys.channel, 'someone:999:1');
      const s = await until('the follower refuses it', async () => {
        const s = await stats(follower);
        return s.lease.refused ? s : undefined;
      });
      expect(s.lease.refused).toMatch(/someone:999:1 refused/);
      expect(s.cache?.cycle).toBe(before);
      expect((await optimizedTxids(follower)).txids.length).toBeGreaterThan(0);
    });

    it('error: a cache signed with another key is refused (every replica must share RECEIPT_SECRET_KEY)', async () => {
      const keys = sharedCacheKeys(REDIS_PREFIX);
      const { loadReceiptSigner } = await import('../../src/optimizer/cache/receipts.js');
      const other = loadReceiptSigner('77'.repeat(32), dirs[0] ?? tmpdir());
      const served = follower.optimizer.service.cache;
      if (!served) throw new Error('no cache');
      const forged = { ...served, cycle: served.cycle + 50, receipt: other.sign({ ...served.receipt.payload, cycle: served.cycle + 50 }) };
      await client.set(keys.blob, encodeCache(forged, 'mallory'));
      await client.set(keys.version, 'mallory:1:1');
      await client.publish(keys.channel, 'mallory:1:1');
      const s = await until('the follower refuses it', async () => {
        const s = await stats(follower);
        return s.lease.refused?.includes('mallory') ? s : undefined;
      });
      expect(s.lease.refused).toMatch(/not by this replica's receipt key/);
      expect(s.cache?.cycle).toBe(served.cycle);
    });

    it('behavior: a leader cut off from its node hands the lead to a replica that reaches it', async () => {
      const last = (await stats(leader)).cache?.cycle ?? 0;
      leaderNode.down();
      try {
        const s = await until('the other replica leads with a cycle of its own', async () => {
          const s = await stats(follower);
          return s.lease.role === 'leader' && (s.cache?.cycle ?? 0) > last ? s : undefined;
        });
        expect(s.lease.cacheFrom).toBe(s.lease.replicaId);
        expect((await stats(leader)).lease).toMatchObject({ role: 'follower', leaderId: s.lease.replicaId });
      } finally {
        leaderNode.up();
      }
    });

    it('behavior: when the leader shuts down it releases the lease; the other replica leads at once and continues the cycles', async () => {
      // Roles swapped in the test above: the second replica leads now.
      [leader, follower] = [follower, leader];
      // The replica that was cut off can lead again once its node answers.
      await until('the follower reaches its node again', () => (follower.mempool.mirror.lastError === null ? true : undefined));
      const last = (await stats(leader)).cache?.cycle ?? 0;
      const events = new Redis(redis.url);
      try {
        await events.subscribe(sharedCacheKeys(REDIS_PREFIX).channel);
        let released = false;
        events.on('message', (_channel: string, message: string) => (released ||= message === RELEASED_MESSAGE));
        const closeStarted = Date.now();
        const closing = leader.close();
        apps.splice(apps.indexOf(leader), 1);
        await closing;
        await until('the leader says it released the lease', () => (released ? true : undefined));
        const s = await until(
          'the follower leads and publishes a cycle of its own',
          async () => {
            const s = await stats(follower);
            return s.lease.role === 'leader' && (s.cache?.cycle ?? 0) > last ? s : undefined;
          },
          // Before the leader's lease, renewed at most a third of a lease before the close, could have
          // run out: the release is heard at once, no expiry is waited for.
          closeStarted + (2 * LEASE_MS) / 3 - 1000 - Date.now(),
        );
        expect(s.lease).toMatchObject({ role: 'leader', leaderId: s.lease.replicaId, cacheFrom: s.lease.replicaId });
        expect(s.cache?.cycle).toBe(last + 1);
        expect(follower.optimizer.service.history[0]).toMatchObject({ cycle: last + 1 });
      } finally {
        events.disconnect();
      }
    });

    it('behavior: a leader that loses Redis stops its cycles before its lease could have run out, and keeps serving its cache', async () => {
      const before = await stats(follower);
      expect(before.lease.role).toBe('leader');
      await redis.stop();
      const s = await until('the leader steps down', async () => {
        const s = await stats(follower);
        return s.lease.role === 'follower' ? s : undefined;
      });
      // Seen before the expiry of the last renewed lease: no other replica could lead yet.
      expect(Date.now()).toBeLessThan(Date.parse(s.lease.leaseExpiresAt ?? ''));
      expect(s.lease.lastError).toMatch(/lease/);
      expect(follower.optimizer.service.nextRefreshAt).toBeNull();
      expect(s.cache?.cycle).toBe(before.cache?.cycle);
    });
  });
});
