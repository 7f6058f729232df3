/**
 * One incremental step end to end, part by part, without the service's scheduling around it: the
 * steps of incremental.bench.ts (bench/incrementalSteps.ts) replayed through the same code the
 * service runs: the main thread's pack (packBatch), the request's structured clone (what
 * postMessage does), the worker's WorkerState.handle (apply, native build, shaping the answer),
 * the reply's clone (lookups transferred), and publishCache (summaries, comparison, witness,
 * digests, the signature). Each part's minimum over REPEAT replays per step, in ms; the native
 * build's own phases are in incrementalProfile.ts.
 *
 *   npx tsx bench/incrementalStepProfile.ts        (REPEAT=3 STEPS=30 TX_COUNT=150000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_BLOCK_WEIGHT_WU } from '../src/bitcoin/consensus.js';
import type { MirrorTx } from '../src/mempool/mirror.js';
import type { OptimizerOptions } from '../src/optimizer/binding/native.js';
import { publishCache, type TemplateCache } from '../src/optimizer/cache/templateCache.js';
import { loadReceiptSigner } from '../src/optimizer/cache/receipts.js';
import { packBatch } from '../src/optimizer/incremental/incrementalRunner.js';
import { WorkerState, type StepOutput, type StepRequest } from '../src/optimizer/incremental/incrementalWorker.js';
import { replaySteps } from './incrementalSteps.js';

const TX_COUNT = Number(process.env.TX_COUNT ?? 150_000);
const STEPS = Number(process.env.STEPS ?? 30);
const REPEAT = Number(process.env.REPEAT ?? 3);
const OPTIONS: OptimizerOptions = { weightLimitWu: MAX_BLOCK_WEIGHT_WU, maxTxCount: 4_000, projectedBlocks: 8, threads: 1 };
const r1 = (x: number) => Math.round(x * 10) / 10;
const dir = mkdtempSync(join(tmpdir(), 'incremental-step-profile-'));
const signer = loadReceiptSigner('07'.repeat(32), dir);

type Parts = Record<string, number>;

function request(id: number, reset: boolean, added: readonly MirrorTx[], removed: Iterable<string>): StepRequest {
  return { id, reset, upserts: packBatch(added), removed: [...removed].join(''), options: OPTIONS, full: false, check: false, build: true };
}

function replay(): Parts[] {
  const { first, next } = replaySteps(TX_COUNT, STEPS);
  const wtxids = new Map<string, string>();
  for (const tx of first) wtxids.set(tx.txid, tx.wtxid ?? tx.txid);
  const state = new WorkerState();
  const published = (output: StepOutput, cycle: number): TemplateCache =>
    publishCache({
      cycle,
      now: Date.now(),
      output: {
        ...output,
        kind: 'incremental',
        snapshot: { ...output.totals, takenAt: 0, source: 'mempool_mirror' },
        tipHeight: 900_000,
        tipHash: '00'.repeat(32),
        warm: null,
      },
      nodeBaseline: null,
      weightLimitWu: MAX_BLOCK_WEIGHT_WU,
      maxTxCount: OPTIONS.maxTxCount,
      signer,
      wtxidOf: (txid) => wtxids.get(txid),
    });
  const firstReply = state.handle(request(1, true, first, []));
  if (!firstReply?.ok) throw new Error('first build failed');
  let cache = published(firstReply.output, 1);
  const out: Parts[] = [];
  for (let step = 0; ; step++) {
    const change = next(() => cache.optimized.txids);
    if (!change) break;
    for (const tx of change.added) wtxids.set(tx.txid, tx.wtxid ?? tx.txid);
    const t0 = performance.now();
    const req = request(step + 2, false, change.added, change.removed);
    const t1 = performance.now();
    const sent = structuredClone(req);
    const t2 = performance.now();
    const reply = state.handle(sent);
    const t3 = performance.now();
    if (!reply?.ok) throw new Error(`step ${step} failed`);
    const { keys, chunkFeeRateSatVb, projectedBlock } = reply.output.lookup;
    const got = structuredClone(reply.output, { transfer: [keys.buffer, chunkFeeRateSatVb.buffer, projectedBlock.buffer] as ArrayBuffer[] });
    const t4 = performance.now();
    cache = published(got, step + 2);
    const t5 = performance.now();
    for (const txid of change.removed) wtxids.delete(txid);
    const e = reply.output.engine;
    out.push({
      total: t5 - t0,
      pack: t1 - t0,
      cloneIn: t2 - t1,
      apply: e.applyMs,
      build: e.buildMs,
      native: reply.output.timingsMs.total,
      finish: e.finishMs,
      marshal: e.marshalMs,
      shape: t3 - t2 - e.applyMs - e.buildMs,
      cloneOut: t4 - t3,
      publish: t5 - t4,
      js: t5 - t0 - reply.output.timingsMs.total,
    });
  }
  return out;
}

const runs: Parts[][] = [];
for (let k = 0; k < REPEAT; k++) runs.push(replay());
rmSync(dir, { recursive: true, force: true });
const rows = (runs[0] ?? []).map((row, step) =>
  Object.fromEntries(Object.keys(row).map((k) => [k, r1(Math.min(...runs.map((run) => run[step]?.[k] ?? NaN)))])),
);
console.log(
  `\nincremental step, service code without the service: ${TX_COUNT} txs, ${STEPS} steps; each part's minimum over ${REPEAT} replays, ms (js = total − native)`,
);
console.table(rows);
for (const k of Object.keys(rows[0] ?? {})) {
  const xs = rows.map((r) => r[k] ?? NaN).sort((a, b) => a - b);
  console.log(
    `${k}: p50 ${xs[Math.floor(xs.length / 2)]}, p99 ${xs[Math.min(xs.length - 1, Math.floor(0.99 * xs.length))]}, sum ${r1(xs.reduce((a, b) => a + b, 0))}`,
  );
}
