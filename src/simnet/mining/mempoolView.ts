/**
 * A frozen, array-form snapshot of the mempool at one `version` — the policy input of the whole
 * mempool — with the policy result (template order, per-transaction chunks) and other derived
 * values computed lazily and at most once. Used by the template, mining and the fee estimator;
 * per-entry RPC data comes from `EntryInfoCache` instead, which works cluster by cluster.
 */
import { txidRanks } from '../../bitcoin/txidOrder.js';
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
    for (const [i, e] of this.entries.entries()) this.index.set(e.tx.txid, i);
    const feeSat = new Float64Array(n);
    const weightWu = new Uint32Array(n);
    const sigopCost = new Uint32Array(n);
    const parentOffsets = new Uint32Array(n + 1);
    const parents: number[] = [];
    for (const [i, e] of this.entries.entries()) {
      feeSat[i] = e.feeSat;
      weightWu[i] = e.tx.weight;
      sigopCost[i] = e.sigopCost;
      for (const p of e.parents) {
        const j = this.index.get(p);
        if (j === undefined) throw new Error(`mempool entry ${e.tx.txid} links to ${p}, which is not an entry`); // Mempool's invariant
        parents.push(j);
      }
      parentOffsets[i + 1] = parents.length;
    }
    const txidRank = txidRanks(this.entries.map((e) => e.tx.txid));
    this.input = { feeSat, weightWu, sigopCost, parentOffsets, parentIndices: Uint32Array.from(parents), txidRank };
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
