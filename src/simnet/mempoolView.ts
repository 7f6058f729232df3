/**
 * A frozen, array-form snapshot of the mempool at one `version`, with everything derived from it
 * computed lazily and at most once: ancestor/descendant counts, sizes and fees; the policy result
 * (template order and per-transaction chunks). The simulator keeps the view of the current version
 * and drops it on the next change, so `getrawmempool true` on 50,000 entries pays for the graph
 * work once per mempool change, not once per call.
 */
import { assertPolicyInput, runMempoolPolicy, type PolicyInput, type PolicyResult } from './mempoolPolicy.js';
import type { Mempool, MempoolEntry } from './mempool.js';

export interface Relatives {
  ancestorCount: Uint32Array;
  ancestorSize: Float64Array;
  ancestorFeeSat: Float64Array;
  descendantCount: Uint32Array;
  descendantSize: Float64Array;
  descendantFeeSat: Float64Array;
  /** BIP125 signalling of the tx or any in-mempool ancestor (Core's `IsRBFOptIn`), 1 or 0. */
  replaceable: Uint8Array;
  /** Size of each transaction's cluster. */
  clusterSize: Uint32Array;
}

export class MempoolView {
  readonly version: number;
  /** Entries in insertion order; array index = policy index. */
  readonly entries: MempoolEntry[];
  readonly index = new Map<string, number>();
  readonly input: PolicyInput;
  private childOffsets: Uint32Array | undefined;
  private childIndices: Uint32Array | undefined;
  private policyResult: PolicyResult | undefined;
  private relativesResult: Relatives | undefined;
  private readonly memo = new Map<string, unknown>();

  /** Complexity: O(n log n) (the txid ranking sort). */
  constructor(mempool: Mempool) {
    this.version = mempool.version;
    this.entries = [...mempool.all()];
    const n = this.entries.length;
    this.entries.forEach((e, i) => this.index.set(e.tx.txid, i));
    const feeSat = new Float64Array(n);
    const weightWu = new Uint32Array(n);
    const sigopCost = new Uint32Array(n);
    const parentOffsets = new Uint32Array(n + 1);
    const parents: number[] = [];
    this.entries.forEach((e, i) => {
      feeSat[i] = e.feeSat;
      weightWu[i] = e.tx.weight;
      sigopCost[i] = e.sigopCost;
      for (const p of e.parents) parents.push(this.index.get(p)!);
      parentOffsets[i + 1] = parents.length;
    });
    const byTxid = this.entries.map((e, i) => ({ key: reversedHex(e.tx.txid), i }));
    byTxid.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const txidRank = new Uint32Array(n);
    byTxid.forEach((x, rank) => (txidRank[x.i] = rank));
    this.input = { feeSat, weightWu, sigopCost, parentOffsets, parentIndices: Uint32Array.from(parents), txidRank };
  }

  get size(): number {
    return this.entries.length;
  }

  /** Template order and chunks, computed on first use. */
  get policy(): PolicyResult {
    if (!this.policyResult) {
      assertPolicyInput(this.input);
      this.policyResult = runMempoolPolicy(this.input);
    }
    return this.policyResult;
  }

  /** Ancestor and descendant aggregates (each including the transaction itself), computed on first use. */
  get relatives(): Relatives {
    return (this.relativesResult ??= this.computeRelatives());
  }

  /** Caches any other derived value for the lifetime of this version (e.g. serialized answers). */
  cached<T>(key: string, make: () => T): T {
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as T;
  }

  /** Children CSR (inverse of the parent CSR). */
  children(i: number): Uint32Array {
    if (!this.childOffsets || !this.childIndices) this.buildChildren();
    return this.childIndices!.subarray(this.childOffsets![i]!, this.childOffsets![i + 1]!);
  }

  parents(i: number): Uint32Array {
    return this.input.parentIndices.subarray(this.input.parentOffsets[i]!, this.input.parentOffsets[i + 1]!);
  }

  private buildChildren(): void {
    const n = this.size;
    const { parentOffsets, parentIndices } = this.input;
    const offsets = new Uint32Array(n + 1);
    for (let k = 0; k < parentIndices.length; k++) offsets[parentIndices[k]! + 1]!++;
    for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
    const fill = offsets.slice(0, n);
    const indices = new Uint32Array(parentIndices.length);
    for (let i = 0; i < n; i++) for (let k = parentOffsets[i]!; k < parentOffsets[i + 1]!; k++) indices[fill[parentIndices[k]!]!++] = i;
    this.childOffsets = offsets;
    this.childIndices = indices;
  }

  /** Complexity: O(Σ (ancestors + descendants)) — at most 64 per transaction under v31's cluster limit. */
  private computeRelatives(): Relatives {
    const n = this.size;
    const r: Relatives = {
      ancestorCount: new Uint32Array(n),
      ancestorSize: new Float64Array(n),
      ancestorFeeSat: new Float64Array(n),
      descendantCount: new Uint32Array(n),
      descendantSize: new Float64Array(n),
      descendantFeeSat: new Float64Array(n),
      replaceable: new Uint8Array(n),
      clusterSize: new Uint32Array(n),
    };
    const stamp = new Int32Array(n).fill(-1);
    const stamp2 = new Int32Array(n).fill(-1);
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      const e = this.entries[i]!;
      r.ancestorCount[i] = 1;
      r.ancestorSize[i] = e.vsizeAdjusted;
      r.ancestorFeeSat[i] = e.feeSat;
      r.replaceable[i] = e.signalsRbf ? 1 : 0;
      stamp[i] = i;
      stack.push(i);
      while (stack.length) {
        for (const p of this.parents(stack.pop()!)) {
          if (stamp[p] === i) continue;
          stamp[p] = i;
          stack.push(p);
          r.ancestorCount[i]!++;
          r.ancestorSize[i]! += this.entries[p]!.vsizeAdjusted;
          r.ancestorFeeSat[i]! += this.entries[p]!.feeSat;
          if (this.entries[p]!.signalsRbf) r.replaceable[i] = 1;
        }
      }
      r.descendantCount[i] = 1;
      r.descendantSize[i] = e.vsizeAdjusted;
      r.descendantFeeSat[i] = e.feeSat;
      stamp2[i] = i;
      stack.push(i);
      while (stack.length) {
        for (const c of this.children(stack.pop()!)) {
          if (stamp2[c] === i) continue;
          stamp2[c] = i;
          stack.push(c);
          r.descendantCount[i]!++;
          r.descendantSize[i]! += this.entries[c]!.vsizeAdjusted;
          r.descendantFeeSat[i]! += this.entries[c]!.feeSat;
        }
      }
    }
    this.fillClusterSizes(r.clusterSize);
    return r;
  }

  private fillClusterSizes(out: Uint32Array): void {
    const n = this.size;
    const root = new Int32Array(n);
    for (let i = 0; i < n; i++) root[i] = i;
    const find = (x: number): number => {
      while (root[x] !== x) x = root[x] = root[root[x]!]!;
      return x;
    };
    for (let i = 0; i < n; i++) for (const p of this.parents(i)) root[find(i)] = find(p);
    const count = new Uint32Array(n);
    for (let i = 0; i < n; i++) count[find(i)]!++;
    for (let i = 0; i < n; i++) out[i] = count[find(i)]!;
  }
}

/** Core compares uint256 txids from the last stored byte: the display hex read back to front. */
function reversedHex(txid: string): string {
  let out = '';
  for (let i = txid.length - 2; i >= 0; i -= 2) out += txid.slice(i, i + 2);
  return out;
}
