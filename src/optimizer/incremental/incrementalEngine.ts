/**
 * The native incremental engine (native/incremental.h), typed, plus the txid key helpers shared
 * with the per-tx lookups of the published cache.
 *
 * The engine keeps the mempool by slot between cycles; `apply` takes one diff (removed slots, then
 * upserts: new transactions or new data for live ones), `build` runs a cycle re-linearizing only
 * the clusters that changed (`full`: from scratch, the periodic check). State is per engine object,
 * so it lives in the one thread that owns it (incrementalWorker.ts).
 */
import { checkOptions, loadBinding, rethrow, type NativeIncrementalEngine, type OptimizerOptions, type OptimizerResult } from '../binding/native.js';

export interface EngineDiff {
  removed: Uint32Array;
  slots: Uint32Array;
  feeSat: Float64Array;
  weightWu: Uint32Array;
  sigopCost: Uint32Array;
  /** KEY_WORDS per slot (`writeTxidKey` in txLookup.ts). */
  keys: Uint32Array;
  /** CSR over `parentSlots`, one entry per slot + 1. */
  parentOffsets: Uint32Array;
  parentSlots: Uint32Array;
}

export interface EngineResult extends Omit<OptimizerResult, 'txChunkFeeSat' | 'txChunkWeightWu' | 'linearization'> {
  /** Per index: its chunk's fee rate (Core's sigop-adjusted chunk), sat/vB. */
  txChunkFeeRateSatVb: Float64Array;
  /** Index (of the result's arrays) → slot; indices are in Core's txid order. */
  slotOfIndex: Uint32Array;
  /** LOOKUP_WORDS per index, ascending: the first words of the txid keys of the result's transactions. */
  keys: Uint32Array;
  /** Slots that changed since the previous build (all on a first build). */
  dirtySlots: number;
  /** Chunks placed in mining order from the previous build's order (the others sorted and merged in; 0: a full sort). */
  keptChunks: number;
  /** Native time spent renumbering the table into the cycle's input, ms. */
  prepareMs: number;
  /** Native time after the cycle: what the next build keeps, and the per-index arrays, ms (not in timingsMs). */
  finishMs: number;
  /** Time spent turning the result into JavaScript objects and typed arrays, ms. */
  marshalMs: number;
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

  /** One cycle of the current table (`full`: without reusing anything; `withV30`: also the v30 baseline, else its totals are 0). @throws OptimizerError */
  build(options: OptimizerOptions, full: boolean, withV30 = full): EngineResult {
    checkOptions(options);
    try {
      return this.native.build(options, full, withV30) as EngineResult;
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
