/**
 * The one worker thread that owns the incremental engine (its state is per thread). It keeps the
 * txid ↔ slot table, turns each batch of changed transactions into an engine diff, runs the cycle
 * and answers with what the published cache needs: the templates as txids, the totals, and the
 * per-tx lookups as txid-sorted typed arrays (transferred, not copied). All O(n) work of a cycle
 * happens here, off the event loop; the main thread only packs the changes (O(diff)).
 */
import { parentPort } from 'node:worker_threads';
import { IncrementalEngine, type EngineDiff, type EngineResult } from './incrementalEngine.js';
import { KEY_WORDS, writeTxidKey } from '../cache/txLookup.js';
import type { OptimizerOptions, TemplateSelection } from '../binding/native.js';
import type { CycleOutput, SelectionTxids } from '../cache/templateCache.js';

/** Transactions as columns; txids (and parents) are 64-character runs of one string. */
export interface TxBatch {
  count: number;
  txids: string;
  feeSat: Float64Array;
  baseFeeSat: Float64Array;
  weightWu: Uint32Array;
  vsize: Uint32Array;
  sigopCost: Uint32Array;
  parentOffsets: Uint32Array;
  parents: string;
}

export interface StepRequest {
  id: number;
  /** Forget the table first (the batch then holds the whole mempool). */
  reset: boolean;
  upserts: TxBatch;
  /** Removed txids, 64 characters each. */
  removed: string;
  options: OptimizerOptions;
  /** A from-scratch cycle of the table; with `check`, an incremental one first, compared. */
  full: boolean;
  check: boolean;
  /** false: no cycle and no reply; applied with the next message that asks for one (the first slices of a reset). */
  build: boolean;
}

/** What a step sends back: the cycle output's parts the worker computes (templateCache.ts), plus its own figures. */
export interface StepOutput extends Pick<
  CycleOutput,
  'optimized' | 'baselineV31' | 'baselineV30' | 'v31WithinRequestLimits' | 'upperBound' | 'tailSearch' | 'projectedBlocks' | 'clusters' | 'timingsMs' | 'lookup'
> {
  totals: { txCount: number; vsize: number; weightWu: number; feeSat: number };
  engine: {
    dirtySlots: number;
    upserts: number;
    removed: number;
    applyMs: number;
    buildMs: number;
    prepareMs: number;
    /** Native, after the cycle (not in timingsMs), and the result's marshalling, ms. */
    finishMs: number;
    marshalMs: number;
  };
  /** With `check`: the incremental cycle of the same state, and whether it matched the full one. */
  check: { match: boolean; incremental: { feeSat: number; weightWu: number; upperBoundFeeSat: number } } | null;
}

export type StepReply = { id: number; ok: true; output: StepOutput } | { id: number; ok: false; error: { code: string | null; message: string } };

const txidAt = (s: string, i: number) => s.slice(64 * i, 64 * i + 64);

/** The worker's table: slots, the txid of each, and running totals. */
export class SlotTable {
  readonly engine = new IncrementalEngine();
  private readonly slotOf = new Map<string, number>();
  private txidOf: string[] = [];
  private vsizeOf: number[] = [];
  private weightOf: number[] = [];
  private baseFeeOf: number[] = [];
  private free: number[] = [];
  readonly totals = { txCount: 0, vsize: 0, weightWu: 0, feeSat: 0 };

  reset(): void {
    this.engine.clear();
    this.slotOf.clear();
    this.txidOf = [];
    this.vsizeOf = [];
    this.weightOf = [];
    this.baseFeeOf = [];
    this.free = [];
    Object.assign(this.totals, { txCount: 0, vsize: 0, weightWu: 0, feeSat: 0 });
  }

  txid(slot: number): string {
    return this.txidOf[slot] ?? '';
  }

  private account(slot: number, sign: 1 | -1): void {
    this.totals.txCount += sign;
    this.totals.vsize += sign * (this.vsizeOf[slot] ?? 0);
    this.totals.weightWu += sign * (this.weightOf[slot] ?? 0);
    this.totals.feeSat += sign * (this.baseFeeOf[slot] ?? 0);
  }

  /** Applies removals then upserts to the table and the engine. O(diff + parent links). */
  apply(removed: string, b: TxBatch): void {
    const removedSlots: number[] = [];
    for (let i = 0; i < removed.length / 64; i++) {
      const txid = txidAt(removed, i);
      const slot = this.slotOf.get(txid);
      if (slot === undefined) continue;
      this.slotOf.delete(txid);
      this.account(slot, -1);
      removedSlots.push(slot);
      this.free.push(slot);
    }
    const slots = new Uint32Array(b.count);
    for (let i = 0; i < b.count; i++) {
      const txid = txidAt(b.txids, i);
      let slot = this.slotOf.get(txid);
      if (slot === undefined) {
        slot = this.free.pop() ?? this.txidOf.length;
        this.slotOf.set(txid, slot);
        this.txidOf[slot] = txid;
      } else this.account(slot, -1);
      this.vsizeOf[slot] = b.vsize[i] ?? 0;
      this.weightOf[slot] = b.weightWu[i] ?? 0;
      this.baseFeeOf[slot] = b.baseFeeSat[i] ?? 0;
      this.account(slot, 1);
      slots[i] = slot;
    }
    const keys = new Uint32Array(b.count * KEY_WORDS);
    for (let i = 0; i < b.count; i++) writeTxidKey(txidAt(b.txids, i), keys, i * KEY_WORDS);
    const parentOffsets = new Uint32Array(b.count + 1);
    const parentSlots: number[] = [];
    for (let i = 0; i < b.count; i++) {
      parentOffsets[i] = parentSlots.length;
      for (let k = b.parentOffsets[i] ?? 0; k < (b.parentOffsets[i + 1] ?? 0); k++) {
        const p = this.slotOf.get(txidAt(b.parents, k));
        if (p !== undefined) parentSlots.push(p);
      }
    }
    parentOffsets[b.count] = parentSlots.length;
    const diff: EngineDiff = {
      removed: Uint32Array.from(removedSlots),
      slots,
      feeSat: b.feeSat,
      weightWu: b.weightWu,
      sigopCost: b.sigopCost,
      keys,
      parentOffsets,
      parentSlots: Uint32Array.from(parentSlots),
    };
    this.engine.apply(diff);
  }

  selection(s: TemplateSelection, r: EngineResult): SelectionTxids {
    const txids = Array.from(s.indices, (i) => this.txid(r.slotOfIndex[i] ?? -1));
    return { txids, txCount: s.txCount, feeSat: s.feeSat, weightWu: s.weightWu, adjustedWeightWu: s.adjustedWeightWu, sigopCost: s.sigopCost };
  }
}

function totalsOf(s: TemplateSelection): Omit<TemplateSelection, 'indices'> {
  return { txCount: s.txCount, feeSat: s.feeSat, weightWu: s.weightWu, adjustedWeightWu: s.adjustedWeightWu, sigopCost: s.sigopCost };
}

/** One step: apply, build (and check), and shape the answer. */
export function runStep(table: SlotTable, req: StepRequest): StepOutput {
  const t0 = performance.now();
  if (req.reset) table.reset();
  table.apply(req.removed, req.upserts);
  const t1 = performance.now();
  let check: StepOutput['check'] = null;
  if (req.full && req.check) {
    const inc = table.engine.build(req.options, false);
    check = { match: false, incremental: { feeSat: inc.optimized.feeSat, weightWu: inc.optimized.weightWu, upperBoundFeeSat: inc.upperBound.feeSat } };
  }
  const r = table.engine.build(req.options, req.full);
  if (check) {
    const i = check.incremental;
    check.match = i.feeSat === r.optimized.feeSat && i.weightWu === r.optimized.weightWu && i.upperBoundFeeSat === r.upperBound.feeSat;
  }
  const t2 = performance.now();
  return {
    optimized: table.selection(r.optimized, r),
    baselineV31: table.selection(r.baselineV31, r),
    baselineV30: req.full ? totalsOf(r.baselineV30) : null,
    v31WithinRequestLimits: r.v31WithinRequestLimits,
    upperBound: r.upperBound,
    tailSearch: r.tailSearch,
    projectedBlocks: r.projectedBlocks,
    clusters: r.clusters,
    timingsMs: r.timingsMs,
    lookup: { keys: r.keys, chunkFeeRateSatVb: r.txChunkFeeRateSatVb, projectedBlock: r.txProjectedBlock },
    totals: { ...table.totals },
    engine: {
      dirtySlots: r.dirtySlots,
      upserts: req.upserts.count,
      removed: req.removed.length / 64,
      applyMs: t1 - t0,
      buildMs: t2 - t1,
      prepareMs: r.prepareMs,
      finishMs: r.finishMs,
      marshalMs: r.marshalMs,
    },
    check,
  };
}

/** Concatenates batches into one (parents stay txids, so a parent may sit in a later batch). */
export function concatBatches(batches: readonly TxBatch[]): TxBatch {
  if (batches.length === 1 && batches[0]) return batches[0];
  const count = batches.reduce((n, b) => n + b.count, 0);
  const out: TxBatch = {
    count,
    txids: batches.map((b) => b.txids).join(''),
    feeSat: new Float64Array(count),
    baseFeeSat: new Float64Array(count),
    weightWu: new Uint32Array(count),
    vsize: new Uint32Array(count),
    sigopCost: new Uint32Array(count),
    parentOffsets: new Uint32Array(count + 1),
    parents: batches.map((b) => b.parents).join(''),
  };
  let at = 0;
  let links = 0;
  for (const b of batches) {
    out.feeSat.set(b.feeSat, at);
    out.baseFeeSat.set(b.baseFeeSat, at);
    out.weightWu.set(b.weightWu, at);
    out.vsize.set(b.vsize, at);
    out.sigopCost.set(b.sigopCost, at);
    for (let i = 0; i < b.count; i++) out.parentOffsets[at + i] = links + (b.parentOffsets[i] ?? 0);
    at += b.count;
    links += b.parentOffsets[b.count] ?? 0;
  }
  out.parentOffsets[count] = links;
  return out;
}

/**
 * The worker's message handling: apply-only messages (the first slices of a large send) wait, and
 * the message that asks for a cycle applies them all with its own as one diff, so parent links
 * resolve whatever slice a parent came in. Returns the reply, or null for an apply-only message.
 */
export class WorkerState {
  readonly table = new SlotTable();
  private waiting: StepRequest[] = [];

  handle(req: StepRequest): StepReply | null {
    if (req.reset) this.waiting = [];
    if (!req.build) {
      this.waiting.push(req);
      return null;
    }
    const all = [...this.waiting, req];
    this.waiting = [];
    try {
      const merged: StepRequest = {
        ...req,
        reset: all.some((r) => r.reset),
        removed: all.map((r) => r.removed).join(''),
        upserts: concatBatches(all.map((r) => r.upserts)),
      };
      return { id: req.id, ok: true, output: runStep(this.table, merged) };
    } catch (e) {
      // The table may be half-applied: forget it; the main thread resends everything next time.
      this.table.reset();
      const err = e as { code?: unknown; message?: unknown };
      return { id: req.id, ok: false, error: { code: typeof err.code === 'string' ? err.code : null, message: String(err.message ?? e) } };
    }
  }
}

if (parentPort) {
  const port = parentPort;
  const state = new WorkerState();
  port.on('message', (req: StepRequest) => {
    const reply = state.handle(req);
    if (!reply) return;
    if (!reply.ok) {
      port.postMessage(reply);
      return;
    }
    const { keys, chunkFeeRateSatVb, projectedBlock } = reply.output.lookup;
    port.postMessage(reply, [keys.buffer as ArrayBuffer, chunkFeeRateSatVb.buffer as ArrayBuffer, projectedBlock.buffer as ArrayBuffer]);
  });
}
