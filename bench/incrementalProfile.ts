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
 */
import { createRequire } from 'node:module';
import { MAX_BLOCK_WEIGHT_WU } from '../src/bitcoin/consensus.js';
import type { MirrorTx } from '../src/mempool/mirror.js';
import type { OptimizerOptions } from '../src/optimizer/binding/native.js';
import { packBatch } from '../src/optimizer/incremental/incrementalRunner.js';
import { SlotTable } from '../src/optimizer/incremental/incrementalWorker.js';
import { mirrorTx } from '../test/helpers/mirrorTx.js';
import { generateMempool, rng, type SyntheticMempool } from './generator.js';

const TX_COUNT = Number(process.env.TX_COUNT ?? 150_000);
const STEPS = Number(process.env.STEPS ?? 30);
const REPEAT = Number(process.env.REPEAT ?? 3);
const CHANGES = 1_000;
const OPTIONS: OptimizerOptions = {
  weightLimitWu: MAX_BLOCK_WEIGHT_WU,
  maxTxCount: 4_000,
  projectedBlocks: 8,
  threads: Number(process.env.THREADS ?? 1),
};
const r1 = (x: number) => Math.round(x * 10) / 10;

function txsOf(m: SyntheticMempool, prefix: string): MirrorTx[] {
  const { feeSat, weightWu, parentOffsets, parentIndices } = m.input;
  return m.txids.map((txid, i) => {
    const parents: string[] = [];
    for (let k = parentOffsets[i] ?? 0; k < (parentOffsets[i + 1] ?? 0); k++) {
      parents.push(prefix + (m.txids[parentIndices[k] ?? 0] ?? '').slice(prefix.length));
    }
    return mirrorTx(prefix + txid.slice(prefix.length), feeSat[i] ?? 0, weightWu[i] ?? 0, parents);
  });
}

type Phases = Record<string, number>;

/** One replay: per step, the native timings plus the worker's build time. */
function replay(addon: string | undefined): Phases[] {
  const txs = new Map<string, MirrorTx>();
  const children = new Map<string, Set<string>>();
  const link = (tx: MirrorTx) => {
    for (const p of tx.parents) {
      let set = children.get(p);
      if (!set) children.set(p, (set = new Set()));
      set.add(tx.txid);
    }
  };
  const withDescendants = (txid: string, out: Set<string>): Set<string> => {
    if (out.has(txid) || !txs.has(txid)) return out;
    out.add(txid);
    for (const c of children.get(txid) ?? []) withDescendants(c, out);
    return out;
  };
  const first = txsOf(generateMempool({ txCount: TX_COUNT, seed: 11, profile: 'realistic' }), '');
  for (const tx of first) {
    txs.set(tx.txid, tx);
    link(tx);
  }
  const arrivals = txsOf(generateMempool({ txCount: STEPS * CHANGES, seed: 12, profile: 'realistic' }), 'f');
  const rand = rng(5);
  const table = new SlotTable();
  if (addon !== undefined) {
    const alt = createRequire(import.meta.url)(addon) as { IncrementalEngine: new () => unknown };
    (table.engine as unknown as { native: unknown }).native = new alt.IncrementalEngine();
  }
  table.apply('', packBatch(first));
  let last = table.engine.build(OPTIONS, false);
  const out: Phases[] = [];
  let next = 0;
  for (let step = 0; step < STEPS; step++) {
    const added: MirrorTx[] = [];
    const removed = new Set<string>();
    if (step === Math.floor(STEPS / 2)) {
      for (const i of last.optimized.indices) removed.add(table.txid(last.slotOfIndex[i] ?? -1));
    } else {
      const all = [...txs.keys()];
      while (added.length < 500) {
        const tx = arrivals[next++];
        if (!tx) break;
        if (rand() < 0.2) tx.parents = [...tx.parents, all[Math.floor(rand() * all.length)] ?? ''];
        added.push(tx);
      }
      while (removed.size + added.length < CHANGES) {
        const victim = all[Math.floor(rand() * all.length)] ?? '';
        withDescendants(victim, removed);
        if (rand() < 0.4) {
          const tx = arrivals[next++];
          if (!tx) break;
          tx.parents = [...(txs.get(victim)?.parents ?? [])];
          added.push(tx);
        }
      }
    }
    for (const txid of removed) {
      const tx = txs.get(txid);
      if (!tx) continue;
      txs.delete(txid);
      children.delete(txid);
      for (const p of tx.parents) children.get(p)?.delete(txid);
    }
    const batch = new Set(added.map((t) => t.txid));
    for (const tx of added) {
      tx.parents = tx.parents.filter((p) => txs.has(p) || batch.has(p));
      txs.set(tx.txid, tx);
      link(tx);
    }
    table.apply([...removed].join(''), packBatch(added));
    const t = performance.now();
    const c = process.cpuUsage();
    last = table.engine.build(OPTIONS, false);
    const cu = process.cpuUsage(c);
    const ts = last.tailSearch;
    out.push({
      build: performance.now() - t,
      cpu: (cu.user + cu.system) / 1000,
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
