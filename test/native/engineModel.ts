/**
 * A mempool model for the incremental engine's tests: transactions by txid with stable slots
 * (freed slots are reused), turning its changes into engine diffs, and the per-txid chunk rates
 * of a result.
 */
import { expect } from 'vitest';

import type { EngineDiff, EngineResult } from '../../src/optimizer/incremental/incrementalEngine.js';
import { KEY_WORDS, writeTxidKey } from '../../src/optimizer/cache/txLookup.js';

export interface Tx {
  txid: string;
  fee: number;
  weight: number;
  sigops: number;
  parents: string[];
}

/** A mempool model with slots, turning its changes into engine diffs. */
export class Model {
  readonly txs = new Map<string, Tx>();
  readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  private nextSlot = 0;
  private removed: number[] = [];
  private upserts: Tx[] = [];

  add(tx: Tx): void {
    this.txs.set(tx.txid, tx);
    this.upserts.push(tx);
  }
  setFee(txid: string, fee: number): void {
    const tx = this.txs.get(txid);
    if (!tx) return;
    tx.fee = fee;
    this.upserts.push(tx);
  }
  remove(txid: string): void {
    if (!this.txs.delete(txid)) return;
    const slot = this.slotOf.get(txid);
    if (slot !== undefined) {
      this.removed.push(slot);
      this.slotOf.delete(txid);
      this.free.push(slot);
    }
    for (const tx of this.txs.values()) tx.parents = tx.parents.filter((p) => p !== txid);
  }
  children(txid: string): Tx[] {
    return [...this.txs.values()].filter((t) => t.parents.includes(txid));
  }
  descendants(txid: string, out = new Set<string>()): Set<string> {
    for (const c of this.children(txid)) if (!out.has(c.txid)) this.descendants(c.txid, out.add(c.txid));
    return out;
  }
  ancestors(txid: string, out = new Set<string>()): Set<string> {
    for (const p of this.txs.get(txid)?.parents ?? []) if (!out.has(p)) this.ancestors(p, out.add(p));
    return out;
  }

  /** The pending changes as one diff (live txs only), in the order given. */
  takeDiff(): EngineDiff {
    // Newest first: children come before their parents in the diff (the engine links in a second pass).
    const ups = [...new Map(this.upserts.filter((t) => this.txs.get(t.txid) === t).map((t) => [t.txid, t])).values()].reverse();
    for (const t of ups) {
      if (!this.slotOf.has(t.txid)) this.slotOf.set(t.txid, this.free.pop() ?? this.nextSlot++);
    }
    return diffOf(ups, (t) => this.slotOf.get(t) ?? -1, this.take());
  }
  private take(): number[] {
    const r = this.removed;
    this.removed = [];
    this.upserts = [];
    return r;
  }
  /** The whole mempool as one diff for a fresh engine (slots 0..n-1). */
  everything(): EngineDiff {
    const all = [...this.txs.values()];
    const slots = new Map(all.map((t, i) => [t.txid, i]));
    return diffOf(all, (t) => slots.get(t) ?? -1, []);
  }
}

export function diffOf(txs: Tx[], slot: (txid: string) => number, removed: number[]): EngineDiff {
  const m = txs.length;
  const d: EngineDiff = {
    removed: Uint32Array.from(removed),
    slots: new Uint32Array(m),
    feeSat: new Float64Array(m),
    weightWu: new Uint32Array(m),
    sigopCost: new Uint32Array(m),
    keys: new Uint32Array(m * KEY_WORDS),
    parentOffsets: new Uint32Array(m + 1),
    parentSlots: new Uint32Array(txs.reduce((s, t) => s + t.parents.length, 0)),
  };
  let k = 0;
  txs.forEach((t, i) => {
    d.slots[i] = slot(t.txid);
    d.feeSat[i] = t.fee;
    d.weightWu[i] = t.weight;
    d.sigopCost[i] = t.sigops;
    writeTxidKey(t.txid, d.keys, i * KEY_WORDS);
    d.parentOffsets[i] = k;
    for (const p of t.parents) d.parentSlots[k++] = slot(p);
  });
  d.parentOffsets[m] = k;
  return d;
}

/** Per txid: its chunk fee rate (equal fractions give equal doubles: division rounds correctly). */
export function chunkRates(r: EngineResult, txidOfSlot: (slot: number) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < r.slotOfIndex.length; i++) {
    const txid = txidOfSlot(r.slotOfIndex[i] ?? -1);
    // The lookup key is the txid's first 64 bits in Core's order.
    const key = new Uint32Array(KEY_WORDS);
    writeTxidKey(txid, key, 0);
    expect(Array.from(r.keys.subarray(2 * i, 2 * i + 2))).toEqual([key[0], key[1]]);
    out.set(txid, r.txChunkFeeRateSatVb[i] ?? NaN);
  }
  return out;
}

