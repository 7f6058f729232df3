/**
 * Stand-in for the native optimizer: Bitcoin Core's pre-v31 block assembler (`addPackageTxs`,
 * src/node/miner.cpp in v30) in TypeScript, plus chunks derived from its selection order.
 *
 * Selection: repeatedly take the transaction whose ancestor package (itself and its not yet
 * selected ancestors) has the highest feerate (fee / sigop-adjusted weight; ties to the lower
 * txid); add the package parents-first; re-score the descendants of what was added. In template
 * mode a package that does not fit the weight or sigop budget is skipped for good, and the loop
 * gives up after 1000 consecutive failures once the block is within 4000 WU of full.
 *
 * Chunks: the unlimited selection order restricted to one cluster is a valid linearization of it;
 * chunking merges each package into the previous chunk of its cluster while it has a higher
 * feerate. Clusters of one or two transactions come out optimal; larger ones are close to, but not
 * always, what Core's spanning-forest linearization finds — the approximation this stand-in makes.
 *
 * Complexity: O(n log n + Σ descendants of selected txs · log n) per run; two runs per call.
 */
import { BLOCK_MIN_TX_FEE_SAT_KVB, BLOCK_RESERVED_WEIGHT_WU, BYTES_PER_SIGOP, COINBASE_RESERVED_SIGOPS, MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT_WU } from './consensus.js';
import type { PolicyInput, PolicyResult } from './mempoolPolicy.js';

const MAX_CONSECUTIVE_FAILURES = 1000;
const BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4000;

export function ancestorScorePolicy(input: PolicyInput): PolicyResult {
  const graph = prepare(input);
  const all = select(graph, false);
  const template = select(graph, true);
  const { chunkFee, chunkWeight } = chunkPackages(graph, all.packages);
  return { templateIndices: Uint32Array.from(template.order), txChunkFeeSat: chunkFee, txChunkWeightWu: chunkWeight };
}

interface Graph {
  n: number;
  input: PolicyInput;
  /** Sigop-adjusted weight per tx. */
  adjWeight: Float64Array;
  childOffsets: Uint32Array;
  childIndices: Uint32Array;
  /** All in-mempool ancestors of each tx (CSR), excluding itself. */
  ancOffsets: Uint32Array;
  ancIndices: Uint32Array;
}

function prepare(input: PolicyInput): Graph {
  const n = input.feeSat.length;
  const adjWeight = new Float64Array(n);
  for (let i = 0; i < n; i++) adjWeight[i] = Math.max(input.weightWu[i]!, input.sigopCost[i]! * BYTES_PER_SIGOP);
  // Children CSR by counting.
  const childCount = new Uint32Array(n + 1);
  for (let k = 0; k < input.parentIndices.length; k++) childCount[input.parentIndices[k]! + 1]!++;
  const childOffsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) childOffsets[i + 1] = childOffsets[i]! + childCount[i + 1]!;
  const fill = childOffsets.slice(0, n);
  const childIndices = new Uint32Array(input.parentIndices.length);
  for (let i = 0; i < n; i++) {
    for (let k = input.parentOffsets[i]!; k < input.parentOffsets[i + 1]!; k++) childIndices[fill[input.parentIndices[k]!]!++] = i;
  }
  // Ancestor sets by DFS with a visit stamp.
  const stamp = new Int32Array(n).fill(-1);
  const ancOffsets = new Uint32Array(n + 1);
  const anc: number[] = [];
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    stamp[i] = i;
    stack.push(i);
    while (stack.length) {
      const t = stack.pop()!;
      for (let k = input.parentOffsets[t]!; k < input.parentOffsets[t + 1]!; k++) {
        const p = input.parentIndices[k]!;
        if (stamp[p] === i) continue;
        stamp[p] = i;
        anc.push(p);
        stack.push(p);
      }
    }
    ancOffsets[i + 1] = anc.length;
  }
  return { n, input, adjWeight, childOffsets, childIndices, ancOffsets, ancIndices: Uint32Array.from(anc) };
}

interface Package {
  txs: number[];
  feeSat: number;
  weight: number;
}

/** Max-heap of (fee, weight, tx) by fee/weight, ties to the lower txid rank. */
class PackageHeap {
  private fee: number[] = [];
  private weight: number[] = [];
  private tx: number[] = [];
  private version: number[] = [];

  constructor(private readonly rank: Uint32Array) {}

  get size(): number {
    return this.tx.length;
  }

  private better(a: number, b: number): boolean {
    const lhs = this.fee[a]! * this.weight[b]!;
    const rhs = this.fee[b]! * this.weight[a]!;
    if (lhs !== rhs) return lhs > rhs;
    return this.rank[this.tx[a]!]! < this.rank[this.tx[b]!]!;
  }

  private swap(a: number, b: number): void {
    for (const arr of [this.fee, this.weight, this.tx, this.version]) {
      const t = arr[a]!;
      arr[a] = arr[b]!;
      arr[b] = t;
    }
  }

  push(fee: number, weight: number, tx: number, version: number): void {
    let i = this.tx.length;
    this.fee.push(fee);
    this.weight.push(weight);
    this.tx.push(tx);
    this.version.push(version);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.better(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the best entry and returns [fee, weight, tx, version]. Precondition: size > 0. */
  pop(): [number, number, number, number] {
    const top: [number, number, number, number] = [this.fee[0]!, this.weight[0]!, this.tx[0]!, this.version[0]!];
    const last = this.tx.length - 1;
    this.swap(0, last);
    this.fee.pop();
    this.weight.pop();
    this.tx.pop();
    this.version.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < this.tx.length && this.better(l, best)) best = l;
      if (r < this.tx.length && this.better(r, best)) best = r;
      if (best === i) break;
      this.swap(i, best);
      i = best;
    }
    return top;
  }
}

function select(g: Graph, limited: boolean): { order: number[]; packages: Package[] } {
  const { n, input, adjWeight } = g;
  const ancFee = new Float64Array(n);
  const ancWeight = new Float64Array(n);
  const ancSigops = new Float64Array(n);
  const version = new Uint32Array(n);
  const inBlock = new Uint8Array(n);
  const failed = new Uint8Array(n);
  const heap = new PackageHeap(input.txidRank);
  for (let i = 0; i < n; i++) {
    let f = input.feeSat[i]!;
    let w = adjWeight[i]!;
    let s = input.sigopCost[i]!;
    for (let k = g.ancOffsets[i]!; k < g.ancOffsets[i + 1]!; k++) {
      const a = g.ancIndices[k]!;
      f += input.feeSat[a]!;
      w += adjWeight[a]!;
      s += input.sigopCost[a]!;
    }
    ancFee[i] = f;
    ancWeight[i] = w;
    ancSigops[i] = s;
    heap.push(f, w, i, 0);
  }
  const maxWeight = MAX_BLOCK_WEIGHT_WU - BLOCK_RESERVED_WEIGHT_WU;
  let blockWeight = 0;
  let blockSigops = COINBASE_RESERVED_SIGOPS;
  let failures = 0;
  const order: number[] = [];
  const packages: Package[] = [];
  const dirty = new Set<number>();
  while (heap.size > 0) {
    const [fee, weight, tx, ver] = heap.pop();
    if (inBlock[tx] || failed[tx] || ver !== version[tx]) continue;
    // blockmintxfee: fee / (weight / 4) < rate / 1000
    if (fee * 4000 < BLOCK_MIN_TX_FEE_SAT_KVB * weight) break;
    const pkg = packageOf(g, tx, inBlock);
    if (limited) {
      // The fit test uses the sigop-adjusted package weight; the block grows by the real weight (as Core).
      if (blockWeight + weight >= maxWeight || blockSigops + ancSigops[tx]! >= MAX_BLOCK_SIGOPS_COST) {
        failed[tx] = 1;
        if (++failures > MAX_CONSECUTIVE_FAILURES && blockWeight > maxWeight - BLOCK_FULL_ENOUGH_WEIGHT_DELTA) break;
        continue;
      }
      for (const t of pkg) blockWeight += input.weightWu[t]!;
      blockSigops += ancSigops[tx]!;
    }
    failures = 0;
    // Parents first: fewer in-mempool ancestors never depends on more.
    pkg.sort((a, b) => g.ancOffsets[a + 1]! - g.ancOffsets[a]! - (g.ancOffsets[b + 1]! - g.ancOffsets[b]!) || input.txidRank[a]! - input.txidRank[b]!);
    packages.push({ txs: pkg, feeSat: fee, weight });
    for (const t of pkg) {
      inBlock[t] = 1;
      order.push(t);
    }
    for (const t of pkg) {
      forEachDescendant(g, t, (d) => {
        if (inBlock[d]) return;
        ancFee[d]! -= input.feeSat[t]!;
        ancWeight[d]! -= adjWeight[t]!;
        ancSigops[d]! -= input.sigopCost[t]!;
        dirty.add(d);
        version[d]!++;
      });
    }
    for (const d of dirty) if (!inBlock[d]) heap.push(ancFee[d]!, ancWeight[d]!, d, version[d]!);
    dirty.clear();
  }
  return { order, packages };
}

/** `tx` and its ancestors that are not yet selected. */
function packageOf(g: Graph, tx: number, inBlock: Uint8Array): number[] {
  const pkg = [tx];
  for (let k = g.ancOffsets[tx]!; k < g.ancOffsets[tx + 1]!; k++) {
    const a = g.ancIndices[k]!;
    if (!inBlock[a]) pkg.push(a);
  }
  return pkg;
}

function forEachDescendant(g: Graph, tx: number, visit: (d: number) => void): void {
  const seen = new Set<number>();
  const stack = [tx];
  while (stack.length) {
    const t = stack.pop()!;
    for (let k = g.childOffsets[t]!; k < g.childOffsets[t + 1]!; k++) {
      const c = g.childIndices[k]!;
      if (seen.has(c)) continue;
      seen.add(c);
      visit(c);
      stack.push(c);
    }
  }
}

/** Chunks of each cluster from the packages in selection order (see the file comment). */
function chunkPackages(g: Graph, packages: readonly Package[]): { chunkFee: Float64Array; chunkWeight: Uint32Array } {
  const { n, input } = g;
  // Cluster of each tx by union-find over parent links.
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (let i = 0; i < n; i++) {
    for (let k = input.parentOffsets[i]!; k < input.parentOffsets[i + 1]!; k++) {
      const a = find(i);
      const b = find(input.parentIndices[k]!);
      if (a !== b) parent[a] = b;
    }
  }
  interface Chunk {
    fee: number;
    weight: number;
    txs: number[];
  }
  const stacks = new Map<number, Chunk[]>();
  for (const pkg of packages) {
    const root = find(pkg.txs[0]!);
    let stack = stacks.get(root);
    if (!stack) stacks.set(root, (stack = []));
    let chunk: Chunk = { fee: pkg.feeSat, weight: pkg.weight, txs: [...pkg.txs] };
    while (stack.length) {
      const prev = stack[stack.length - 1]!;
      if (chunk.fee * prev.weight <= prev.fee * chunk.weight) break;
      stack.pop();
      chunk = { fee: prev.fee + chunk.fee, weight: prev.weight + chunk.weight, txs: prev.txs.concat(chunk.txs) };
    }
    stack.push(chunk);
  }
  const chunkFee = new Float64Array(n);
  const chunkWeight = new Uint32Array(n);
  // Transactions the selection never took (below blockmintxfee) are their own chunks.
  for (let i = 0; i < n; i++) {
    chunkFee[i] = input.feeSat[i]!;
    chunkWeight[i] = g.adjWeight[i]!;
  }
  for (const stack of stacks.values()) {
    for (const chunk of stack) {
      for (const t of chunk.txs) {
        chunkFee[t] = chunk.fee;
        chunkWeight[t] = chunk.weight;
      }
    }
  }
  return { chunkFee, chunkWeight };
}
