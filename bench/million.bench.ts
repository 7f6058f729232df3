/**
 * A million transactions (`npm run bench -- million`, issue 25): the full native cycle on a seeded
 * synthetic 1,000,000-transaction mempool against the same cycle on 150,000 in the same run, as a
 * ratio (goal <= 8x, while the mempool grows 6.7x: nothing quadratic), per phase as well; the
 * process's peak RSS (goal <= 2 GB) and the memory per transaction (the peak's growth over the
 * resident size before the 1M mempool was generated, divided by its size: the input's typed
 * arrays, the generator's JS arrays and the cycle's native state together).
 * Writes bench/results/million.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildTemplates, type OptimizerResult } from '../src/optimizer/binding/native.js';
import { generateMempool } from './generator.js';
import { median } from './stats.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const r1 = (x: number) => Math.round(x * 10) / 10;
const MB = 1024 * 1024;

type Phase = keyof OptimizerResult['timingsMs'];
const PHASES: Phase[] = ['validate', 'clusters', 'linearize', 'chunk', 'baselines', 'optimized', 'bound', 'projected', 'total'];

function cycle(txCount: number, seed: number, runs: number) {
  const m = generateMempool({ txCount, seed, profile: 'realistic' });
  const wall: number[] = [];
  const phases = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<Phase, number[]>;
  let last: OptimizerResult | undefined;
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    last = buildTemplates(m.input);
    wall.push(performance.now() - t);
    for (const p of PHASES) phases[p].push(last.timingsMs[p]);
  }
  return {
    txs: txCount,
    wallMs: median(wall),
    phases: Object.fromEntries(PHASES.map((p) => [p, median(phases[p])])) as Record<Phase, number>,
    fee: last?.optimized.feeSat ?? 0,
    bound: last?.upperBound.feeSat ?? 0,
    clusters: last?.clusters.count ?? 0,
  };
}

export async function run(): Promise<void> {
  console.log('\n## million (full native cycle at 1,000,000 transactions vs 150,000, same run)\n');
  const small = cycle(150_000, 150, 3);
  global.gc?.();
  const before = process.memoryUsage().rss;
  const big = cycle(1_000_000, 1_000, 2);
  const peak = process.resourceUsage().maxRSS * 1024;
  const rows: { phase: string; '150k ms': number; '1M ms': number; ratio: number }[] = PHASES.map((p) => ({
    phase: p,
    '150k ms': r1(small.phases[p]),
    '1M ms': r1(big.phases[p]),
    ratio: r1(big.phases[p] / Math.max(small.phases[p], 1e-3)),
  }));
  rows.push({ phase: 'wall (call)', '150k ms': r1(small.wallMs), '1M ms': r1(big.wallMs), ratio: r1(big.wallMs / small.wallMs) });
  console.table(rows);
  const ratio = big.wallMs / small.wallMs;
  const perTx = (peak - before) / big.txs;
  console.log(
    `1M cycle ${r1(big.wallMs)} ms = ${r1(ratio)}x the 150k cycle (goal <= 8x: ${ratio <= 8 ? 'met' : 'NOT met'}; size ratio 6.7x); ` +
      `peak RSS ${r1(peak / MB)} MB (goal <= 2048: ${peak <= 2048 * MB ? 'met' : 'NOT met'}); ` +
      `memory per transaction ${Math.round(perTx)} bytes (peak growth over ${r1(before / MB)} MB before the 1M mempool); ` +
      `1M: ${big.clusters} clusters, optimized ${big.fee} sat, bound ${big.bound} sat`,
  );
  const dir = join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'million.json'),
    `${JSON.stringify({ at: new Date().toISOString(), small, big, ratio, peakRssMB: peak / MB, bytesPerTx: perTx }, null, 2)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
