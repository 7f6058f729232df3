/**
 * The incremental engine's native phases per step, without the service around it: the steps of
 * incremental.bench.ts (same seeds: 150k transactions, 1,000 changes per step, one a mined block)
 * replayed on the worker's own table (SlotTable) REPEAT times from the same first state, each
 * phase's minimum over the repeats printed per step. On a shared machine the minimum is the
 * step's own work; a step slow in every repeat is slow by itself (what to fix), a step slow in one
 * repeat was preempted. Single-threaded by default (THREADS=2 for the service's setting).
 *
 *   npx tsx bench/incrementalProfile.ts            (REPEAT=3 STEPS=30 TX_COUNT=150000 THREADS=1)
 *
 * ADDON=a.node[,b.node]: the engine of those builds instead of build/ (one replay each, in turn,
 * per repeat: an A/B under the same load). `cpu` is the build's process CPU time (threads 1).
 * FULL_AT=k: a full build (the service's periodic check) before step k. MARK=1: each step's start
 * and end on stderr in CLOCK_MONOTONIC ns, to cut `perf record -k CLOCK_MONOTONIC` with
 * `perf report --time start,end`.
 */
import { createRequire } from 'node:module';
import { MAX_BLOCK_WEIGHT_WU } from '../src/bitcoin/consensus.js';
import type { OptimizerOptions } from '../src/optimizer/binding/native.js';
import { packBatch } from '../src/optimizer/incremental/incrementalRunner.js';
import { SlotTable } from '../src/optimizer/incremental/incrementalWorker.js';
import { CHANGES, replaySteps } from './incrementalSteps.js';

const TX_COUNT = Number(process.env.TX_COUNT ?? 150_000);
const STEPS = Number(process.env.STEPS ?? 30);
const REPEAT = Number(process.env.REPEAT ?? 3);
const FULL_AT = Number(process.env.FULL_AT ?? -1);
const OPTIONS: OptimizerOptions = {
  weightLimitWu: MAX_BLOCK_WEIGHT_WU,
  maxTxCount: 4_000,
  projectedBlocks: 8,
  threads: Number(process.env.THREADS ?? 1),
};
const r1 = (x: number) => Math.round(x * 10) / 10;

type Phases = Record<string, number>;

/** One replay: per step, the native timings plus the worker's build time. */
function replay(addon: string | undefined): Phases[] {
  const { first, next } = replaySteps(TX_COUNT, STEPS);
  const table = new SlotTable();
  if (addon !== undefined) {
    const alt = createRequire(import.meta.url)(addon) as { IncrementalEngine: new () => unknown };
    (table.engine as unknown as { native: unknown }).native = new alt.IncrementalEngine();
  }
  table.apply('', packBatch(first));
  let last = table.engine.build(OPTIONS, false);
  const out: Phases[] = [];
  for (let step = 0; ; step++) {
    if (step === FULL_AT) last = table.engine.build(OPTIONS, true);
    const change = next(() => Array.from(last.optimized.indices, (i) => table.txid(last.slotOfIndex[i] ?? -1)));
    if (!change) break;
    const { added, removed } = change;
    table.apply([...removed].join(''), packBatch(added));
    if (process.env.MARK) console.error(`step ${out.length} start ${process.hrtime.bigint()}`);
    const t = performance.now();
    const c = process.cpuUsage();
    const faults = process.resourceUsage().minorPageFault;
    last = table.engine.build(OPTIONS, false);
    const cu = process.cpuUsage(c);
    if (process.env.MARK) console.error(`step ${out.length} end ${process.hrtime.bigint()}`);
    const faulted = process.resourceUsage().minorPageFault - faults;
    const ts = last.tailSearch;
    out.push({
      build: performance.now() - t,
      cpu: (cu.user + cu.system) / 1000,
      faults: faulted,
      ...last.timingsMs,
      dirty: last.dirtySlots,
      kept: last.keptChunks,
      nodes: ts.nodes,
      window: ts.windowChunks,
      complete: ts.complete ? 1 : 0,
      improved: ts.improvedSat,
    });
  }
  return out;
}

const addons: Array<string | undefined> = process.env.ADDON ? process.env.ADDON.split(',') : [undefined];
const runs = addons.map(() => [] as Phases[][]);
for (let k = 0; k < REPEAT; k++) addons.forEach((a, j) => runs[j]?.push(replay(a)));
addons.forEach((addon, j) => {
  const mine = runs[j] ?? [];
  const rows = (mine[0] ?? []).map((row, step) =>
    Object.fromEntries(Object.keys(row).map((k) => [k, r1(Math.min(...mine.map((run) => run[step]?.[k] ?? NaN)))])),
  );
  console.log(
    `\n${addon ?? 'build/'}: incremental engine, ${TX_COUNT} txs, ${CHANGES} changes per step, threads ${OPTIONS.threads}: each phase's minimum over ${REPEAT} replays, ms`,
  );
  console.table(rows);
  const col = (k: string) => rows.map((r) => r[k] ?? NaN).sort((a, b) => a - b);
  for (const k of ['build', 'cpu', 'total', 'clusters', 'linearize', 'chunk', 'optimized', 'bound', 'projected']) {
    const xs = col(k);
    const sum = xs.reduce((a, b) => a + b, 0);
    console.log(`${k}: p50 ${xs[Math.floor(xs.length / 2)]}, max ${xs[xs.length - 1]}, sum ${r1(sum)}`);
  }
});
