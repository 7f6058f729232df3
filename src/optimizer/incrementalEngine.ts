/**
 * The native incremental engine (native/incremental.h), typed, plus the txid key helpers shared
 * with the per-tx lookups of the published cache.
 *
 * The engine keeps the mempool by slot between cycles; `apply` takes one diff (removed slots, then
 * upserts: new transactions or new data for live ones), `build` runs a cycle re-linearizing only
 * the clusters that changed (`full`: from scratch, the periodic check). State is per engine object,
 * so it lives in the one thread that owns it (incrementalWorker.ts).
 */
import { checkOptions, loadBinding, rethrow, type NativeIncrementalEngine, type OptimizerOptions, type OptimizerResult } from './native.js';

/** Words per txid key: the txid's internal bytes (Core's memcmp order) as 8 big-endian uint32. */
export const KEY_WORDS = 8;

export interface EngineDiff {
  removed: Uint32Array;
  slots: Uint32Array;
  feeSat: Float64Array;
  weightWu: Uint32Array;
  sigopCost: Uint32Array;
  /** KEY_WORDS per slot (`writeTxidKey`). */
  keys: Uint32Array;
  /** CSR over `parentSlots`, one entry per slot + 1. */
  parentOffsets: Uint32Array;
  parentSlots: Uint32Array;
}

export interface EngineResult extends OptimizerResult {
  /** Index (of the result's arrays) → slot; indices are in Core's txid order. */
  slotOfIndex: Uint32Array;
  /** KEY_WORDS per index, ascending: the txid keys of the result's transactions. */
  keys: Uint32Array;
  /** Slots that changed since the previous build (all on a first build). */
  dirtySlots: number;
  /** Native time spent renumbering the table into the cycle's input, ms. */
  prepareMs: number;
}

/**
 * Writes the txid's key at `out[offset .. offset + 8)`: display hex is the byte-reversed internal
 * form, so word k is built from hex characters 56 - 8k .. 64 - 8k read back to front by byte.
 */
export function writeTxidKey(txid: string, out: Uint32Array, offset: number): void {
  for (let w = 0; w < KEY_WORDS; w++) {
    let v = 0;
    for (let b = 0; b < 4; b++) {
      const pos = 62 - 2 * (4 * w + b);
      v = v * 256 + parseInt(txid.slice(pos, pos + 2), 16);
    }
    out[offset + w] = v >>> 0;
  }
}

/** The txid whose key sits at `keys[i*8 ..]` (inverse of writeTxidKey). */
export function txidOfKey(keys: Uint32Array, i: number): string {
  let hex = '';
  for (let w = KEY_WORDS - 1; w >= 0; w--) {
    const v = keys[i * KEY_WORDS + w] ?? 0;
    for (let b = 0; b < 4; b++) hex += ((v >>> (8 * b)) & 0xff).toString(16).padStart(2, '0');
  }
  return hex;
}

const probe = new Uint32Array(KEY_WORDS);

/** Index of `txid` in an ascending key array, or -1. O(log n). */
export function findTxidKey(keys: Uint32Array, txid: string): number {
  if (!/^[0-9a-f]{64}$/i.test(txid)) return -1;
  writeTxidKey(txid, probe, 0);
  let lo = 0;
  let hi = keys.length / KEY_WORDS;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let cmp = 0;
    for (let w = 0; w < KEY_WORDS && cmp === 0; w++) {
      const a = keys[mid * KEY_WORDS + w] ?? 0;
      const b = probe[w] ?? 0;
      cmp = a < b ? -1 : a > b ? 1 : 0;
    }
    if (cmp === 0) return mid;
    if (cmp < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

export class IncrementalEngine {
  private readonly native: NativeIncrementalEngine;

  constructor() {
    this.native = new (loadBinding().IncrementalEngine)();
  }

  /** Applies one diff; returns the live transaction count. @throws OptimizerError on inconsistent arrays. */
  apply(diff: EngineDiff): number {
    try {
      return this.native.apply(diff);
    } catch (err) {
      rethrow(err);
    }
  }

  /** One cycle of the current table (`full`: without reusing anything). @throws OptimizerError */
  build(options: OptimizerOptions, full: boolean): EngineResult {
    checkOptions(options);
    try {
      return this.native.build(options, full) as EngineResult;
    } catch (err) {
      rethrow(err);
    }
  }

  get size(): number {
    return this.native.size();
  }

  clear(): void {
    this.native.clear();
  }
}
