/**
 * Seeded synthetic mempool generator for benchmarks, tests and `btc-template generate`.
 *
 * The mix follows what a v31 mempool holds: mostly singletons, chains up to 25 deep, CPFP
 * packages (cheap parents, rich child), batch payouts (one parent, many children, some spent
 * again), consolidations (many parents, one child) and random DAG clusters up to 64 txs. Fee
 * rates are log-normal (median ~6 sat/vB, clamped to 1..500), weights are a mix of common
 * transaction shapes (P2WPKH/P2TR spends ~440-700 WU, legacy ~900 WU, larger batches and
 * consolidations up to 100k WU). Same seed, same mempool.
 *
 * Profiles (share of transactions by cluster kind):
 * - 'realistic': ~65 % singletons, 12 % chains, 8 % CPFP, 7 % batches, 4 % consolidations,
 *   4 % random DAGs (research/linearization.md §2: ~70 % of mempool txs are singletons).
 * - 'cluster-heavy': every cluster kind equally likely per cluster, so only ~9 % of the
 *   transactions are singletons and large clusters dominate: a stress case for linearization.
 */
import { TXID_BYTES, txidRanksFromBytes } from '../../bitcoin/txidBytesOrder.js';
import { at } from '../../util/at.js';
import { mulberry32 } from '../../util/mulberry32.js';
import type { OptimizerInput } from '../binding/native.js';
import { ClusterBuilder, buildClusters, type Profile } from './syntheticClusters.js';

export interface GeneratorOptions {
  txCount: number;
  seed?: number;
  /** Share of transactions with a sigop cost large enough to make Core size them by sigops. @default 0 */
  sigopHeavyShare?: number;
  /**
   * Share of transactions that are 2023-style "stamps": one P2WPKH input, 2-12 bare 1-of-3
   * multisig outputs and a change output, with their real sigop cost (legacy counting of an
   * output's OP_CHECKMULTISIG is 20 sigops, x4 = 80 sigop cost each) so Core's sigop-adjusted
   * size (20 x sigop cost) is ~3.5x their real weight. Their fee pays the real weight.
   * @default 0
   */
  bareMultisigShare?: number;
  /** Largest cluster to build. @default 64 */
  maxClusterSize?: number;
  /** @default 'realistic' */
  profile?: Profile;
}

/**
 * A generated mempool. Everything is typed arrays (~70 bytes per tx with the txids); the txids as
 * strings are only built when `txids` is first read (~130 bytes more per tx, kept from then on),
 * which the optimizer's input never needs.
 */
export class SyntheticMempool {
  private strings: string[] | undefined;
  constructor(
    /** The txids' bytes in display order, 32 per tx: the hex of bytes 32 i .. 32 i + 31 is txid i. */
    readonly txidBytes: Buffer,
    readonly input: OptimizerInput,
    /** Unix seconds of entry, for the Core JSON. */
    readonly time: Uint32Array,
  ) {}

  get txCount(): number {
    return this.time.length;
  }

  /** Txid i as 64 lowercase hex characters. */
  txidAt(i: number): string {
    if (!(i >= 0 && i < this.txCount)) throw new RangeError(`txid ${i} out of range (${this.txCount} transactions)`);
    return this.txidBytes.toString('hex', i * TXID_BYTES, (i + 1) * TXID_BYTES);
  }

  /** All txids as strings, built on first read and kept (for callers that key maps or JSON by txid); shared, not to be modified. */
  get txids(): string[] {
    this.strings ??= Array.from({ length: this.txCount }, (_, i) => this.txidAt(i));
    return this.strings;
  }
}

/** mulberry32 (src/util/mulberry32.ts): small, fast, seedable. */
export const rng = mulberry32;

/** Fisher-Yates over the indices, so clusters are not contiguous (real snapshots are keyed by txid). perm[i] = generation index of tx i. */
function shuffledOrder(rand: () => number, n: number): Uint32Array {
  const perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = at(perm, i);
    perm[i] = at(perm, j);
    perm[j] = t;
  }
  return perm;
}

/** The builder's transactions in shuffled order, as the optimizer's structure of arrays (without the txid rank). */
function permuted(b: ClusterBuilder, perm: Uint32Array): Omit<OptimizerInput, 'txidRank'> {
  const n = perm.length;
  const where = new Uint32Array(n);
  for (let i = 0; i < n; i++) where[at(perm, i)] = i;
  const feeSat = new Float64Array(n);
  const weightWu = new Uint32Array(n);
  const sigopCost = new Uint32Array(n);
  const parentOffsets = new Uint32Array(n + 1);
  const from = b.parents;
  const parentIndices = new Uint32Array(from.length);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const old = at(perm, i);
    feeSat[i] = at(b.fee, old);
    weightWu[i] = at(b.weight, old);
    sigopCost[i] = at(b.sigops, old);
    for (let e = b.parentStart(old), end = at(b.parentEnd, old); e < end; e++) parentIndices[k++] = at(where, at(from, e));
    parentOffsets[i + 1] = k;
  }
  return { feeSat, weightWu, sigopCost, parentOffsets, parentIndices };
}

/** n random txids, one hex digit per draw (64 draws per txid, most significant nibble first), written as bytes. */
function drawTxids(rand: () => number, n: number): Buffer {
  const bytes = Buffer.alloc(n * TXID_BYTES);
  for (let i = 0; i < n * TXID_BYTES; i++) {
    const hi = Math.floor(rand() * 16);
    bytes[i] = hi * 16 + Math.floor(rand() * 16);
  }
  return bytes;
}

/** Entry times within one day. */
function drawTimes(rand: () => number, n: number): Uint32Array {
  const time = new Uint32Array(n);
  for (let i = 0; i < n; i++) time[i] = 1_790_000_000 + Math.floor(rand() * 86_400);
  return time;
}

/**
 * Generate a mempool of exactly `txCount` transactions. Same seed and options, same mempool: the
 * clusters, then the shuffle, then the txids, then the times, all from one seeded stream.
 * Memory: ~110 bytes per tx at its peak (the builder's arrays and the shuffled copy), ~70 kept.
 */
export function generateMempool(options: GeneratorOptions): SyntheticMempool {
  const { txCount, seed = 1, sigopHeavyShare = 0, bareMultisigShare = 0, maxClusterSize = 64, profile = 'realistic' } = options;
  const rand = rng(seed);
  const builder = new ClusterBuilder(txCount, rand, sigopHeavyShare, bareMultisigShare);
  buildClusters(builder, rand, profile, maxClusterSize);
  const arrays = permuted(builder, shuffledOrder(rand, txCount));
  const txidBytes = drawTxids(rand, txCount);
  const time = drawTimes(rand, txCount);
  return new SyntheticMempool(txidBytes, { ...arrays, txidRank: txidRanksFromBytes(txidBytes, txCount) }, time);
}

/** Ancestor (up) or descendant count, vsize and fee sums, by DFS (exact; clusters are small). */
function packageStats(m: SyntheticMempool, children: number[][], i: number, up: boolean, stamp: Uint32Array, epoch: number): [number, number, number] {
  const { parentOffsets, parentIndices, weightWu, feeSat } = m.input;
  const stack = [i];
  stamp[i] = epoch;
  let count = 0,
    vsize = 0,
    fee = 0;
  while (stack.length) {
    const t = stack.pop() as number;
    count++;
    vsize += Math.ceil(at(weightWu, t) / 4);
    fee += at(feeSat, t);
    const next = up ? parentIndices.subarray(at(parentOffsets, t), at(parentOffsets, t + 1)) : at(children, t);
    for (const u of next)
      if (stamp[u] !== epoch) {
        stamp[u] = epoch;
        stack.push(u);
      }
  }
  return [count, vsize, fee];
}

/** Render as Bitcoin Core `getrawmempool true` JSON text (v31 field set). */
export function toCoreJson(m: SyntheticMempool): string {
  const n = m.txCount;
  const txids = m.txids;
  const { feeSat, weightWu, sigopCost, parentOffsets, parentIndices } = m.input;
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let c = 0; c < n; c++) for (let k = at(parentOffsets, c); k < at(parentOffsets, c + 1); k++) at(children, at(parentIndices, k)).push(c);
  const stamp = new Uint32Array(n);
  let epoch = 0;
  const btc = (sat: number) => Number((sat / 1e8).toFixed(8));
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const weight = at(weightWu, i);
    const vsizeBip141 = Math.ceil(weight / 4);
    const vsizeAdj = Math.ceil(Math.max(weight, 20 * (sigopCost?.[i] ?? 0)) / 4);
    const [ac, as, af] = packageStats(m, children, i, true, stamp, ++epoch);
    const [dc, ds, df] = packageStats(m, children, i, false, stamp, ++epoch);
    const depends = Array.from(parentIndices.subarray(at(parentOffsets, i), at(parentOffsets, i + 1)), (p) => at(txids, p));
    const entry = {
      vsize: vsizeAdj,
      vsize_adjusted: vsizeAdj,
      vsize_bip141: vsizeBip141,
      weight,
      time: at(m.time, i),
      height: 930_000,
      descendantcount: dc,
      descendantsize: ds,
      ancestorcount: ac,
      ancestorsize: as,
      wtxid: txids[(i + 1) % n],
      fees: { base: btc(at(feeSat, i)), modified: btc(at(feeSat, i)), ancestor: btc(af), descendant: btc(df) },
      depends,
      spentby: at(children, i).map((c) => at(txids, c)),
      'bip125-replaceable': true,
      unbroadcast: false,
    };
    parts.push(`${JSON.stringify(at(txids, i))}:${JSON.stringify(entry)}`);
  }
  return `{${parts.join(',')}}`;
}
