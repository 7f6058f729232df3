import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_WIRE_MAX_BYTES, CacheDecodeError, decodeCache, encodeCache } from '../../src/optimizer/leadership/cacheCodec.js';
import type { TemplateCache } from '../../src/optimizer/cache/templateCache.js';
import { txChunkFeeRate, txProjectedPlacement } from '../../src/optimizer/cache/templateCache.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
let cache: TemplateCache;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 400, seed: 5 });
  await refresh(world);
  const served = world.app.optimizer.service.cache;
  if (!served) throw new Error('no cache');
  cache = served;
});
afterAll(() => world?.close());

/** The header's JSON, as a mutable object, and a blob rebuilt around a changed one. */
function withHeader(blob: Buffer, change: (header: Record<string, unknown>) => void): Buffer {
  const length = blob.readUInt32LE(8);
  const header = JSON.parse(blob.toString('utf8', 12, 12 + length)) as Record<string, unknown>;
  change(header);
  const json = Buffer.from(JSON.stringify(header));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(json.length);
  return Buffer.concat([blob.subarray(0, 8), size, json, blob.subarray(12 + length)]);
}

describe('optimizer cache codec', () => {
  it('default: a round trip gives the same cache: summaries, receipt, txid lists, per-tx lookups', async () => {
    const { history, baseline } = world.app.optimizer.service;
    const blob = encodeCache(cache, 'leader-1', { history, baseline });
    const { leaderId, leader, cache: back } = await decodeCache(blob);
    expect(leaderId).toBe('leader-1');
    expect(leader).toEqual({ history, baseline });
    expect(JSON.stringify(back.receipt)).toBe(JSON.stringify(cache.receipt));
    expect(back.kind).toBe(cache.kind);
    expect(back.optimized.txids).toEqual(cache.optimized.txids);
    expect(back.baseline.txids).toEqual(cache.baseline.txids);
    expect(back.lookup).toEqual(cache.lookup);
    const { txidSet: _set, txids: _txids, ...optimized } = back.optimized;
    expect(optimized).toEqual({
      txCount: cache.optimized.txCount,
      feeSat: cache.optimized.feeSat,
      weightWu: cache.optimized.weightWu,
      sigopCost: cache.optimized.sigopCost,
    });
    expect(cache.witness?.wtxids).toHaveLength(cache.optimized.txCount);
    expect(back.witness).toEqual(cache.witness);
    for (const key of ['cycle', 'cachedAt', 'height', 'snapshot', 'comparison', 'projectedBlocks', 'clusters', 'upperBound', 'nativeV31', 'nativeV30'] as const)
      expect(back[key], key).toEqual(cache[key]);
    const mempool = [...world.app.mempool.mirror.txs.keys()];
    expect(mempool.length).toBeGreaterThan(100);
    for (const txid of mempool) {
      expect(txChunkFeeRate(back, txid)).toBeDefined();
      expect(txChunkFeeRate(back, txid)).toBe(txChunkFeeRate(cache, txid));
      expect(txProjectedPlacement(back, txid)).toEqual(txProjectedPlacement(cache, txid));
    }
    expect([...back.optimized.txidSet].sort()).toEqual([...cache.optimized.txidSet].sort());
  });

  it('error: a blob that is not ours, truncated, or with bytes after its sections is refused', async () => {
    const blob = encodeCache(cache, 'leader-1');
    await expect(decodeCache(Buffer.from('{"hello":1}'))).rejects.toThrow(CacheDecodeError);
    await expect(decodeCache(blob.subarray(0, blob.length - 1))).rejects.toThrow(/truncated/);
    await expect(decodeCache(Buffer.concat([blob, Buffer.alloc(1)]))).rejects.toThrow(/after the last section/);
    await expect(decodeCache(Buffer.alloc(CACHE_WIRE_MAX_BYTES + 1))).rejects.toThrow(/limit/);
  });

  it('error: a header that fails its schema is refused (external input)', async () => {
    const blob = encodeCache(cache, 'leader-1');
    await expect(decodeCache(withHeader(blob, (h) => (h.cycle = 'seven')))).rejects.toThrow(/header/);
    await expect(decodeCache(withHeader(blob, (h) => delete h.receipt))).rejects.toThrow(/header/);
    // Counts that do not match the sections.
    await expect(decodeCache(withHeader(blob, (h) => ((h.counts as { snapshot: number }).snapshot += 1)))).rejects.toThrow(CacheDecodeError);
  });

  it('error: a commitment that does not match the wtxids on the wire is refused', async () => {
    const blob = encodeCache(cache, 'leader-1');
    const other = `6a24aa21a9ed${'00'.repeat(32)}`;
    await expect(decodeCache(withHeader(blob, (h) => (h.witnessCommitment = other)))).rejects.toThrow(/witness commitment/);
  });

  it('error: a txid list changed on the wire no longer matches the signed receipt', async () => {
    const blob = encodeCache(cache, 'leader-1');
    const length = blob.readUInt32LE(8);
    const n = cache.lookup.chunkFeeRateSatVb.length;
    // The optimized txids follow the lookup keys (2 × u32), chunk rates (f64) and projected blocks (i32).
    const optimizedAt = 12 + length + n * 8 + n * 8 + n * 4;
    const tampered = Buffer.from(blob);
    tampered.writeUInt8(tampered.readUInt8(optimizedAt) ^ 1, optimizedAt);
    await expect(decodeCache(tampered)).rejects.toThrow(/optimized txids do not match the receipt/);
  });

  it('error: out-of-range indices in the lookups are refused', async () => {
    const blob = encodeCache(cache, 'leader-1');
    const length = blob.readUInt32LE(8);
    const n = cache.lookup.chunkFeeRateSatVb.length;
    const tampered = Buffer.from(blob);
    tampered.writeInt32LE(99, 12 + length + n * 8 + n * 8);
    await expect(decodeCache(tampered)).rejects.toThrow(/projected block/);
    // Keys out of order would break the binary search: refused.
    const unordered = Buffer.from(blob);
    unordered.writeUInt32LE(0xffffffff, 12 + length);
    await expect(decodeCache(unordered)).rejects.toThrow(/ascending/);
  });
});
