/**
 * The main thread's side of incremental cycles: it follows the mempool mirror's `diff` events,
 * remembers which txids changed since the last step (O(changes)), and sends only those to the
 * engine's worker thread (incrementalWorker.ts), resolved against the mirror at send time (so a tx
 * added and removed in between is just removed). The first step, and any step after the worker
 * failed or restarted, sends the whole mirror (a reset).
 *
 * Known gaps: a parent that enters the mempool after its child (a reorg) is linked only by the next
 * reset; a removal the mirror holds back while it waits for a replacement (HOLD_REMOVED_MS) reaches
 * the engine when the mirror reports it.
 */
import type { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { MempoolDiff, MempoolMirror, MirrorTx } from '../../mempool/mirror.js';
import { startWorker } from '../../util/workerFile.js';
import type { OptimizerOptions } from '../binding/native.js';
import type { StepOutput, StepReply, StepRequest, TxBatch } from './incrementalWorker.js';

/** Packs transactions into the worker's columns. O(txs + parent links). */
export function packBatch(txs: readonly MirrorTx[]): TxBatch {
  const n = txs.length;
  const b: TxBatch = {
    count: n,
    txids: '',
    feeSat: new Float64Array(n),
    baseFeeSat: new Float64Array(n),
    weightWu: new Uint32Array(n),
    vsize: new Uint32Array(n),
    sigopCost: new Uint32Array(n),
    parentOffsets: new Uint32Array(n + 1),
    parents: '',
  };
  const ids: string[] = [];
  const parents: string[] = [];
  txs.forEach((tx, i) => {
    ids.push(tx.txid);
    // A negative modified fee (prioritisetransaction) is clamped to 0: the optimizer takes fees >= 0.
    b.feeSat[i] = Math.max(0, tx.modifiedFeeSat);
    b.baseFeeSat[i] = tx.feeSat;
    b.weightWu[i] = tx.weight;
    b.vsize[i] = tx.vsize;
    b.sigopCost[i] = tx.sigopCostLowerBound;
    b.parentOffsets[i] = parents.length;
    for (const p of tx.parents) parents.push(p);
  });
  b.parentOffsets[n] = parents.length;
  b.txids = ids.join('');
  b.parents = parents.join('');
  return b;
}

/** Transactions per message of a reset. */
const RESET_SLICE = 10_000;
/** Changed txids kept before a reset replaces them, at least (else: the mirror's size). */
const MIN_TOUCHED_BEFORE_RESET = 10_000;

export interface StepResult extends StepOutput {
  /** When the changes were taken from the mirror (ms since the epoch): the state the cycle reflects. */
  takenAt: number;
  tipHeight: number;
  tipHash: string;
  reset: boolean;
  /** The mirror's transaction count when the changes were taken (the engine's count should equal it). */
  mirrorTxCount: number;
  /** Main-thread time spent collecting and packing the changes, ms (a reset's slices added up). */
  packMs: number;
}

export interface IncrementalRunnerOptions {
  mirror: MempoolMirror;
  /** Transactions per message of a reset (default RESET_SLICE). */
  resetSlice?: number;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

export class IncrementalRunner {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (o: StepOutput) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private sending: Promise<void> = Promise.resolve();
  private touched = new Set<string>();
  /** A block arrived (the template is for the next height even if no transaction changed). */
  private tipChanged = false;
  private needsReset = true;
  private readonly now: () => number;
  private readonly onDiff = (d: MempoolDiff) => this.note(d);
  /** Called after each diff that changed something (the service schedules a step). */
  onChange: (() => void) | undefined;
  /** Steps sent, resets among them, and worker failures. */
  readonly counters = { steps: 0, resets: 0, failures: 0 };

  constructor(private readonly options: IncrementalRunnerOptions) {
    this.now = options.now ?? Date.now;
    options.mirror.on('diff', this.onDiff);
  }

  /** Whether the mempool changed since the last step (or the engine needs a reset). */
  get hasChanges(): boolean {
    return this.needsReset || this.touched.size > 0 || this.tipChanged;
  }

  /** Whether the next step resends the whole mirror. */
  get willReset(): boolean {
    return this.needsReset;
  }

  /** Changes waiting for the next step. */
  get pendingChanges(): number {
    return this.touched.size;
  }

  private note(d: MempoolDiff): void {
    // A reset sends the whole mirror anyway; and a replica that does not step (an optimizer
    // follower) must not collect every txid it ever saw: past the mirror's own size, a reset is
    // both cheaper and bounded.
    if (!this.needsReset) {
      for (const tx of d.added) this.touched.add(tx.txid);
      for (const r of d.removed) this.touched.add(r.tx.txid);
      if (this.touched.size > Math.max(this.options.mirror.txs.size, MIN_TOUCHED_BEFORE_RESET)) {
        this.needsReset = true;
        this.touched = new Set();
      }
    }
    if (d.blocks.length) this.tipChanged = true;
    if (d.added.length || d.removed.length || d.blocks.length) this.onChange?.();
  }

  /** Forget the engine's state: the next step resends the whole mirror. */
  invalidate(): void {
    this.needsReset = true;
  }

  private spawn(): Worker {
    const worker = startWorker(import.meta.url, 'incrementalWorker');
    worker.on('message', (reply: StepReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.output);
      else {
        this.needsReset = true;
        p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      }
    });
    const fail = (e: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.needsReset = true;
      this.counters.failures += 1;
      this.options.logger?.error({ err: e }, 'incremental optimizer worker failed; the next step resends the mempool');
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`incremental optimizer worker exited with code ${code}`)));
    worker.unref();
    return worker;
  }

  /**
   * One cycle of the engine on the mirror's current state: the changes since the last step (or
   * everything, after a reset). `full`: from scratch; `check`: compare with an incremental cycle
   * of the same state first. Main-thread work: O(changes), except on a reset.
   */
  step(optimizerOptions: OptimizerOptions, mode: { full: boolean; check: boolean }): Promise<StepResult> {
    // Steps are sent one after the other: a reset goes out in slices, and nothing may come between.
    const run = this.sending.then(() => this.send(optimizerOptions, mode));
    this.sending = run.then(
      () => undefined,
      () => undefined,
    );
    return run.then(({ reply, ...rest }) => reply.then((output) => ({ ...output, ...rest })));
  }

  private async send(
    optimizerOptions: OptimizerOptions,
    mode: { full: boolean; check: boolean },
  ): Promise<Omit<StepResult, keyof StepOutput> & { reply: Promise<StepOutput> }> {
    const { mirror } = this.options;
    let started = performance.now();
    const takenAt = this.now();
    const tip = { tipHeight: mirror.tipHeight ?? 0, tipHash: mirror.tipHash ?? '', mirrorTxCount: mirror.txs.size };
    const reset = this.needsReset;
    let upserts: MirrorTx[] = [];
    const removed: string[] = [];
    if (reset) upserts = Array.from(mirror.txs.values());
    else {
      for (const txid of this.touched) {
        const tx = mirror.txs.get(txid);
        if (tx) upserts.push(tx);
        else removed.push(txid);
      }
    }
    this.touched = new Set();
    this.needsReset = false;
    this.tipChanged = false;
    this.worker ??= this.spawn();
    const worker = this.worker;
    this.counters.steps += 1;
    if (reset) this.counters.resets += 1;
    let packMs = 0;
    // A reset (the whole mempool) goes in slices with a turn of the event loop between them.
    const slice = this.options.resetSlice ?? RESET_SLICE;
    for (let k = 0; k + slice < upserts.length; k += slice) {
      this.post(worker, {
        id: 0,
        reset: reset && k === 0,
        upserts: packBatch(upserts.slice(k, k + slice)),
        removed: '',
        options: optimizerOptions,
        full: false,
        check: false,
        build: false,
      });
      packMs += performance.now() - started;
      await new Promise((resolve) => setImmediate(resolve));
      started = performance.now();
    }
    const last = upserts.length > slice ? upserts.slice(upserts.length - ((upserts.length - 1) % slice) - 1) : upserts;
    const id = this.nextId++;
    const req: StepRequest = {
      id,
      reset: reset && last.length === upserts.length,
      upserts: packBatch(last),
      removed: removed.join(''),
      options: optimizerOptions,
      full: mode.full,
      check: mode.check,
      build: true,
    };
    if (this.worker !== worker) throw new Error('the incremental optimizer worker failed while the mempool was sent');
    const reply = new Promise<StepOutput>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.post(worker, req);
    packMs += performance.now() - started;
    return { ...tip, takenAt, reset, packMs, reply };
  }

  private post(worker: Worker, req: StepRequest): void {
    const { feeSat, baseFeeSat, weightWu, vsize, sigopCost, parentOffsets } = req.upserts;
    worker.postMessage(
      req,
      [feeSat, baseFeeSat, weightWu, vsize, sigopCost, parentOffsets].map((a) => a.buffer as ArrayBuffer),
    );
  }

  async close(): Promise<void> {
    this.options.mirror.off('diff', this.onDiff);
    const worker = this.worker;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new Error('incremental optimizer closed'));
    this.pending.clear();
    await worker?.terminate();
  }
}
