/**
 * The shared cache's wire format on a 150k-tx mempool (issue 16): what the leader pays to encode a
 * published cache, the blob's size, and what a follower pays to decode it — total time and the
 * longest stretch its event loop is blocked (the decode yields between slices of 8k txs). With
 * `redis-server` installed, also the follower's whole path: the blob read from a local Redis
 * (`SharedCacheStore.load`) and decoded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { decodeCache, encodeCache } from '../src/optimizer/leadership/cacheCodec.js';
import { SharedCacheStore, sharedCacheKeys } from '../src/optimizer/leadership/sharedCache.js';
import { redisAvailable, startRedis } from '../test/payments/redisServer.js';
import { OptimizerPool } from '../src/optimizer/full/optimizerPool.js';
import { loadReceiptSigner } from '../src/optimizer/cache/receipts.js';
import { parseCoreMempool } from '../src/optimizer/snapshot/snapshot.js';
import { buildTemplateCache } from '../src/optimizer/cache/templateCache.js';
import { generateMempool, toCoreJson } from './generator.js';
import { median } from './stats.js';

const TX_COUNT = 150_000;
const RUNS = 5;
const r1 = (x: number) => Math.round(x * 10) / 10;

export async function run(): Promise<void> {
  console.log(`\n## cache codec (leader → Redis → follower), ${TX_COUNT.toLocaleString('en-US')} txs\n`);
  const dir = mkdtempSync(join(tmpdir(), 'codec-bench-'));
  const pool = new OptimizerPool(1);
  try {
    const signer = loadReceiptSigner('07'.repeat(32), dir);
    const parsed = parseCoreMempool(JSON.parse(toCoreJson(generateMempool({ txCount: TX_COUNT, seed: 11, profile: 'realistic' }))) as unknown);
    const snapshot = {
      source: 'bench',
      takenAt: Date.now(),
      tipHeight: 900_000,
      tipHash: '00'.repeat(32),
      txids: parsed.txids,
      input: parsed.input,
      totals: { txCount: parsed.txids.length, vsize: 0, weightWu: 0, feeSat: 0 },
    };
    const result = await pool.run(snapshot.input, { maxTxCount: 4000, minFeeRateSatVb: 1, projectedBlocks: 8 });
    const cache = buildTemplateCache({ cycle: 1, now: Date.now(), snapshot, result, nodeBaseline: null, weightLimitWu: 4_000_000, signer });

    const encodeMs: number[] = [];
    const decodeMs: number[] = [];
    const blockedMs: number[] = [];
    let bytes = 0;
    for (let k = 0; k < RUNS; k++) {
      const t0 = performance.now();
      const blob = encodeCache(cache, 'bench');
      encodeMs.push(performance.now() - t0);
      bytes = blob.length;
      const lag = monitorEventLoopDelay({ resolution: 1 });
      lag.enable();
      const t1 = performance.now();
      const decoded = await decodeCache(blob);
      decodeMs.push(performance.now() - t1);
      lag.disable();
      blockedMs.push(lag.max / 1e6);
      if (decoded.cache.receipt.signature !== cache.receipt.signature) throw new Error('round trip changed the receipt');
    }
    const rows: Record<string, Record<string, number>> = {
      [`decode only, median of ${RUNS}`]: { encodeMs: r1(median(encodeMs)), decodeMs: r1(median(decodeMs)), longestEventLoopBlockMs: r1(median(blockedMs)) },
    };
    // What the same machine shows with nothing to do (other processes share the cores).
    const idleBlockedMs: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const lag = monitorEventLoopDelay({ resolution: 1 });
      lag.enable();
      await new Promise((r) => setTimeout(r, median(decodeMs)));
      lag.disable();
      idleBlockedMs.push(lag.max / 1e6);
    }
    rows[`idle, as long as a decode, median of ${RUNS}`] = { encodeMs: Number.NaN, decodeMs: Number.NaN, longestEventLoopBlockMs: r1(median(idleBlockedMs)) };
    if (redisAvailable()) {
      const server = await startRedis();
      const redis = new Redis(server.url);
      try {
        const store = new SharedCacheStore(redis, sharedCacheKeys('bench:'));
        await redis.set(store.keys.blob, encodeCache(cache, 'bench'));
        const loadMs: number[] = [];
        const loadBlockedMs: number[] = [];
        for (let k = 0; k < RUNS; k++) {
          const lag = monitorEventLoopDelay({ resolution: 1 });
          lag.enable();
          const t0 = performance.now();
          const blob = await store.load();
          if (!blob) throw new Error('no blob');
          await decodeCache(blob);
          loadMs.push(performance.now() - t0);
          lag.disable();
          loadBlockedMs.push(lag.max / 1e6);
        }
        rows[`Redis GET + decode, median of ${RUNS}`] = {
          encodeMs: Number.NaN,
          decodeMs: r1(median(loadMs)),
          longestEventLoopBlockMs: r1(median(loadBlockedMs)),
        };
        console.log(`follower from Redis: ${r1(median(loadMs))} ms, event loop blocked at most ${r1(Math.max(...loadBlockedMs))} ms at a stretch`);
      } finally {
        redis.disconnect();
        await server.stop();
      }
    }
    console.table(rows);
    console.log(
      `blocked per run: ${blockedMs.map(r1).join(', ')} ms; blob: ${(bytes / 1e6).toFixed(1)} MB for ${TX_COUNT} txs; follower decode ${r1(median(decodeMs))} ms in all, event loop blocked at most ${r1(Math.max(...blockedMs))} ms at a stretch`,
    );
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
