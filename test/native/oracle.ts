/**
 * Test oracles for the native optimizer: seeded random mempools, an exhaustive optimal-diagram
 * check, and straightforward TypeScript references of Bitcoin Core's block assembly (v31
 * `addChunks`, v30 `addPackageTxs`). Written for clarity, not speed (small inputs only).
 */
import { at } from '../../src/util/at.js';
import { mulberry32 } from '../../src/util/mulberry32.js';
import type { ClusterDetail, OptimizerInput, OptimizerResult, TemplateSelection } from '../../src/optimizer/binding/native.js';

/** mulberry32 (src/util/mulberry32.ts). */
export const rng = mulberry32;

export interface RandomMempoolOptions {
  clusters: number;
  maxClusterSize: number;
  /** Probability of each earlier tx of the cluster being a parent. */
  density?: number;
  maxWeight?: number;
  sigopShare?: number;
  /** Fee rate range in sat/WU: fee = rate * weight, rate in [1, maxRate). */
  maxRate?: number;
}

/** A random mempool of independent random DAG clusters, indices shuffled. */
export function randomMempool(seed: number, o: RandomMempoolOptions): OptimizerInput {
  const r = rng(seed);
  const fee: number[] = [], weight: number[] = [], sigops: number[] = [], parents: number[][] = [];
  for (let c = 0; c < o.clusters; c++) {
    const size = 1 + Math.floor(r() * o.maxClusterSize);
    const first = fee.length;
    for (let k = 0; k < size; k++) {
      const w = 40 + Math.floor(r() * (o.maxWeight ?? 2000));
      weight.push(w);
      fee.push(Math.floor(w * (1 + r() * ((o.maxRate ?? 50) - 1)) * (r() < 0.1 ? 0.05 : 1)));
      sigops.push(r() < (o.sigopShare ?? 0) ? 20 + Math.floor(r() * 400) : 0);
      const ps: number[] = [];
      for (let j = first; j < first + k; j++) if (r() < (o.density ?? 0.3)) ps.push(j);
      if (k > 0 && ps.length === 0 && r() < 0.8) ps.push(first + Math.floor(r() * k));
      parents.push(ps);
    }
  }
  const n = fee.length;
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [perm[i], perm[j]] = [at(perm, j), at(perm, i)];
  }
  const where = new Array<number>(n);
  perm.forEach((old, i) => (where[old] = i));
  const parentOffsets = new Uint32Array(n + 1);
  const idx: number[] = [];
  const input = { feeSat: new Float64Array(n), weightWu: new Uint32Array(n), sigopCost: new Uint32Array(n) };
  perm.forEach((old, i) => {
    input.feeSat[i] = at(fee, old);
    input.weightWu[i] = at(weight, old);
    input.sigopCost[i] = at(sigops, old);
    for (const p of at(parents, old)) idx.push(at(where, p));
    parentOffsets[i + 1] = idx.length;
  });
  const rankOrder = Array.from({ length: n }, (_, i) => i).sort(() => r() - 0.5);
  const txidRank = new Uint32Array(n);
  rankOrder.forEach((tx, pos) => (txidRank[tx] = pos));
  return { ...input, parentOffsets, parentIndices: Uint32Array.from(idx), txidRank };
}

export function parentsOf(input: OptimizerInput, i: number): Uint32Array {
  return input.parentIndices.subarray(at(input.parentOffsets, i), at(input.parentOffsets, i + 1));
}

export function adjWeight(input: OptimizerInput, i: number): number {
  return Math.max(at(input.weightWu, i), 20 * (input.sigopCost?.[i] ?? 0));
}

/** a.fee/a.size vs b.fee/b.size, exactly (BigInt). */
export function cmpRate(af: number, as: number, bf: number, bs: number): number {
  const l = BigInt(af) * BigInt(bs), r = BigInt(bf) * BigInt(as);
  return l > r ? 1 : l < r ? -1 : 0;
}

/** Throws unless `order` lists each tx of `txs` once with parents first (parents outside `txs` must be in `before`). */
export function assertTopological(input: OptimizerInput, order: ArrayLike<number>, before: Set<number> = new Set()): void {
  const seen = new Set(before);
  for (let k = 0; k < order.length; k++) {
    const t = at(order, k);
    if (seen.has(t) && !before.has(t)) throw new Error(`tx ${t} appears twice`);
    for (const p of parentsOf(input, t)) if (!seen.has(p)) throw new Error(`tx ${t} comes before its parent ${p}`);
    seen.add(t);
  }
}

export interface Chunk { txs: number[]; fee: number; adj: number; weight: number; sigops: number; maxRank: number; eqPrefix: number; cluster: number }

/** Chunk a linearization the way Core does (merge while the new group's rate is strictly higher). */
export function chunkLinearization(input: OptimizerInput, lin: ArrayLike<number>, cluster = 0): Chunk[] {
  const out: Chunk[] = [];
  for (let k = 0; k < lin.length; k++) {
    const t = at(lin, k);
    let c: Chunk = { txs: [t], fee: at(input.feeSat, t), adj: adjWeight(input, t), weight: at(input.weightWu, t), sigops: input.sigopCost?.[t] ?? 0, maxRank: at(input.txidRank, t), eqPrefix: 0, cluster };
    for (let p = out.at(-1); p && cmpRate(c.fee, c.adj, p.fee, p.adj) > 0; p = out.at(-1)) {
      out.pop();
      c = { txs: [...p.txs, ...c.txs], fee: p.fee + c.fee, adj: p.adj + c.adj, weight: p.weight + c.weight, sigops: p.sigops + c.sigops, maxRank: Math.max(p.maxRank, c.maxRank), eqPrefix: 0, cluster };
    }
    out.push(c);
  }
  out.forEach((c, k) => {
    const prev = out[k - 1];
    c.eqPrefix = (prev && cmpRate(c.fee, c.adj, prev.fee, prev.adj) === 0 ? prev.eqPrefix : 0) + c.adj;
  });
  return out;
}

/**
 * Exhaustive optimality check of one cluster's linearization (<= ~16 txs): no closed subset of the
 * cluster lies above the linearization's feerate diagram. Since the diagram's vertices are
 * themselves closed sets, this means the diagram is the concave hull of all closed sets: optimal.
 */
export function isOptimalLinearization(input: OptimizerInput, lin: ArrayLike<number>): boolean {
  const txs = Array.from(lin);
  const n = txs.length;
  const local = new Map(txs.map((t, i) => [t, i]));
  const anc = new Array<number>(n).fill(0);
  const byTopo = txs.slice();  // lin is topological, so ancestors are computed in order
  byTopo.forEach((t, i) => {
    let bits = 1 << i;
    for (const p of parentsOf(input, t)) bits |= at(anc, local.get(p) as number);
    anc[i] = bits;
  });
  const chunks = chunkLinearization(input, lin);
  const pts: [number, number][] = [[0, 0]];
  let end: [number, number] = [0, 0];
  for (const c of chunks) pts.push((end = [end[0] + c.adj, end[1] + c.fee]));
  for (let mask = 1; mask < 1 << n; mask++) {
    let closed = true, fee = 0, size = 0;
    for (let i = 0; i < n && closed; i++) {
      if (!(mask & (1 << i))) continue;
      if ((at(anc, i) & ~mask) !== 0) closed = false;
      fee += at(input.feeSat, at(txs, i));
      size += adjWeight(input, at(txs, i));
    }
    if (!closed) continue;
    let seg = 1;
    while (at(pts, seg)[0] < size) seg++;
    const [x0, y0] = at(pts, seg - 1), [x1, y1] = at(pts, seg);
    // fee <= y0 + (y1 - y0) * (size - x0) / (x1 - x0)
    if (BigInt(fee - y0) * BigInt(x1 - x0) > BigInt(y1 - y0) * BigInt(size - x0)) return false;
  }
  return true;
}

/** All chunks of a mempool from the native linearizations, in Core's mining order. */
export function miningOrder(input: OptimizerInput, clusters: ClusterDetail[]): Chunk[] {
  const all: Chunk[] = [];
  clusters.forEach((c, ci) => all.push(...chunkLinearization(input, c.linearization, ci)));
  return all.sort((a, b) => -cmpRate(a.fee, a.adj, b.fee, b.adj) || a.eqPrefix - b.eqPrefix || a.maxRank - b.maxRank);
}

export interface Limits { weightLimitWu: number; coinbaseReserveWu: number; maxSigopCost: number; coinbaseSigopCost: number }
export const CORE_LIMITS: Limits = { weightLimitWu: 4_000_000, coinbaseReserveWu: 8_000, maxSigopCost: 80_000, coinbaseSigopCost: 400 };

/** Bitcoin Core v31 BlockAssembler::addChunks (src/node/miner.cpp), blockmintxfee 1 sat/kvB. */
export function referenceV31(order: Chunk[], lim: Limits): { txs: number[]; fee: number } {
  let weight = lim.coinbaseReserveWu, sigops = lim.coinbaseSigopCost, failures = 0, fee = 0;
  const txs: number[] = [];
  const excluded = new Set<number>();
  for (const c of order) {
    if (excluded.has(c.cluster)) continue;
    if (c.fee * 1000 < Math.ceil(c.adj / 4)) break;
    if (weight + c.adj >= lim.weightLimitWu || sigops + c.sigops >= lim.maxSigopCost) {
      excluded.add(c.cluster);
      failures++;
      if (failures > 1000 && weight + 4000 > lim.weightLimitWu) break;
      continue;
    }
    txs.push(...c.txs);
    weight += c.weight;
    sigops += c.sigops;
    fee += c.fee;
    failures = 0;
  }
  return { txs, fee };
}

/** Bitcoin Core v30 BlockAssembler::addPackageTxs (ancestor score with modified entries). */
export function referenceV30(input: OptimizerInput, lim: Limits): { txs: number[]; fee: number } {
  const n = input.feeSat.length;
  const vsize = (i: number) => Math.ceil(adjWeight(input, i) / 4);
  const ancestors = (i: number, skip: (t: number) => boolean): number[] => {
    const seen = new Set([i]);
    const stack = [i];
    while (stack.length) for (const p of parentsOf(input, stack.pop() as number)) if (!seen.has(p) && !skip(p)) { seen.add(p); stack.push(p); }
    return [...seen];
  };
  type Pkg = { fee: number; size: number; sigops: number };
  const pkgOf = (txs: number[]): Pkg => txs.reduce((a, t) => ({ fee: a.fee + at(input.feeSat, t), size: a.size + vsize(t), sigops: a.sigops + (input.sigopCost?.[t] ?? 0) }), { fee: 0, size: 0, sigops: 0 });
  const full = Array.from({ length: n }, (_, i) => pkgOf(ancestors(i, () => false)));
  const ancCount = Array.from({ length: n }, (_, i) => ancestors(i, () => false).length);
  const children = Array.from({ length: n }, (): number[] => []);
  for (let c = 0; c < n; c++) for (const p of parentsOf(input, c)) at(children, p).push(c);
  // score = min(own rate, package rate); better = higher score, then lower txid rank
  const better = (a: number, pa: Pkg, b: number, pb: Pkg): boolean => {
    const score = (t: number, p: Pkg): [number, number] => (cmpRate(at(input.feeSat, t), vsize(t), p.fee, p.size) > 0 ? [p.fee, p.size] : [at(input.feeSat, t), vsize(t)]);
    const [af, as] = score(a, pa), [bf, bs] = score(b, pb);
    const c = cmpRate(af, as, bf, bs);
    return c !== 0 ? c > 0 : at(input.txidRank, a) < at(input.txidRank, b);
  };
  const byScore = Array.from({ length: n }, (_, i) => i).sort((a, b) => (better(a, at(full, a), b, at(full, b)) ? -1 : 1));
  const modified = new Map<number, Pkg>();
  const inBlock = new Set<number>(), failed = new Set<number>();
  let weight = lim.coinbaseReserveWu, sigops = lim.coinbaseSigopCost, failures = 0, fee = 0, mi = 0;
  const txs: number[] = [];
  const bestModified = (): number | undefined => {
    let best: number | undefined;
    for (const [t, p] of modified) if (best === undefined || better(t, p, best, modified.get(best) as Pkg)) best = t;
    return best;
  };
  while (mi < n || modified.size) {
    if (mi < n) {
      const t = at(byScore, mi);
      if (modified.has(t) || inBlock.has(t) || failed.has(t)) { mi++; continue; }
    }
    const mod = bestModified();
    let tx: number, useMod = false;
    if (mi === n) { tx = mod as number; useMod = true; }
    else if (mod !== undefined && better(mod, modified.get(mod) as Pkg, at(byScore, mi), at(full, at(byScore, mi)))) { tx = mod; useMod = true; }
    else { tx = at(byScore, mi); mi++; }
    const pkg = useMod ? (modified.get(tx) as Pkg) : at(full, tx);
    if (pkg.fee * 1000 < pkg.size) break;
    if (weight + 4 * pkg.size >= lim.weightLimitWu || sigops + pkg.sigops >= lim.maxSigopCost) {
      if (useMod) { modified.delete(tx); failed.add(tx); }
      failures++;
      if (failures > 1000 && weight > lim.weightLimitWu - 4000) break;
      continue;
    }
    failures = 0;
    const pack = ancestors(tx, (t) => inBlock.has(t)).sort((a, b) => at(ancCount, a) - at(ancCount, b) || at(input.txidRank, a) - at(input.txidRank, b));
    for (const t of pack) {
      txs.push(t);
      inBlock.add(t);
      modified.delete(t);
      fee += at(input.feeSat, t);
      weight += at(input.weightWu, t);
      sigops += input.sigopCost?.[t] ?? 0;
    }
    for (const a of pack) {
      // every not-included descendant of a loses a from its package
      const desc = new Set<number>();
      const stack = [a];
      while (stack.length) for (const c of at(children, stack.pop() as number)) if (!desc.has(c)) { desc.add(c); stack.push(c); }
      for (const d of desc) {
        if (inBlock.has(d)) continue;
        const cur = modified.get(d) ?? { ...at(full, d) };
        modified.set(d, { fee: cur.fee - at(input.feeSat, a), size: cur.size - vsize(a), sigops: cur.sigops - (input.sigopCost?.[a] ?? 0) });
      }
    }
  }
  return { txs, fee };
}

/** Throws unless every tx's parents are in the template (or in `mined`). */
export function assertClosed(input: OptimizerInput, sel: TemplateSelection, mined: Set<number> = new Set()): void {
  assertTopological(input, sel.indices, mined);
}

/** Recompute a selection's totals from its indices. */
export function totals(input: OptimizerInput, indices: ArrayLike<number>): { fee: number; weight: number; adj: number; sigops: number } {
  let fee = 0, weight = 0, adj = 0, sigops = 0;
  for (let k = 0; k < indices.length; k++) {
    const t = at(indices, k);
    fee += at(input.feeSat, t);
    weight += at(input.weightWu, t);
    adj += adjWeight(input, t);
    sigops += input.sigopCost?.[t] ?? 0;
  }
  return { fee, weight, adj, sigops };
}

/** Check every structural property of a result. Returns a list of failures (empty = fine). */
export function checkResult(input: OptimizerInput, r: OptimizerResult, lim: Limits & { maxTxCount: number; minFeeRateSatVb: number }): string[] {
  const bad: string[] = [];
  // The bound holds for every template within the same limits, the request's included (a baseline
  // over maxTxCount, or below the min fee rate, may earn more).
  const check = (name: string, s: TemplateSelection, withinRequest: boolean) => {
    try { assertClosed(input, s); } catch (e) { bad.push(`${name}: ${(e as Error).message}`); }
    const t = totals(input, s.indices);
    if (t.fee !== s.feeSat || t.weight !== s.weightWu || t.sigops !== s.sigopCost || s.txCount !== s.indices.length) bad.push(`${name}: totals differ from indices`);
    if (withinRequest && s.feeSat > r.upperBound.feeSat) bad.push(`${name}: fee ${s.feeSat} above the bound ${r.upperBound.feeSat}`);
  };
  check('optimized', r.optimized, true);
  check('v31', r.baselineV31, r.v31WithinRequestLimits);
  check('v30', r.baselineV30, r.baselineV30.txCount <= lim.maxTxCount && lim.minFeeRateSatVb === 0);
  const cap = lim.weightLimitWu - lim.coinbaseReserveWu;
  if (r.optimized.weightWu > cap) bad.push('optimized: over the weight limit');
  if (r.optimized.sigopCost > lim.maxSigopCost - lim.coinbaseSigopCost) bad.push('optimized: over the sigop limit');
  if (r.optimized.txCount > lim.maxTxCount) bad.push('optimized: over maxTxCount');
  if (r.baselineV31.weightWu >= cap) bad.push('v31: not below the weight limit');
  if (r.baselineV30.weightWu >= cap) bad.push('v30: over the weight limit');
  if (r.v31WithinRequestLimits && r.optimized.feeSat < r.baselineV31.feeSat) bad.push(`optimized ${r.optimized.feeSat} < v31 ${r.baselineV31.feeSat}`);
  if (r.baselineV31.feeSat < 0) bad.push('v31 fee negative');
  return bad;
}

/** Connected components of the parent relation. */
export function components(input: OptimizerInput): number[][] {
  const n = input.feeSat.length;
  const up = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (at(up, x) !== x) x = up[x] = at(up, at(up, x));
    return x;
  };
  for (let i = 0; i < n; i++) for (const p of parentsOf(input, i)) up[find(i)] = find(p);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    groups.set(r, [...(groups.get(r) ?? []), i]);
  }
  return [...groups.values()];
}

/**
 * The LP relaxation of "best closed set within `cap` real weight", floored: per cluster the upper
 * concave hull of all its closed sets' (weight, fee) points, all hull segments taken by slope.
 * Exhaustive, for clusters of a few transactions.
 */
export function lpBound(input: OptimizerInput, cap: number): number {
  const segments: { w: number; f: number }[] = [];
  for (const txs of components(input)) {
    const points: { w: number; f: number }[] = [];
    for (let mask = 0; mask < 1 << txs.length; mask++) {
      const inSet = new Set(txs.filter((_, k) => mask & (1 << k)));
      if ([...inSet].some((t) => Array.from(parentsOf(input, t)).some((p) => !inSet.has(p)))) continue;
      let w = 0, f = 0;
      for (const t of inSet) { w += at(input.weightWu, t); f += at(input.feeSat, t); }
      points.push({ w, f });
    }
    // Walk the hull from (0, 0): the next vertex is the steepest point to the right (farthest on ties).
    let cur = { w: 0, f: 0 };
    for (;;) {
      let best: { w: number; f: number } | undefined;
      for (const p of points) {
        if (p.w <= cur.w) continue;
        if (!best) { best = p; continue; }
        const cmp = (p.f - cur.f) * (best.w - cur.w) - (best.f - cur.f) * (p.w - cur.w);
        if (cmp > 0 || (cmp === 0 && p.w > best.w)) best = p;
      }
      if (!best || best.f <= cur.f) break;
      segments.push({ w: best.w - cur.w, f: best.f - cur.f });
      cur = best;
    }
  }
  segments.sort((a, b) => b.f * a.w - a.f * b.w);
  let fee = 0, room = cap;
  for (const s of segments) {
    if (s.w <= room) { fee += s.f; room -= s.w; continue; }
    return fee + Math.floor((s.f * room) / s.w);
  }
  return fee;
}

/** The best fee of any closed set within `cap` real weight: a knapsack over clusters, each taking one of its closed sets. */
export function exactOptimum(input: OptimizerInput, cap: number): number {
  let best = new Float64Array(cap + 1); // best[w] = max fee with weight <= w
  for (const txs of components(input)) {
    const options: { w: number; f: number }[] = [];
    for (let mask = 1; mask < 1 << txs.length; mask++) {
      const inSet = new Set(txs.filter((_, k) => mask & (1 << k)));
      if ([...inSet].some((t) => Array.from(parentsOf(input, t)).some((p) => !inSet.has(p)))) continue;
      let w = 0, f = 0;
      for (const t of inSet) { w += at(input.weightWu, t); f += at(input.feeSat, t); }
      if (w <= cap) options.push({ w, f });
    }
    const next = Float64Array.from(best);
    for (const o of options) for (let w = o.w; w <= cap; w++) next[w] = Math.max(at(next, w), at(best, w - o.w) + o.f);
    best = next;
  }
  return at(best, cap);
}

/** The best fee of any closed set within the weight, sigop-cost and count limits: one closed set per
 *  cluster (exhaustive), combined by a dynamic program over Pareto-optimal (weight, sigops, count, fee)
 *  states. For a few small clusters. */
export function exactOptimumWithin(input: OptimizerInput, lim: { weight: number; sigops: number; count: number; minRateSatVb?: number }): number {
  type State = { w: number; s: number; n: number; f: number };
  let states: State[] = [{ w: 0, s: 0, n: 0, f: 0 }];
  const closed = (inSet: Set<number>) => ![...inSet].some((t) => Array.from(parentsOf(input, t)).some((p) => !inSet.has(p)));
  for (const txs of components(input)) {
    // The min fee rate admits the transactions of the chunks paying it in an optimal linearization
    // by real weight: the largest closed set maximizing fee - rate × vsize (the union of all maximizers).
    let eligible = (1 << txs.length) - 1;
    const kvb = Math.round((lim.minRateSatVb ?? 0) * 1000);
    if (kvb > 0) {
      let best = 0;
      eligible = 0;
      for (let mask = 1; mask < 1 << txs.length; mask++) {
        const inSet = new Set(txs.filter((_, k) => mask & (1 << k)));
        if (!closed(inSet)) continue;
        let v = 0;
        for (const t of inSet) v += at(input.feeSat, t) * 4000 - kvb * at(input.weightWu, t);
        if (v > best) [best, eligible] = [v, mask];
        else if (v === best) eligible |= mask;
      }
    }
    const options: State[] = [{ w: 0, s: 0, n: 0, f: 0 }];
    for (let mask = 1; mask < 1 << txs.length; mask++) {
      if ((mask & eligible) !== mask) continue;
      const inSet = new Set(txs.filter((_, k) => mask & (1 << k)));
      if (!closed(inSet)) continue;
      const o = { w: 0, s: 0, n: inSet.size, f: 0 };
      for (const t of inSet) { o.w += at(input.weightWu, t); o.s += input.sigopCost?.[t] ?? 0; o.f += at(input.feeSat, t); }
      options.push(o);
    }
    const next: State[] = [];
    for (const a of states) for (const o of options) {
      const c = { w: a.w + o.w, s: a.s + o.s, n: a.n + o.n, f: a.f + o.f };
      if (c.w <= lim.weight && c.s <= lim.sigops && c.n <= lim.count) next.push(c);
    }
    // Keep the Pareto front: no other state as light in every limit and as rich.
    next.sort((a, b) => b.f - a.f || a.w - b.w || a.s - b.s || a.n - b.n);
    states = [];
    for (const c of next) if (!states.some((k) => k.w <= c.w && k.s <= c.s && k.n <= c.n)) states.push(c);
  }
  return Math.max(...states.map((x) => x.f));
}

/** Check the projected blocks: block 0 is the optimized template, blocks are disjoint, each closed given the earlier ones,
 *  within the weight capacity, and their totals match their transactions. Returns failures (empty = fine). */
export function checkProjected(input: OptimizerInput, r: OptimizerResult, cap: number): string[] {
  const bad: string[] = [];
  const byBlock = new Map<number, number[]>();
  r.txProjectedBlock.forEach((b, t) => {
    if (b >= 0) byBlock.set(b, [...(byBlock.get(b) ?? []), t]);
  });
  const first = new Set(byBlock.get(0) ?? []);
  if (first.size !== r.optimized.txCount || Array.from(r.optimized.indices).some((t) => !first.has(t))) bad.push('block 0 is not the optimized template');
  const mined = new Set<number>();
  r.projectedBlocks.forEach((blk, b) => {
    const txs = byBlock.get(b) ?? [];
    const inBlock = new Set(txs);
    const t = totals(input, txs);
    if (blk.txCount !== txs.length || blk.feeSat !== t.fee || blk.weightWu !== t.weight) bad.push(`block ${b}: totals differ`);
    if (t.weight > cap) bad.push(`block ${b}: over the weight limit`);
    for (const x of txs) for (const p of parentsOf(input, x)) if (!mined.has(p) && !inBlock.has(p)) bad.push(`block ${b}: tx ${x} before its parent ${p}`);
    txs.forEach((x) => mined.add(x));
  });
  return bad;
}
