/**
 * RBF rule 6 of Core v31: the feerate diagram of the affected clusters must strictly improve
 * (`ImprovesFeerateDiagram`, `CompareChunks`). The planner judges it with our own linearizer: a
 * `Chunker` returns each transaction's chunk (fee, weight) in its cluster's linearization; the
 * service hands in the native optimizer's (`nativeChunker`), tests may hand in their own.
 */
import { BYTES_PER_SIGOP } from '../bitcoin/consensus.js';
import { at } from '../util/at.js';

export interface DiagramTx {
  txid: string;
  /** Modified fee, sat. */
  feeSat: number;
  /** BIP141 weight, WU. */
  weightWu: number;
  sigopCost: number;
  /** Parents within the same set (others are ignored). */
  parents: readonly string[];
}

/** Chunk fee (sat) and sigop-adjusted chunk weight (WU) of each transaction, in input order. */
export type Chunker = (txs: readonly DiagramTx[]) => { chunkFeeSat: ArrayLike<number>; chunkWeightWu: ArrayLike<number> };

export interface Segment {
  weight: number;
  fee: number;
}

/** Chunks of `txs`, highest feerate first. One chunker run. */
export function feerateDiagram(txs: readonly DiagramTx[], chunker: Chunker): Segment[] {
  if (txs.length === 0) return [];
  const { chunkFeeSat, chunkWeightWu } = chunker(txs);
  // Group by (chunk fee, chunk weight): a group holds whole chunks of one rate, so its fee is
  // (its weight / chunk weight) × chunk fee, exactly.
  const groups = new Map<string, { chunkFee: number; chunkWeight: number; weight: number }>();
  txs.forEach((t, i) => {
    const chunkFee = at(chunkFeeSat, i);
    const chunkWeight = at(chunkWeightWu, i);
    const key = `${chunkFee}/${chunkWeight}`;
    const g = groups.get(key) ?? { chunkFee, chunkWeight, weight: 0 };
    g.weight += Math.max(t.weightWu, t.sigopCost * BYTES_PER_SIGOP);
    groups.set(key, g);
  });
  const segments = [...groups.values()].map((g) => ({ weight: g.weight, fee: Math.round(g.weight / g.chunkWeight) * g.chunkFee }));
  segments.sort((a, b) => b.fee * a.weight - a.fee * b.weight);
  return segments;
}

type Point = [number, number];

function cumulative(segments: readonly Segment[]): Point[] {
  const points: Point[] = [[0, 0]];
  let w = 0;
  let f = 0;
  for (const s of segments) {
    w += s.weight;
    f += s.fee;
    points.push([w, f]);
  }
  return points;
}

function valueAt(points: readonly Point[], x: number): [bigint, bigint] {
  const last = at(points, points.length - 1);
  if (x >= last[0]) return [BigInt(last[1]), 1n];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = at(points, i);
    if (x > x1) continue;
    const [x0, y0] = at(points, i - 1);
    const dx = BigInt(x1 - x0);
    return [BigInt(y0) * dx + BigInt(x - x0) * BigInt(y1 - y0), dx];
  }
  return [BigInt(last[1]), 1n];
}

/**
 * Whether `next` is strictly better than `prev`: at every weight its cumulative fee is ≥ and
 * somewhere >, the shorter diagram extended flat. Exact (BigInt). O(segments).
 */
export function improvesDiagram(next: readonly Segment[], prev: readonly Segment[]): boolean {
  const a = cumulative(next);
  const b = cumulative(prev);
  const xs = [...new Set([...a.map((p) => p[0]), ...b.map((p) => p[0])])].sort((x, y) => x - y);
  let greater = false;
  for (const x of xs) {
    const [an, ad] = valueAt(a, x);
    const [bn, bd] = valueAt(b, x);
    const l = an * bd;
    const r = bn * ad;
    if (l < r) return false;
    if (l > r) greater = true;
  }
  return greater;
}

/**
 * The least fee ≥ `from` at which `after(fee)` strictly improves on `before` (rule 6), by
 * exponential then binary search: improvement is monotone in the new transaction's fee.
 * Infinity when even a huge fee does not improve it. About 2 log2(fee) chunker runs at worst.
 */
export function leastImprovingFee(before: readonly DiagramTx[], after: (feeSat: number) => DiagramTx[], from: number, chunker: Chunker): number {
  const prev = feerateDiagram(before, chunker);
  const improves = (fee: number): boolean => improvesDiagram(feerateDiagram(after(fee), chunker), prev);
  if (improves(from)) return from;
  let lo = from;
  let step = 64;
  let hi = from + step;
  while (!improves(hi)) {
    lo = hi;
    step *= 2;
    hi = from + step;
    if (step > 2 ** 40) return Number.POSITIVE_INFINITY;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (improves(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
