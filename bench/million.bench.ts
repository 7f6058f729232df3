/**
 * A million transactions (`npm run bench -- million`, issue 25): the full native cycle on a seeded
 * synthetic 1,000,000-transaction mempool against the same cycle on 150,000 in the same run, as a
 * ratio of medians over interleaved rounds (goal <= 8x, while the mempool grows 6.7x: nothing
 * quadratic; CPU time too, less moved by load from elsewhere), per phase as well (each phase
 * checked against the same 8x), and from 500k to 1M (the size doubles: linear is 2x, quadratic 4x);
 * the whole process's peak RSS (goal <= 2 GB: this process, with the 150k and 500k mempools and the
 * 1M one generated and cycled in one run) and the memory per
 * transaction, split in two: the generator's (the bytes of the typed arrays it keeps, and its growth
 * of the resident size) and the cycle's (the peak's growth over the resident size once the 1M
 * mempool is generated, divided by its size: the addon's copy of the input and its own state), and
 * the minor page faults per cycle (memory mapped afresh instead of reused: native/malloc_tuning.h).
 * Every size is measured warm, as a service runs its cycle: WARMUP_ROUNDS interleaved rounds first
 * (default 20), printed apart with their page faults. A fresh process's heap grows for its first
 * cycles at 1M (each result's typed arrays live until V8 collects them, and the next cycle's tables
 * are carved from fresh pages, 12-17 us each on the build VM), settling after 10-17 rounds.
 * Writes bench/results/million.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildTemplates, type OptimizerResult } from '../src/optimizer/binding/native.js';
import { intFromEnv } from './env.js';
import { generateMempool, type SyntheticMempool } from './generator.js';
import { median } from './stats.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const r1 = (x: number) => Math.round(x * 10) / 10;
const MB = 1024 * 1024;
const GOAL_RATIO = 8;
const ROUNDS = 5;
/** Interleaved rounds before the measured ones (not counted; printed apart). */
const WARMUP_ROUNDS = intFromEnv('WARMUP_ROUNDS', 20, 0);

type Phase = keyof OptimizerResult['timingsMs'];
const PHASES: Phase[] = ['validate', 'clusters', 'linearize', 'chunk', 'baselines', 'optimized', 'bound', 'projected', 'total'];

/** The process's peak resident size so far (getrusage), bytes. */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

/** Bytes the generated mempool holds in typed arrays and the txid buffer. */
function heldBytes(m: SyntheticMempool): number {
  const { feeSat, weightWu, sigopCost, parentOffsets, parentIndices, txidRank } = m.input;
  return [feeSat, weightWu, sigopCost, parentOffsets, parentIndices, txidRank, m.time, m.txidBytes].reduce((s, a) => s + (a?.byteLength ?? 0), 0);
}

function generate(txCount: number, seed: number) {
  const rssBefore = process.memoryUsage().rss;
  const t = performance.now();
  const m = generateMempool({ txCount, seed, profile: 'realistic' });
  const ms = performance.now() - t;
  return { m, ms, rssBefore, rssAfter: process.memoryUsage().rss, peakAfter: peakRss() };
}

/** Runs of one size's cycle, collected across interleaved rounds. */
class Cycles {
  readonly wall: number[] = [];
  readonly cpu: number[] = [];
  /** Minor page faults of the process during each run: memory mapped afresh instead of reused. */
  readonly faults: number[] = [];
  readonly phases = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<Phase, number[]>;
  last: OptimizerResult | undefined;
  constructor(readonly m: SyntheticMempool) {}

  /** The runs so far become the warm-up's (not counted): their wall times and page faults. */
  endWarmUp(): { wall: number[]; faults: number[] } {
    const warm = { wall: [...this.wall], faults: [...this.faults] };
    this.wall.length = this.cpu.length = this.faults.length = 0;
    for (const p of PHASES) this.phases[p].length = 0;
    return warm;
  }

  runOnce(): void {
    const cpu = process.cpuUsage();
    const faults = process.resourceUsage().minorPageFault;
    const t = performance.now();
    this.last = buildTemplates(this.m.input);
    this.wall.push(performance.now() - t);
    const used = process.cpuUsage(cpu);
    this.cpu.push((used.user + used.system) / 1000);
    this.faults.push(process.resourceUsage().minorPageFault - faults);
    for (const p of PHASES) this.phases[p].push(this.last.timingsMs[p]);
  }

  summary() {
    return {
      txs: this.m.txCount,
      runs: this.wall.length,
      wallMs: median(this.wall),
      cpuMs: median(this.cpu),
      pageFaults: median(this.faults),
      phases: Object.fromEntries(PHASES.map((p) => [p, median(this.phases[p])])) as Record<Phase, number>,
      fee: this.last?.optimized.feeSat ?? 0,
      bound: this.last?.upperBound.feeSat ?? 0,
      clusters: this.last?.clusters.count ?? 0,
    };
  }
}

/** The warm-up rounds, not counted: per size its cycles' wall times and page faults, in order, and
 *  the 1M cycle's ratio to the 150k one in the warm-up's last five rounds. */
function printWarmUp(warm: { wall: number[]; faults: number[] }[], sizes: number[]): void {
  if (WARMUP_ROUNDS === 0) {
    console.log('no warm-up rounds (WARMUP_ROUNDS=0): the measured rounds include the heap growing (page faults)');
    return;
  }
  console.log(
    `warm-up: ${WARMUP_ROUNDS} interleaved rounds, not counted (wall ms / minor page faults per cycle, in order; 150k's first ran before the others were generated):`,
  );
  warm.forEach((w, i) => {
    const runs = w.wall.map((ms, k) => `${r1(ms)}/${w.faults[k] ?? 0}`);
    console.log(`  ${(sizes[i] ?? 0).toLocaleString('en-US')}: ${runs.join(' ')}`);
  });
  const [small, , big] = warm;
  if (small && big) {
    const tail = (a: number[]) => median(a.slice(-5));
    console.log(`  1M / 150k over the warm-up's last five rounds: ${r1(tail(big.wall) / tail(small.wall))}x`);
  }
}

export async function run(): Promise<void> {
  console.log('\n## million (full native cycle at 1,000,000 transactions vs 150,000 and 500,000, same run)\n');
  const smallRuns = new Cycles(generate(150_000, 150).m);
  smallRuns.runOnce();
  const gen = generate(1_000_000, 1_000);
  const bigRuns = new Cycles(gen.m);
  // A midpoint: from 500k to 1M the size doubles, so a quadratic phase would take 4x, a linear one 2x.
  const midRuns = new Cycles(generate(500_000, 500).m);
  // (The 150k first cycle's freed memory, kept by the addon's allocator for the next cycle, is in it.)
  const rssBeforeCycles = process.memoryUsage().rss;
  // Interleaved rounds, so a burst of load from elsewhere on the machine weighs on every size alike;
  // the warm-up's too, so the heap settles in the pattern that is measured.
  const all = [smallRuns, midRuns, bigRuns];
  for (let round = 0; round < WARMUP_ROUNDS; round++) for (const c of all) c.runOnce();
  const warm = all.map((c) => c.endWarmUp());
  for (let round = 0; round < ROUNDS; round++) for (const c of all) c.runOnce();
  const peak = peakRss();
  const [small, mid, big] = [smallRuns.summary(), midRuns.summary(), bigRuns.summary()];
  const n = big.txs;
  const row = (phase: string, s: number, m: number, b: number) => ({
    phase,
    '150k ms': r1(s),
    '500k ms': r1(m),
    '1M ms': r1(b),
    ratio: r1(b / Math.max(s, 1e-3)),
    '1M/500k': r1(b / Math.max(m, 1e-3)),
  });
  const rows = PHASES.map((p) => row(p, small.phases[p], mid.phases[p], big.phases[p]));
  rows.push(row('wall (call)', small.wallMs, mid.wallMs, big.wallMs));
  rows.push(row('cpu (call)', small.cpuMs, mid.cpuMs, big.cpuMs));
  printWarmUp(warm, [small.txs, mid.txs, big.txs]);
  console.log(`measured: ${ROUNDS} interleaved rounds after the warm-up (medians)`);
  console.table(rows);
  const ratio = big.wallMs / small.wallMs;
  const over = rows.filter((r) => r.ratio > GOAL_RATIO).map((r) => r.phase);
  // Phases of a few ms move by more than their growth from run to run: left out of the steepest.
  const steepest = rows.filter((r) => r['500k ms'] >= 10).reduce((a, r) => (r['1M/500k'] > a['1M/500k'] ? r : a), row('none', 0, 1, 0));
  const generator = { ms: gen.ms, heldBytesPerTx: heldBytes(gen.m) / n, rssBytesPerTx: (gen.rssAfter - gen.rssBefore) / n };
  // The 1M cycle's peak over the resident size the cycles started from; valid when the peak was set by a cycle.
  const cyclePeakSet = peak > gen.peakAfter;
  const cycleBytesPerTx = (peak - rssBeforeCycles) / n;
  console.log(
    `1M cycle ${r1(big.wallMs)} ms = ${r1(ratio)}x the 150k cycle (goal <= ${GOAL_RATIO}x: ${ratio <= GOAL_RATIO ? 'met' : 'NOT met'}; size ratio 6.7x; ` +
      `medians of ${ROUNDS} interleaved rounds; CPU time ${r1(big.cpuMs / small.cpuMs)}x); ` +
      `phases above ${GOAL_RATIO}x: ${over.length ? over.join(', ') : 'none'}; ` +
      `500k -> 1M (size 2x, quadratic 4x): total ${r1(big.phases.total / mid.phases.total)}x, CPU ${r1(big.cpuMs / mid.cpuMs)}x, ` +
      `most ${steepest['1M/500k']}x (${steepest.phase}, of the phases over 10 ms at 500k); ` +
      `peak RSS ${r1(peak / MB)} MB (whole process: 150k, 500k and 1M generated and cycled; goal <= 2048: ${peak <= 2048 * MB ? 'met' : 'NOT met'}); ` +
      `memory per transaction: generator ${Math.round(generator.heldBytesPerTx)} bytes held (typed arrays + txid bytes), ` +
      `RSS +${Math.round(generator.rssBytesPerTx)} bytes (${r1(gen.rssBefore / MB)} -> ${r1(gen.rssAfter / MB)} MB, ${Math.round(gen.ms)} ms); ` +
      `cycle ${Math.round(cycleBytesPerTx)} bytes (peak growth over ${r1(rssBeforeCycles / MB)} MB${cyclePeakSet ? '' : '; the peak was NOT set by the cycle'}); ` +
      `minor page faults per measured cycle (median) 150k ${small.pageFaults}, 500k ${mid.pageFaults}, 1M ${big.pageFaults}; ` +
      `1M: ${big.clusters} clusters, optimized ${big.fee} sat, bound ${big.bound} sat`,
  );
  const dir = join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'million.json'),
    `${JSON.stringify({ at: new Date().toISOString(), warmupRounds: WARMUP_ROUNDS, warmup: warm, small, mid, big, ratio, phasesAboveGoal: over, peakRssMB: peak / MB, generator, cycleBytesPerTx }, null, 2)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
