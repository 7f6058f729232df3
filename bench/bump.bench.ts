/**
 * Fee-bump planner benchmark (`npm run bench -- bump`, or `npx tsx bench/bump.bench.ts`).
 *
 * A 150k-transaction synthetic mempool goes through one native cycle (chunk rates and 8 projected
 * blocks, as the optimizer cache holds them). Then plans for 2,000 transactions sampled across
 * it, each from inputs built the way `src/bump/gather.ts` builds them (the transaction, its
 * ancestors, descendants and cluster, chunk rates from the cycle, the projected-block cutoffs):
 * with the v31 diagram check through the native linearizer (what the service runs) and without.
 * Node round trips are not counted: this is the planner's own cost. Prints plans per second and
 * the median / p99 time of one plan, and writes bench/results/bump.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTemplates } from '../src/optimizer/binding/native.js';
import { nativeChunker } from '../src/bump/nativeChunker.js';
import { planBump } from '../src/bump/planner.js';
import type { BumpInputs, PlanTx } from '../src/bump/types.js';
import { generateMempool, rng } from './generator.js';
import { median } from './stats.js';

const TX_COUNT = 150_000;
const PLANS = 2_000;

export async function run(): Promise<void> {
  const m = generateMempool({ txCount: TX_COUNT, seed: 11 });
  const { input, txids } = m;
  const n = txids.length;
  const cycleStart = performance.now();
  const result = buildTemplates(input, { projectedBlocks: 8 });
  const cycleMs = performance.now() - cycleStart;
  const children: number[][] = Array.from({ length: n }, () => []);
  const parents = (i: number): number[] => Array.from(input.parentIndices.subarray(input.parentOffsets[i], input.parentOffsets[i + 1]));
  for (let i = 0; i < n; i++) for (const p of parents(i)) children[p]?.push(i);
  const chunkRate = (i: number) => ((result.txChunkFeeSat[i] ?? 0) * 4) / (result.txChunkWeightWu[i] ?? 1);
  const tx = (i: number): PlanTx => {
    const weightWu = input.weightWu[i] ?? 0;
    return {
      txid: txids[i] ?? '',
      feeSat: input.feeSat[i] ?? 0,
      vsize: Math.ceil(weightWu / 4),
      weightWu,
      sigopCost: 0,
      parents: parents(i).map((p) => txids[p] ?? ''),
      chunkRateSatVb: chunkRate(i),
    };
  };
  const walk = (i: number, next: (j: number) => number[]): number[] => {
    const seen = new Set<number>();
    const stack = [...next(i)];
    while (stack.length) {
      const j = stack.pop() as number;
      if (seen.has(j)) continue;
      seen.add(j);
      stack.push(...next(j));
    }
    return [...seen];
  };
  const blocks = result.projectedBlocks.map((b) => ({ minFeeRateSatVb: b.minFeeRateSatVb, full: b.weightWu >= 3_900_000 }));
  const random = rng(5);
  const sample = Array.from({ length: PLANS }, () => Math.floor(random() * n));
  const inputsOf = (i: number): BumpInputs => {
    const ancestors = walk(i, parents);
    const descendants = walk(i, (j) => children[j] ?? []);
    const cluster = walk(i, (j) => [...parents(j), ...(children[j] ?? [])]);
    if (!cluster.includes(i)) cluster.push(i);
    const me = tx(i);
    return {
      txid: me.txid,
      status: { kind: 'mempool' },
      mempool: {
        tx: { ...me, version: 2, vsizeBip141: me.vsize },
        inputs: [`${'0'.repeat(64)}:0`],
        outputs: [{ n: 0, valueSat: 100_000, scriptType: 'witness_v0_keyhash', address: null, spentBy: null }],
        ancestors: ancestors.map(tx),
        descendants: descendants.map(tx),
        cluster: cluster.map(tx),
        effectiveRate: { satVb: chunkRate(i), source: 'optimizer_chunk' },
      },
      policy: {
        incrementalRelaySatKvb: 100,
        minRelaySatKvb: 100,
        mempoolMinSatKvb: 100,
        clusterCountLimit: 64,
        clusterSizeLimitVb: 101_000,
        generation: 'v31',
      },
      target: { satVb: (blocks[0]?.minFeeRateSatVb ?? 1) * 1.05 + 0.1, source: 'fee_ladder', targetBlocks: 1, derivation: 'bench' },
      projection: { blocks, currentBlock: null },
    };
  };
  const prepared = sample.map(inputsOf);
  const measure = (withDiagram: boolean) => {
    const times: number[] = [];
    const started = performance.now();
    for (const inputs of prepared) {
      const t = performance.now();
      planBump(withDiagram ? { ...inputs, chunker: nativeChunker } : inputs);
      times.push(performance.now() - t);
    }
    const total = performance.now() - started;
    times.sort((a, b) => a - b);
    return {
      perSecond: Math.round((PLANS / total) * 1000),
      medianUs: Math.round(median(times) * 1000),
      p99Us: Math.round((times[Math.floor(PLANS * 0.99)] ?? 0) * 1000),
    };
  };
  measure(true); // warm-up
  const full = measure(true);
  const noDiagram = measure(false);
  const sizes = prepared.map((p) => p.mempool?.cluster.length ?? 1);
  console.log(
    `bump planner on a ${n.toLocaleString('en-US')}-tx mempool (one native cycle ${Math.round(cycleMs)} ms; sampled clusters: median ${median(sizes)}, max ${Math.max(...sizes)} txs)`,
  );
  const results = join(fileURLToPath(new URL('.', import.meta.url)), 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, 'bump.json'),
    JSON.stringify({ txCount: n, plans: PLANS, cycleMs: Math.round(cycleMs), withDiagram: full, withoutDiagram: noDiagram }, null, 2),
  );
  console.table([
    { plan: 'RBF + CPFP + v31 diagram (native linearizer)', plansPerSecond: full.perSecond, medianUs: full.medianUs, p99Us: full.p99Us },
    { plan: 'RBF + CPFP without the diagram check', plansPerSecond: noDiagram.perSecond, medianUs: noDiagram.medianUs, p99Us: noDiagram.p99Us },
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
