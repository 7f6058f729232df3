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
import { at } from '../../util/at.js';
import { mulberry32 } from '../../util/mulberry32.js';
import type { OptimizerInput } from '../binding/native.js';
import { computeTxidRank } from './snapshot.js';

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
  profile?: 'realistic' | 'cluster-heavy';
}

/** Cumulative probabilities per cluster (not per tx) of: singleton, chain, CPFP, batch, consolidation; DAG otherwise. */
const PROFILES = {
  // Per-cluster odds = tx share / mean cluster size (1, ~6, ~3, ~25, ~12, ~36).
  realistic: [0.9235, 0.952, 0.99, 0.994, 0.9984],
  'cluster-heavy': [0.55, 0.72, 0.84, 0.92, 0.96],
} as const;

export interface SyntheticMempool {
  txids: string[];
  input: OptimizerInput;
  /** Unix seconds of entry, for the Core JSON. */
  time: Uint32Array;
}

/** mulberry32 (src/util/mulberry32.ts): small, fast, seedable. */
export const rng = mulberry32;

class Builder {
  readonly fee: number[] = [];
  readonly weight: number[] = [];
  readonly sigops: number[] = [];
  readonly parents: number[][] = [];
  constructor(
    private readonly rand: () => number,
    private readonly sigopShare: number,
    private readonly multisigShare = 0,
  ) {}

  private normal(): number {
    const u = Math.max(this.rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rand());
  }
  /** Log-normal fee rate in sat/vB, median ~6, clamped to [1, 500]. */
  rate(scale = 1): number {
    return Math.min(500, Math.max(1, Math.exp(Math.log(6) + 1.1 * this.normal()) * scale));
  }
  weightWu(kind: 'small' | 'any' | 'big' = 'any'): number {
    const r = this.rand();
    if (kind === 'small' || (kind === 'any' && r < 0.62)) return 437 + Math.floor(this.rand() * 300);
    if (kind === 'any' && r < 0.87) return 700 + Math.floor(this.rand() * 2300);
    if (kind === 'any' && r < 0.99) return 3000 + Math.floor(this.rand() * 17000);
    return 20000 + Math.floor(this.rand() * 80000);
  }
  add(rateSatVb: number, weightWu: number, parents: number[]): number {
    const i = this.fee.length;
    let w = weightWu;
    let sigops = this.rand() < this.sigopShare ? 400 + Math.floor(this.rand() * 1600) : 0;
    if (this.multisigShare > 0 && this.rand() < this.multisigShare) {
      // Bare multisig outputs: 114 bytes each (8 value + 1 length + 105 script), non-witness.
      const outputs = 2 + Math.floor(this.rand() * 11);
      w = 4 * (10 + 41 + 31 + 114 * outputs) + 110;
      sigops = 80 * outputs + 1;
    }
    this.fee.push(Math.max(0, Math.round((rateSatVb * w) / 4)));
    this.weight.push(w);
    this.sigops.push(sigops);
    this.parents.push(parents);
    return i;
  }
}

/** Generate a mempool of exactly `txCount` transactions. */
export function generateMempool(options: GeneratorOptions): SyntheticMempool {
  const { txCount, seed = 1, sigopHeavyShare = 0, bareMultisigShare = 0, maxClusterSize = 64, profile = 'realistic' } = options;
  const [pSingle, pChain, pCpfp, pBatch, pConsolidation] = PROFILES[profile];
  const rand = rng(seed);
  const b = new Builder(rand, sigopHeavyShare, bareMultisigShare);
  const room = () => txCount - b.fee.length;
  while (room() > 0) {
    const kind = rand();
    const cap = Math.min(room(), maxClusterSize);
    if (kind < pSingle || cap < 2) {
      b.add(b.rate(), b.weightWu(), []);
    } else if (kind < pChain) {
      // Chain: each tx spends the previous one's change.
      const len = Math.min(cap, 2 + Math.floor(-Math.log(Math.max(rand(), 1e-9)) * 4), 25);
      let prev = b.add(b.rate(), b.weightWu(), []);
      for (let k = 1; k < len; k++) prev = b.add(b.rate(), b.weightWu('small'), [prev]);
    } else if (kind < pCpfp) {
      // CPFP: 1-3 stuck parents paid for by one child.
      const np = Math.min(cap - 1, 1 + Math.floor(rand() * 3));
      const ps: number[] = [];
      for (let k = 0; k < np; k++) ps.push(b.add(1 + rand(), b.weightWu(), []));
      b.add(b.rate(4), b.weightWu('small'), ps);
    } else if (kind < pBatch) {
      // Batch payout: one parent, many children; some children are spent again.
      const nc = Math.min(cap - 1, 3 + Math.floor(rand() * 40));
      const root = b.add(b.rate(), 2000 + Math.floor(rand() * 8000), []);
      let used = 1;
      for (let k = 0; k < nc && used < cap; k++, used++) {
        const c = b.add(b.rate(), b.weightWu('small'), [root]);
        if (rand() < 0.15 && used + 1 < cap) {
          b.add(b.rate(), b.weightWu('small'), [c]);
          used++;
        }
      }
    } else if (kind < pConsolidation) {
      // Consolidation: several unconfirmed parents swept by one large child.
      const np = Math.min(cap - 1, 2 + Math.floor(rand() * 20));
      const ps: number[] = [];
      for (let k = 0; k < np; k++) ps.push(b.add(b.rate(), b.weightWu('small'), []));
      b.add(b.rate(0.5), 272 * np + 200, ps);
    } else {
      // Random DAG up to the cluster limit: each tx spends 1-3 earlier txs of the cluster.
      const size = Math.min(cap, 8 + Math.floor(rand() * 57));
      const first = b.fee.length;
      b.add(b.rate(), b.weightWu(), []);
      for (let k = 1; k < size; k++) {
        const ps = new Set<number>();
        const np = 1 + Math.floor(rand() * Math.min(3, k));
        while (ps.size < np) ps.add(first + Math.floor(rand() * k));
        b.add(b.rate(), b.weightWu(), [...ps]);
      }
    }
  }
  // Shuffle indices so clusters are not contiguous (real snapshots are keyed by txid).
  const n = txCount;
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [perm[i], perm[j]] = [at(perm, j), at(perm, i)];
  }
  const feeSat = new Float64Array(n);
  const weightWu = new Uint32Array(n);
  const sigopCost = new Uint32Array(n);
  const parentOffsets = new Uint32Array(n + 1);
  const plist: number[] = [];
  const where = new Uint32Array(n);
  perm.forEach((old, i) => (where[old] = i));
  perm.forEach((old, i) => {
    feeSat[i] = at(b.fee, old);
    weightWu[i] = at(b.weight, old);
    sigopCost[i] = at(b.sigops, old);
    for (const p of at(b.parents, old)) plist.push(at(where, p));
    parentOffsets[i + 1] = plist.length;
  });
  const txids = new Array<string>(n);
  const hex = '0123456789abcdef';
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let k = 0; k < 64; k++) s += at(hex, Math.floor(rand() * 16));
    txids[i] = s;
  }
  const time = new Uint32Array(n);
  for (let i = 0; i < n; i++) time[i] = 1_790_000_000 + Math.floor(rand() * 86_400);
  const input: OptimizerInput = {
    feeSat,
    weightWu,
    sigopCost,
    parentOffsets,
    parentIndices: Uint32Array.from(plist),
    txidRank: computeTxidRank(txids),
  };
  return { txids, input, time };
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
  const n = m.txids.length;
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
    const depends = Array.from(parentIndices.subarray(at(parentOffsets, i), at(parentOffsets, i + 1)), (p) => at(m.txids, p));
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
      wtxid: m.txids[(i + 1) % n],
      fees: { base: btc(at(feeSat, i)), modified: btc(at(feeSat, i)), ancestor: btc(af), descendant: btc(df) },
      depends,
      spentby: at(children, i).map((c) => at(m.txids, c)),
      'bip125-replaceable': true,
      unbroadcast: false,
    };
    parts.push(`${JSON.stringify(at(m.txids, i))}:${JSON.stringify(entry)}`);
  }
  return `{${parts.join(',')}}`;
}
