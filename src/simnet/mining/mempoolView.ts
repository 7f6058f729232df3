/**
 * A frozen, array-form snapshot of the mempool at one `version` — the policy input of the whole
 * mempool — with the policy result (template order, per-transaction chunks) and other derived
 * values computed lazily and at most once. Used by the template, mining and the fee estimator;
 * per-entry RPC data comes from `EntryInfoCache` instead, which works cluster by cluster.
 */
import type { MempoolPolicy, PolicyInput, PolicyResult } from '../mempool/policy.js';
import type { Mempool, MempoolEntry } from '../mempool/mempool.js';

export class MempoolView {
  readonly version: number;
  /** Entries in insertion order; array index = policy index. */
  readonly entries: MempoolEntry[];
  readonly index = new Map<string, number>();
  readonly input: PolicyInput;
  private policyResult: PolicyResult | undefined;
  private readonly memo = new Map<string, unknown>();

  /** Complexity: O(n log n) (the txid ranking sort); the policy runs on first use of `policy`. */
  constructor(
    mempool: Mempool,
    private readonly runPolicy: MempoolPolicy,
  ) {
    this.version = mempool.version;
    this.entries = [...mempool.all()];
    const n = this.entries.length;
    for (let i = 0; i < n; i++) this.index.set(this.entries[i]!.tx.txid, i);
    const feeSat = new Float64Array(n);
    const weightWu = new Uint32Array(n);
    const sigopCost = new Uint32Array(n);
    const parentOffsets = new Uint32Array(n + 1);
    const parents: number[] = [];
    for (let i = 0; i < n; i++) {
      const e = this.entries[i]!;
      feeSat[i] = e.feeSat;
      weightWu[i] = e.tx.weight;
      sigopCost[i] = e.sigopCost;
      for (const p of e.parents) parents.push(this.index.get(p)!);
      parentOffsets[i + 1] = parents.length;
    }
    this.input = { feeSat, weightWu, sigopCost, parentOffsets, parentIndices: Uint32Array.from(parents), txidRank: txidRanks(this.entries) };
  }

  get size(): number {
    return this.entries.length;
  }

  /** Template order and chunks, computed on first use. */
  get policy(): PolicyResult {
    this.policyResult ??= this.runPolicy(this.input);
    return this.policyResult;
  }

  /** Caches any other derived value for the lifetime of this version (e.g. serialized answers). */
  cached<T>(key: string, make: () => T): T {
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as T;
  }
}

/**
 * Rank of each entry's txid in Core's uint256 order, which compares the internal (byte-reversed)
 * representation from its first byte: the display hex read back to front. Sorted on a 48-bit
 * numeric prefix of that order, ties broken on the full key. Complexity: O(n log n).
 */
function txidRanks(entries: readonly MempoolEntry[]): Uint32Array {
  const n = entries.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = entries[i]!.tx.txid;
    let k = 0;
    for (let j = 0; j < 6; j++) k = k * 256 + parseInt(t.substr(62 - 2 * j, 2), 16);
    keys[i] = k;
  }
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => keys[a]! - keys[b]! || compareReversed(entries[a]!.tx.txid, entries[b]!.tx.txid));
  const rank = new Uint32Array(n);
  for (let r = 0; r < n; r++) rank[order[r]!] = r;
  return rank;
}

function compareReversed(a: string, b: string): number {
  for (let i = 62; i >= 0; i -= 2) {
    const x = a.substr(i, 2);
    const y = b.substr(i, 2);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
