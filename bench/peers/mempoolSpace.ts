/**
 * Loads mempool.space's own TypeScript block builders (github.com/mempool/mempool, AGPL-3.0) at run
 * time from a checkout OUTSIDE this repository, for the peers bench. None of their code is copied
 * here: this shim only finds it, gives it the environment it expects (a config file, a worker
 * thread) and converts our typed-array mempool into their input shapes.
 *
 * MEMPOOL_SPACE_DIR: a checkout (a directory holding backend/src) or a bare git directory (e.g. the
 * one the `fetch` tool leaves under /work/.mirror/mempool+mempool/repo), whose HEAD's backend/ is
 * then extracted to a temporary directory. Unset or unusable: `loadMempoolSpace` says why.
 *
 * Their builders:
 * - legacy: backend/src/api/tx-selection-worker.ts, a worker thread (their ancestor-score
 *   `makeBlockTemplates`): the main thread posts the mempool ('set', a Map of compact txs), then
 *   each 'update' recomputes every block and posts them back, as their mempool-blocks.ts does;
 * - cluster: backend/src/cluster-mempool/cluster-mempool.ts, `new ClusterMempool(mempool)`
 *   (clusters, linearization) then `getBlocks(n)` (their cluster-mempool block builder).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

import type { OptimizerInput } from '../../src/optimizer/binding/native.js';
import { at } from '../../src/util/at.js';

export interface MempoolSpace {
  /** Where their backend/src is. */
  src: string;
  /** Their commit, when known. */
  commit: string;
  /** Remove the temporary extraction (if any) and stop workers. */
  close(): Promise<void>;
  legacy(input: OptimizerInput): Promise<LegacyBuilder>;
  cluster(input: OptimizerInput, txids: string[]): Promise<ClusterBuilder>;
}

export interface LegacyBuilder {
  /** One recomputation of every projected block (an empty 'update' round trip). */
  update(): Promise<{ ms: number; blocks: number[][] }>;
  close(): Promise<void>;
}

export interface ClusterBuilder {
  /** Build the cluster mempool from scratch (clusters + linearizations). */
  build(): { ms: number };
  /** Their projected blocks from the built state. */
  getBlocks(n: number): { ms: number; blocks: { txids: string[] }[] };
  /**
   * One mempool change on the built state, as their mempool.ts applies it: the mempool object
   * updated first (added in, removed out), then `applyMempoolChange({ added, removed })`. Removed
   * txids not in their mempool are ignored. Timed: their `applyMempoolChange` only.
   */
  change(added: readonly PeerTx[], removed: readonly string[]): { ms: number };
}

/** A transaction to add to their mempool: parents by txid (in their mempool or earlier in the same batch). */
export interface PeerTx {
  txid: string;
  feeSat: number;
  weightWu: number;
  sigopCost: number;
  parents: readonly string[];
}

type Loaded = { ok: true; ms: MempoolSpace } | { ok: false; why: string };

/** Sigop-adjusted vsize as they compute it (transaction-utils.ts). */
const adjustedVsize = (weight: number, sigops: number) => Math.max(weight / 4, sigops * 5);

export async function loadMempoolSpace(dir = process.env.MEMPOOL_SPACE_DIR): Promise<Loaded> {
  if (!dir) return { ok: false, why: 'MEMPOOL_SPACE_DIR is not set (a checkout of github.com/mempool/mempool, or its git directory)' };
  let root = dir;
  let tmp: string | undefined;
  let commit = 'unknown';
  if (!existsSync(join(dir, 'backend/src'))) {
    if (!existsSync(join(dir, 'HEAD')) || !existsSync(join(dir, 'objects'))) return { ok: false, why: `${dir} holds neither backend/src nor a git directory` };
    tmp = mkdtempSync(join(tmpdir(), 'mempool-space-'));
    try {
      const tar = execFileSync('git', ['--git-dir', dir, 'archive', 'HEAD', 'backend/src', 'backend/package.json'], { maxBuffer: 1 << 30 });
      execFileSync('tar', ['-x', '-C', tmp], { input: tar });
      commit = execFileSync('git', ['--git-dir', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      return { ok: false, why: `cannot extract backend/ from ${dir}: ${(e as Error).message}` };
    }
    root = tmp;
  } else {
    try {
      commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();
    } catch {
      // a plain copy: no commit to report
    }
  }
  const src = join(root, 'backend/src');
  for (const f of ['api/tx-selection-worker.ts', 'cluster-mempool/cluster-mempool.ts']) {
    if (!existsSync(join(src, f))) return { ok: false, why: `${join(src, f)} is missing (a different mempool.space version?)` };
  }
  // Their config.ts requires a JSON file; defaults fill in the rest. Their logger stays quiet at its default level.
  const configDir = mkdtempSync(join(tmpdir(), 'mempool-space-config-'));
  const configFile = join(configDir, 'mempool-config.json');
  writeFileSync(configFile, JSON.stringify({ MEMPOOL: { NETWORK: 'mainnet' } }));
  process.env.MEMPOOL_CONFIG_FILE = configFile;
  const workers = new Set<Worker>();

  const ms: MempoolSpace = {
    src,
    commit,
    async close() {
      await Promise.all([...workers].map((w) => w.terminate()));
      rmSync(configDir, { recursive: true, force: true });
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    },
    async legacy(input) {
      const n = input.feeSat.length;
      const mempool = new Map<
        number,
        { uid: number; fee: number; weight: number; sigops: number; feePerVsize: number; effectiveFeePerVsize: number; inputs: number[] }
      >();
      for (let i = 0; i < n; i++) {
        const sigops = input.sigopCost?.[i] ?? 0;
        const vsize = adjustedVsize(at(input.weightWu, i), sigops);
        const fee = at(input.feeSat, i);
        const inputs = Array.from(input.parentIndices.subarray(at(input.parentOffsets, i), at(input.parentOffsets, i + 1)));
        mempool.set(i, { uid: i, fee, weight: vsize * 4, sigops, feePerVsize: fee / vsize, effectiveFeePerVsize: fee / vsize, inputs });
      }
      // A worker cannot start from a .ts file: a two-line bootstrap registers tsx, then loads theirs.
      const boot =
        `require(${JSON.stringify(fileURLToPath(import.meta.resolve('tsx/cjs/api')))}).register();` +
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(join(src, 'api/tx-selection-worker.ts')).href)}); });`;
      const worker = new Worker(boot, { eval: true, env: { ...process.env, MEMPOOL_CONFIG_FILE: configFile } });
      workers.add(worker);
      const reply = () =>
        new Promise<{ blocks: number[][] }>((resolve, reject) => {
          const onError = (e: Error) => reject(e);
          worker.once('error', onError);
          worker.once('message', (m: { blocks: number[][] }) => {
            worker.off('error', onError);
            resolve(m);
          });
        });
      const first = reply();
      worker.postMessage({ type: 'set', mempool });
      await first;
      return {
        async update() {
          const t = performance.now();
          const r = reply();
          worker.postMessage({ type: 'update', added: [], removed: [] });
          const { blocks } = await r;
          return { ms: performance.now() - t, blocks };
        },
        async close() {
          workers.delete(worker);
          await worker.terminate();
        },
      };
    },
    async cluster(input, txids) {
      const mod = (await import(pathToFileURL(join(src, 'cluster-mempool/cluster-mempool.ts')).href)) as {
        ClusterMempool?: new (mempool: Record<string, unknown>) => { getBlocks(n: number): { txids?: string[]; transactions?: string[] }[] };
        default?: { ClusterMempool?: unknown };
      };
      const Ctor = (mod.ClusterMempool ?? mod.default?.ClusterMempool) as
        | (new (mempool: Record<string, unknown>) => {
            getBlocks(n: number): { txids?: string[]; transactions?: string[] }[];
            applyMempoolChange(diff: { added: unknown[]; removed: unknown[]; accelerations: Record<string, never> }): void;
          })
        | undefined;
      if (!Ctor) throw new Error('cluster-mempool.ts exports no ClusterMempool');
      const n = input.feeSat.length;
      // Their transaction shape, as far as the cluster mempool reads it: txid, fee, weight, sigops,
      // vsizes, and vin (one input per in-mempool parent; each edge its own outpoint).
      const nextVout = new Map<string, number>();
      let rootVout = 0;
      const theirTx = (txid: string, fee: number, weight: number, sigops: number, parents: readonly string[]) => {
        const vsize = weight / 4;
        const adj = adjustedVsize(weight, sigops);
        const vin = parents.length
          ? parents.map((p) => {
              const vout = nextVout.get(p) ?? 0;
              nextVout.set(p, vout + 1);
              return { txid: p, vout, is_coinbase: false };
            })
          : [{ txid: '0'.repeat(64), vout: rootVout++, is_coinbase: false }];
        return {
          txid,
          fee,
          weight,
          sigops,
          vsize,
          adjustedVsize: adj,
          feePerVsize: fee / vsize,
          adjustedFeePerVsize: fee / adj,
          effectiveFeePerVsize: fee / adj,
          vin,
          vout: [],
          status: { confirmed: false },
          order: 0,
        };
      };
      const mempool: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const parents = Array.from(input.parentIndices.subarray(at(input.parentOffsets, i), at(input.parentOffsets, i + 1)), (p) => at(txids, p));
        mempool[at(txids, i)] = theirTx(at(txids, i), at(input.feeSat, i), at(input.weightWu, i), input.sigopCost?.[i] ?? 0, parents);
      }
      let state: InstanceType<typeof Ctor> | undefined;
      return {
        build() {
          const t = performance.now();
          state = new Ctor(mempool);
          return { ms: performance.now() - t };
        },
        getBlocks(count) {
          if (!state) throw new Error('build() first');
          const t = performance.now();
          const blocks = state.getBlocks(count);
          return { ms: performance.now() - t, blocks: blocks.map((b) => ({ txids: b.txids ?? b.transactions ?? [] })) };
        },
        change(added, removed) {
          if (!state) throw new Error('build() first');
          const gone: unknown[] = [];
          for (const txid of removed) {
            const tx = mempool[txid];
            if (tx === undefined) continue;
            gone.push(tx);
            delete mempool[txid];
          }
          const fresh = added.map((tx) => theirTx(tx.txid, tx.feeSat, tx.weightWu, tx.sigopCost, tx.parents));
          for (const tx of fresh) mempool[tx.txid] = tx;
          const t = performance.now();
          state.applyMempoolChange({ added: fresh, removed: gone, accelerations: {} });
          return { ms: performance.now() - t };
        },
      };
    },
  };
  return { ok: true, ms };
}
