/**
 * The simulated node's mempool: entries, parent/child links, which outpoint each entry spends,
 * and per-script membership for Esplora's `mempool_stats`. Policy (what may enter) lives in
 * `acceptance.ts`; derived data (ancestor/descendant sums, chunks, template) in `mempoolView.ts`,
 * computed once per `version`.
 * Invariants: every parent/child link joins two entries; `spends` maps exactly the inputs of the
 * entries; `version` changes whenever the set of entries changes.
 */
import type { Coin } from '../chain/coin.js';
import { scriptHex } from '../tx/hash.js';
import { outpointKey, type SimTx } from '../tx/txCodec.js';

/** Height Core gives coins that only exist in the mempool (`MEMPOOL_HEIGHT`). */
export const MEMPOOL_HEIGHT = 0x7fffffff;

export interface MempoolEntry {
  tx: SimTx;
  feeSat: number;
  sigopCost: number;
  /** Sigop-adjusted virtual size (what Core's entry `vsize` reports). */
  vsizeAdjusted: number;
  /** Entry time, Unix seconds. */
  time: number;
  /** Chain height when the transaction entered. */
  height: number;
  /** The coins its inputs spend, in input order (mempool coins have height `MEMPOOL_HEIGHT`). */
  prevouts: Coin[];
  parents: Set<string>;
  children: Set<string>;
  /** Whether any input signals BIP125 (nSequence < 0xfffffffe). */
  signalsRbf: boolean;
  /** Insertion counter (Core's entry sequence), for stable ordering. */
  sequence: number;
}

export type RemovalReason = 'block' | 'replaced' | 'conflict';

export interface MempoolListener {
  /** `sequence`: the change's number in `mempoolSequence`. */
  added(entry: MempoolEntry, sequence: number): void;
  /**
   * All entries removed by one operation, in removal order (descendants before ancestors); the
   * k-th was numbered `firstSequence + k`.
   */
  removed(entries: readonly MempoolEntry[], reason: RemovalReason, firstSequence: number): void;
}

export class Mempool {
  private readonly entries = new Map<string, MempoolEntry>();
  private readonly spends = new Map<string, string>();
  private readonly byWtxid = new Map<string, string>();
  private readonly byScript = new Map<string, Set<string>>();
  private readonly listeners: MempoolListener[] = [];
  private nextSequence = 0;
  version = 0;
  /**
   * Core's mempool sequence: one number per tx added or removed (whatever the reason), what
   * `getrawmempool false true` reports as the next one and ZMQ `sequence` events carry.
   */
  mempoolSequence = 0;
  totalFeeSat = 0;
  totalVsize = 0;
  /** Rough dynamic memory use, bytes (see `entryUsage`). */
  usage = 0;

  listen(listener: MempoolListener): void {
    this.listeners.push(listener);
  }

  get size(): number {
    return this.entries.size;
  }

  get(txid: string): MempoolEntry | undefined {
    return this.entries.get(txid);
  }

  /**
   * The entry of `txid`, which the caller knows to be in the mempool (a link, a cluster member).
   * @throws Error when it is not (a simulator bug)
   */
  entry(txid: string): MempoolEntry {
    const e = this.entries.get(txid);
    if (!e) throw new Error(`mempool has no entry ${txid}`);
    return e;
  }

  has(txid: string): boolean {
    return this.entries.has(txid);
  }

  hasWtxid(wtxid: string): boolean {
    return this.byWtxid.has(wtxid);
  }

  /** Entries in insertion order. */
  all(): IterableIterator<MempoolEntry> {
    return this.entries.values();
  }

  /** Txid of the entry spending `key` (`txid:vout`), if any. */
  spender(key: string): string | undefined {
    return this.spends.get(key);
  }

  /** The output `vout` of mempool transaction `txid` as a coin, if that entry exists. */
  outputCoin(txid: string, vout: number): Coin | undefined {
    const e = this.entries.get(txid);
    const out = e?.tx.outputs[vout];
    if (!out) return undefined;
    return { txid, vout, valueSat: out.valueSat, script: out.script, height: MEMPOOL_HEIGHT, coinbase: false };
  }

  /** Txids of entries that pay to or spend from `scriptHex`. */
  touching(scriptHex: string): ReadonlySet<string> {
    return this.byScript.get(scriptHex) ?? new Set();
  }

  /**
   * Adds an entry whose inputs are available (checked by the caller). Links parents and children.
   * Complexity: O(inputs + outputs).
   */
  add(init: Omit<MempoolEntry, 'parents' | 'children' | 'sequence'>): MempoolEntry {
    const entry: MempoolEntry = { ...init, parents: new Set(), children: new Set(), sequence: this.nextSequence++ };
    const txid = entry.tx.txid;
    for (const input of entry.tx.inputs) {
      this.spends.set(outpointKey(input.txid, input.vout), txid);
      const parent = this.entries.get(input.txid);
      if (parent) {
        entry.parents.add(parent.tx.txid);
        parent.children.add(txid);
      }
    }
    // A transaction already in the mempool may spend this one's outputs only if it arrived first,
    // which cannot happen (its inputs were missing), so there are no children to link here.
    this.entries.set(txid, entry);
    this.byWtxid.set(entry.tx.wtxid, txid);
    for (const hex of scriptsOf(entry)) {
      let set = this.byScript.get(hex);
      if (!set) this.byScript.set(hex, (set = new Set()));
      set.add(txid);
    }
    this.totalFeeSat += entry.feeSat;
    this.totalVsize += entry.vsizeAdjusted;
    this.usage += entryUsage(entry);
    this.version++;
    const sequence = this.mempoolSequence++;
    for (const l of this.listeners) l.added(entry, sequence);
    return entry;
  }

  /**
   * Removes `txids` (which must be closed under descendants unless `reason` is 'block', where the
   * remaining children simply lose their parent link). Complexity: O(removed inputs + outputs).
   */
  remove(txids: Iterable<string>, reason: RemovalReason): MempoolEntry[] {
    const removed: MempoolEntry[] = [];
    for (const txid of txids) {
      const entry = this.entries.get(txid);
      if (!entry) continue;
      this.entries.delete(txid);
      this.byWtxid.delete(entry.tx.wtxid);
      for (const input of entry.tx.inputs) {
        const key = outpointKey(input.txid, input.vout);
        if (this.spends.get(key) === txid) this.spends.delete(key);
      }
      for (const p of entry.parents) this.entries.get(p)?.children.delete(txid);
      for (const c of entry.children) this.entries.get(c)?.parents.delete(txid);
      for (const hex of scriptsOf(entry)) {
        const set = this.byScript.get(hex);
        set?.delete(txid);
        if (set && set.size === 0) this.byScript.delete(hex);
      }
      this.totalFeeSat -= entry.feeSat;
      this.totalVsize -= entry.vsizeAdjusted;
      this.usage -= entryUsage(entry);
      removed.push(entry);
    }
    if (removed.length === 0) return removed;
    this.version++;
    const firstSequence = this.mempoolSequence;
    this.mempoolSequence += removed.length;
    for (const l of this.listeners) l.removed(removed, reason, firstSequence);
    return removed;
  }

  /** In-mempool ancestors of `txid` (excluding itself). Complexity: O(ancestors). */
  ancestors(txid: string): Set<string> {
    return this.walk(txid, (e) => e.parents);
  }

  /** In-mempool descendants of `txid` (excluding itself). Complexity: O(descendants). */
  descendants(txid: string): Set<string> {
    return this.walk(txid, (e) => e.children);
  }

  /** The connected component (cluster) of `txid`, itself included. Complexity: O(cluster). */
  cluster(txid: string): Set<string> {
    return this.walk(txid, (e) => [...e.parents, ...e.children], new Set([txid]));
  }

  /** Everything reachable from `txid` over `links`, added to `seen` in visiting order. */
  private walk(txid: string, links: (e: MempoolEntry) => Iterable<string>, seen = new Set<string>()): Set<string> {
    const stack = [txid];
    for (let current = stack.pop(); current !== undefined; current = stack.pop()) {
      const e = this.entries.get(current);
      if (!e) continue;
      for (const next of links(e)) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return seen;
  }
}

function scriptsOf(entry: MempoolEntry): Set<string> {
  const set = new Set<string>();
  for (const o of entry.tx.outputs) set.add(scriptHex(o.script));
  for (const c of entry.prevouts) set.add(scriptHex(c.script));
  return set;
}

/**
 * Approximate memory of an entry: Core's `DynamicMemoryUsage` of a mempool entry is roughly the
 * transaction's in-memory form (~3 × serialized size) plus ~400 bytes of entry and index overhead.
 */
function entryUsage(entry: MempoolEntry): number {
  return 400 + entry.tx.size * 3;
}
