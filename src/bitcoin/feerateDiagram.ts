/**
 * Feerate diagrams for RBF rule 6 (Core v31 `ImprovesFeerateDiagram`, `CompareChunks`): the chunks
 * of a set of transactions, sorted by decreasing feerate and accumulated into a concave curve of
 * (sigop-adjusted weight, fee). The chunks come from a `Chunker`, a linearization handed in: the
 * simulated node's mining policy, or the native optimizer for the bump planner.
 */
import { sigopAdjustedWeight } from './sigops.js';
import type { TxGraphArrays } from './txGraph.js';
import { txidRanks } from './txidOrder.js';
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

/** A chunk-level segment of a diagram: `weight` WU paying `fee` sats. */
export interface Segment {
  weight: number;
  fee: number;
}

/** `txs` as arrays for a linearizer (parents outside the set are ignored). Txids must be hex. */
export function diagramGraph(txs: readonly DiagramTx[]): TxGraphArrays {
  const index = new Map(txs.map((t, i) => [t.txid, i]));
  const parentOffsets = new Uint32Array(txs.length + 1);
  const parents: number[] = [];
  txs.forEach((t, i) => {
    for (const p of t.parents) {
      const j = index.get(p);
      if (j !== undefined) parents.push(j);
    }
    parentOffsets[i + 1] = parents.length;
  });
  return {
    feeSat: Float64Array.from(txs, (t) => t.feeSat),
    weightWu: Uint32Array.from(txs, (t) => t.weightWu),
    sigopCost: Uint32Array.from(txs, (t) => t.sigopCost),
    parentOffsets,
    parentIndices: Uint32Array.from(parents),
    txidRank: txidRanks(txs.map((t) => t.txid)),
  };
}

/** Chunks of `txs`, highest feerate first. One chunker run. */
export function feerateDiagram(txs: readonly DiagramTx[], chunker: Chunker): Segment[] {
  if (txs.length === 0) return [];
  const { chunkFeeSat, chunkWeightWu } = chunker(txs);
  // Group by (chunk fee, chunk weight): a group holds whole chunks of one feerate, so its fee is
  // (its weight / chunk weight) × chunk fee, exactly.
  const groups = new Map<string, { chunkFee: number; chunkWeight: number; weight: number }>();
  txs.forEach((t, i) => {
    const chunkFee = at(chunkFeeSat, i);
    const chunkWeight = at(chunkWeightWu, i);
    const key = `${chunkFee}/${chunkWeight}`;
    const g = groups.get(key) ?? { chunkFee, chunkWeight, weight: 0 };
    g.weight += sigopAdjustedWeight(t.weightWu, t.sigopCost);
    groups.set(key, g);
  });
  const segments = [...groups.values()].map((g) => ({ weight: g.weight, fee: Math.round(g.weight / g.chunkWeight) * g.chunkFee }));
  segments.sort((a, b) => b.fee * a.weight - a.fee * b.weight);
  return segments;
}

/**
 * Whether diagram `next` is strictly better than `prev` (Core's `CompareChunks(next, prev)` is
 * `greater`): at every weight its cumulative fee is ≥ and somewhere >, the shorter diagram being
 * extended flat. Exact (BigInt) arithmetic. O(segments).
 */
export function improvesDiagram(next: readonly Segment[], prev: readonly Segment[]): boolean {
  const a = cumulative(next);
  const b = cumulative(prev);
  const xs = [...new Set([...a.map((p) => p[0]), ...b.map((p) => p[0])])].sort((x, y) => x - y);
  let greater = false;
  for (const x of xs) {
    const cmp = compareAt(a, b, x);
    if (cmp < 0) return false;
    if (cmp > 0) greater = true;
  }
  return greater;
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

/** Value of a piecewise-linear curve at x as a fraction [numerator, denominator]. */
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

function compareAt(a: readonly Point[], b: readonly Point[], x: number): number {
  const [an, ad] = valueAt(a, x);
  const [bn, bd] = valueAt(b, x);
  const l = an * bd;
  const r = bn * ad;
  return l > r ? 1 : l < r ? -1 : 0;
}
