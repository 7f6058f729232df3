/**
 * The shared cache's wire format on a 150k-tx mempool (issue 16): what the leader pays to encode a
 * published cache, the blob's size, and what a follower pays to decode it — total time and the
 * longest stretch its event loop is blocked (the decode yields between slices of 8k txs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { decodeCache, encodeCache } from '../src/optimizer/cacheCodec.js';
import { OptimizerPool } from '../src/optimizer/optimizerPool.js';
import { loadReceiptSigner } from '../src/optimizer/receipts.js';
import { parseCoreMempool } from '../src/optimizer/snapshot.js';
import { buildTemplateCache } from '../src/optimizer/templateCache.js';
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
    console.table({
      [`median of ${RUNS} (ms)`]: { encodeMs: r1(median(encodeMs)), decodeMs: r1(median(decodeMs)), longestEventLoopBlockMs: r1(median(blockedMs)) },
    });
    console.log(
      `blocked per run: ${blockedMs.map(r1).join(', ')} ms; blob: ${(bytes / 1e6).toFixed(1)} MB for ${TX_COUNT} txs; follower decode ${r1(median(decodeMs))} ms in all, event loop blocked at most ${r1(Math.max(...blockedMs))} ms at a stretch`,
    );
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
