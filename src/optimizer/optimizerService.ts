/**
 * The optimizer cycle: every `OPTIMIZER_INTERVAL_SEC`, never overlapping, abandoned after
 * `OPTIMIZER_TIMEOUT_SEC`. Each cycle fetches the node's `getblocktemplate` baseline, snapshots the
 * mempool mirror right after, runs the native optimizer off the event loop, compares, signs a
 * receipt and publishes a new cache atomically. A failed cycle records `lastError`; the previous
 * cache keeps serving. The running phase and its timings are public (cache-stats), so a slow cycle
 * is visible while it runs.
 *
 * With incremental cycles (`OPTIMIZER_INCREMENTAL_MS` > 0, an `IncrementalRunner`), the mempool
 * lives in the incremental engine's worker: a full cycle sends it the changes since the last step
 * and runs a from-scratch cycle there, checked against an incremental cycle of the same state
 * (a mismatch is logged and counted; the from-scratch state replaces it). Between full cycles,
 * each mempool change schedules an incremental cycle at most every `OPTIMIZER_INCREMENTAL_MS`:
 * only the changed clusters are re-linearized, and the cache it publishes compares the optimized
 * template with our native Core v31 model of the same state (the node's getblocktemplate is
 * fetched by full cycles only). Without them, the full cycle snapshots the mirror into typed
 * arrays and runs in the piscina pool, warm-started from the previous cycle.
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_BLOCK_WEIGHT_WU } from '../bitcoin/consensus.js';
import type { Config } from '../config.js';
import type { MempoolMirror } from '../mempool/mirror.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { PeriodicTask } from '../util/periodicTask.js';
import { snapshotFromMirror } from './snapshot/mirrorSnapshot.js';
import { warmOrderFromPrevious } from './snapshot/snapshot.js';
import type { OptimizerOptions } from './binding/native.js';
import { fetchNodeBaseline } from './full/nodeBaseline.js';
import type { OptimizerPool } from './full/optimizerPool.js';
import type { ReceiptSigner } from './cache/receipts.js';
import { buildTemplateCache, publishCache, type CacheKind, type CycleOutput, type NodeBaseline, type TemplateCache } from './cache/templateCache.js';
import type { IncrementalRunner, StepResult } from './incremental/incrementalRunner.js';
import { IncrementalStats } from './incremental/incrementalStats.js';
import { WtxidBook } from './cache/wtxidBook.js';

export type CyclePhase = 'idle' | 'baseline' | 'snapshot' | 'optimize' | 'publish';
export type CycleStatus = 'ok' | 'baseline_fallback' | 'error' | 'timeout';

export interface CycleRecord {
  cycle: number;
  startedAt: string;
  durationMs: number;
  status: CycleStatus;
  error: string | null;
  phasesMs: { baseline: number | null; snapshot: number; optimize: number; publish: number };
  txCount: number;
}

export interface BaselineStatus {
  lastStatus: 'ok' | 'error' | 'timeout' | null;
  lastError: string | null;
  lastDurationMs: number | null;
  lastSuccessAt: number | null;
}

export const PROJECTED_BLOCKS = 8;
const HISTORY = 20;

export interface OptimizerServiceOptions {
  config: Config;
  mirror: MempoolMirror;
  node: BitcoinNode;
  pool: OptimizerPool;
  signer: ReceiptSigner;
  /** Incremental cycles (used when `OPTIMIZER_INCREMENTAL_MS` > 0). */
  incremental?: IncrementalRunner;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

/** `published`: a new cache serves; `cycle`: a cycle ended (any status), with its record. */
export class OptimizerService extends EventEmitter<{ published: [TemplateCache]; cycle: [CycleRecord] }> {
  cache: TemplateCache | undefined;
  cycleCount = 0;
  phase: CyclePhase = 'idle';
  phaseStartedAt: number | null = null;
  cycleStartedAt: number | null = null;
  lastStatus: CycleStatus | null = null;
  lastError: string | null = null;
  lastDurationMs: number | null = null;
  lastRefreshStartedAt: number | null = null;
  lastRefreshFinishedAt: number | null = null;
  lastSuccessAt: number | null = null;
  readonly baseline: BaselineStatus = { lastStatus: null, lastError: null, lastDurationMs: null, lastSuccessAt: null };
  readonly history: CycleRecord[] = [];
  /** Full and incremental publishes, timings, checks (cache-stats, capabilities). */
  readonly incrementalStats: IncrementalStats;

  private running: Promise<TemplateCache | undefined> | undefined;
  private incrementalRunning: Promise<void> | undefined;
  private incrementalTimer: NodeJS.Timeout | undefined;
  private started = false;
  private readonly schedule: PeriodicTask;
  private readonly now: () => number;
  private readonly wtxids: WtxidBook;

  constructor(private readonly options: OptimizerServiceOptions) {
    super();
    this.now = options.now ?? Date.now;
    this.wtxids = new WtxidBook(options.mirror);
    this.incrementalStats = new IncrementalStats(options.config.OPTIMIZER_INCREMENTAL_MS);
    if (this.incrementalEnabled && options.incremental) options.incremental.onChange = () => this.scheduleIncremental();
    this.schedule = new PeriodicTask(
      () => this.refresh(),
      () => options.config.OPTIMIZER_INTERVAL_SEC * 1000,
      this.now,
    );
  }

  get refreshInProgress(): boolean {
    return this.running !== undefined;
  }

  /** Optimizer tasks waiting for a worker thread (metrics). */
  get poolQueueDepth(): number {
    return this.options.pool.queueSize;
  }

  get optimizerOptions(): OptimizerOptions {
    const { config } = this.options;
    return {
      weightLimitWu: MAX_BLOCK_WEIGHT_WU,
      maxTxCount: config.OPTIMIZER_MAX_TX_COUNT,
      minFeeRateSatVb: config.OPTIMIZER_MIN_FEE_RATE_SAT_VB,
      projectedBlocks: PROJECTED_BLOCKS,
    };
  }

  /** Whether cycles go through the incremental engine. */
  get incrementalEnabled(): boolean {
    return this.options.config.OPTIMIZER_INCREMENTAL_MS > 0 && this.options.incremental !== undefined;
  }

  /** Starts the schedule: a first cycle now, then one every interval after the previous ends. */
  start(): void {
    this.started = true;
    this.schedule.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.schedule.stop();
    clearTimeout(this.incrementalTimer);
    this.incrementalTimer = undefined;
    this.wtxids.close();
    await this.running?.catch(() => undefined);
    await this.incrementalRunning;
  }

  /** An incremental cycle as soon as `OPTIMIZER_INCREMENTAL_MS` has passed since the last one started. */
  private scheduleIncremental(): void {
    if (!this.started || !this.incrementalEnabled || this.incrementalTimer) return;
    const last = this.incrementalStats.lastStartedAt ?? 0;
    const delay = Math.max(0, last + this.options.config.OPTIMIZER_INCREMENTAL_MS - this.now());
    this.incrementalTimer = setTimeout(() => {
      this.incrementalTimer = undefined;
      this.incrementalRunning ??= this.incrementalCycle().finally(() => {
        this.incrementalRunning = undefined;
        if (this.options.incremental?.hasChanges) this.scheduleIncremental();
      });
    }, delay);
  }

  /**
   * Runs an incremental cycle now (or joins the running one), whatever the schedule; resolves with
   * the cache it published, undefined when there was nothing to do or it failed.
   */
  async refreshIncremental(): Promise<TemplateCache | undefined> {
    await this.incrementalRunning;
    const before = this.cache;
    this.incrementalRunning ??= this.incrementalCycle().finally(() => {
      this.incrementalRunning = undefined;
    });
    await this.incrementalRunning;
    return this.cache !== before && this.cache?.kind === 'incremental' ? this.cache : undefined;
  }

  /** One incremental cycle (skipped until a full cycle published; the worker runs steps in order, so one may run while a full cycle waits for its baseline). */
  private async incrementalCycle(): Promise<void> {
    const runner = this.options.incremental;
    if (!runner || !this.cache || !runner.hasChanges) return;
    const stats = this.incrementalStats;
    const started = this.now();
    stats.lastStartedAt = started;
    try {
      const step = await runner.step({ ...this.optimizerOptions, seed: this.cycleCount + 1 }, { full: false, check: false });
      const publishStarted = performance.now();
      const cache = this.publish(this.outputOf(step, 'incremental', step.takenAt), null);
      const publishMs = performance.now() - publishStarted;
      stats.recordIncremental(this.now() - started, { ...step.engine, packMs: step.packMs, publishMs }, cache.cachedAt);
    } catch (e) {
      stats.recordError(e as Error);
      this.options.logger?.error({ err: e }, 'incremental optimizer cycle failed; the previous cache keeps serving');
    }
  }

  private outputOf(step: StepResult, kind: CacheKind, takenAt: number): CycleOutput {
    return { ...step, kind, snapshot: { ...step.totals, takenAt, source: 'mempool_mirror' }, warm: null };
  }

  private publish(output: CycleOutput, nodeBaseline: NodeBaseline | null): TemplateCache {
    const cache = publishCache({
      cycle: this.cycleCount + 1,
      now: this.now(),
      output,
      nodeBaseline,
      weightLimitWu: MAX_BLOCK_WEIGHT_WU,
      maxTxCount: this.optimizerOptions.maxTxCount,
      signer: this.options.signer,
      wtxidOf: this.wtxids.wtxidOf,
    });
    this.serve(cache);
    return cache;
  }

  /** Serves `cache` from now on (published here or adopted from the leader): cycles continue its numbering. */
  private serve(cache: TemplateCache): void {
    this.cache = cache;
    this.cycleCount = cache.cycle;
    this.emit('published', cache);
  }

  /** When the next scheduled cycle starts (ms since the epoch), or null. */
  get nextRefreshAt(): number | null {
    return this.schedule.nextAt;
  }

  /** Runs one cycle now, or joins the running one. Resolves with the published cache (undefined on failure). */
  refresh(): Promise<TemplateCache | undefined> {
    this.running ??= this.cycle().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private enter(phase: CyclePhase): number {
    this.phase = phase;
    this.phaseStartedAt = this.now();
    return this.phaseStartedAt;
  }

  private async cycle(): Promise<TemplateCache | undefined> {
    const { config, mirror, node, pool, signer, logger } = this.options;
    const cycle = this.cycleCount + 1;
    const started = this.now();
    this.cycleStartedAt = started;
    this.lastRefreshStartedAt = started;
    const phasesMs = { baseline: null as number | null, snapshot: 0, optimize: 0, publish: 0 };
    const abort = new AbortController();
    const timeoutMs = config.OPTIMIZER_TIMEOUT_SEC * 1000;
    const timer = setTimeout(() => abort.abort(new Error(`cycle exceeded ${config.OPTIMIZER_TIMEOUT_SEC} s`)), timeoutMs);
    let status: CycleStatus = 'ok';
    let error: string | null = null;
    let txCount = 0;
    try {
      // The baseline first, then the snapshot at once: our snapshot then holds (nearly) every tx
      // the node's template could choose from, so the comparison is not skewed by arrivals the
      // node saw and we did not.
      let t = this.enter('baseline');
      const nodeBaseline = await fetchNodeBaseline(node, config.BASELINE_TIMEOUT_SEC * 1000).then(
        (b) => this.baselineDone(t, b, null),
        (e: unknown) => this.baselineDone(t, null, e as Error),
      );
      phasesMs.baseline = this.now() - t;
      if (!nodeBaseline) status = 'baseline_fallback';

      t = this.enter('snapshot');
      await mirror.poll().catch((e: unknown) => {
        if (!mirror.ready) throw e;
        // A poll that just failed once: the last good view is still recent enough to optimize.
        // An older one is not published as a new cache (whose cachedAt would claim fresh data):
        // the previous cache keeps serving with its true age.
        const ageMs = this.now() - (mirror.lastPollAt ?? 0);
        if (ageMs > config.OPTIMIZER_INTERVAL_SEC * 1000) {
          throw new Error(`the mempool view is ${Math.round(ageMs / 1000)} s old and the poll failed: ${(e as Error).message}`);
        }
        logger?.warn({ err: e }, 'mempool poll failed; optimizing the last good view');
      });
      // The snapshot is as old as the view it reads.
      const takenAt = mirror.lastPollAt;
      if (takenAt === undefined) throw new Error('the mempool view has no successful poll yet');
      const runner = this.incrementalEnabled ? this.options.incremental : undefined;
      if (runner) {
        // The engine holds the mempool: it gets the changes since its last step, runs from scratch
        // and checks its incremental state against that.
        phasesMs.snapshot = this.now() - t;
        t = this.enter('optimize');
        const check = !runner.willReset;
        const stepped = runner.step({ ...this.optimizerOptions, seed: cycle }, { full: true, check });
        const step = await abortable(stepped, abort.signal);
        txCount = step.totals.txCount;
        phasesMs.optimize = this.now() - t;
        t = this.enter('publish');
        if (step.totals.txCount !== step.mirrorTxCount) {
          // The engine's table drifted from the mirror (a diff it never got): the next step resends everything.
          runner.invalidate();
          this.incrementalStats.resyncs += 1;
          logger?.warn({ engine: step.totals.txCount, mirror: step.mirrorTxCount }, 'incremental optimizer table differs from the mempool view; resending it');
        }
        if (step.check && !step.check.match) {
          logger?.warn(
            { check: step.check, full: { feeSat: step.optimized.feeSat, weightWu: step.optimized.weightWu, upperBoundFeeSat: step.upperBound.feeSat } },
            'incremental optimizer state differed from a full rebuild; replaced',
          );
        }
        const publishStarted = performance.now();
        const cache = this.publish(this.outputOf(step, 'full', takenAt), nodeBaseline);
        const mainMs = step.packMs + performance.now() - publishStarted;
        this.incrementalStats.recordFull(this.now() - started, cache.cachedAt, step.check?.match ?? null, mainMs);
        phasesMs.publish = this.now() - t;
        this.lastSuccessAt = this.now();
        return cache;
      }
      const snapshot = snapshotFromMirror(mirror, takenAt);
      // Warm start: last cycle's linearization, mapped to this snapshot (never worse than the hint).
      const warm = this.cache?.warm;
      if (warm) snapshot.input.warmOrder = warmOrderFromPrevious({ txids: warm.snapshotTxids, linearization: warm.linearization }, snapshot);
      txCount = snapshot.txids.length;
      phasesMs.snapshot = this.now() - t;

      t = this.enter('optimize');
      const result = await pool.run(snapshot.input, { ...this.optimizerOptions, seed: cycle }, abort.signal);
      phasesMs.optimize = this.now() - t;

      t = this.enter('publish');
      const cache = buildTemplateCache({
        cycle: this.cycleCount + 1,
        now: this.now(),
        snapshot,
        result,
        nodeBaseline,
        weightLimitWu: MAX_BLOCK_WEIGHT_WU,
        maxTxCount: this.optimizerOptions.maxTxCount,
        signer,
        wtxidOf: this.wtxids.wtxidOf,
      });
      this.cache = cache;
      this.cycleCount = cache.cycle;
      phasesMs.publish = this.now() - t;
      this.lastSuccessAt = this.now();
      this.incrementalStats.recordFull(this.now() - started, cache.cachedAt, null);
      this.emit('published', cache);
      return cache;
    } catch (e) {
      status = abort.signal.aborted ? 'timeout' : 'error';
      error = abort.signal.aborted ? String((abort.signal.reason as Error)?.message ?? 'timeout') : (e as Error).message;
      logger?.error({ err: e, cycle }, 'optimizer cycle failed; the previous cache keeps serving');
      return undefined;
    } finally {
      clearTimeout(timer);
      const finished = this.now();
      this.phase = 'idle';
      this.phaseStartedAt = null;
      this.cycleStartedAt = null;
      this.lastRefreshFinishedAt = finished;
      this.lastDurationMs = finished - started;
      this.lastStatus = status;
      this.lastError = error ?? (status === 'baseline_fallback' ? `baseline: ${this.baseline.lastError}` : null);
      const record: CycleRecord = { cycle, startedAt: new Date(started).toISOString(), durationMs: finished - started, status, error, phasesMs, txCount };
      this.history.unshift(record);
      this.history.length = Math.min(this.history.length, HISTORY);
      this.emit('cycle', record);
    }
  }

  /**
   * Serves a cache computed by another replica (the optimizer leader, leadership.ts) as if this one
   * had published it, with the leader's cycle records and baseline status: listeners hear
   * `published`, and a cycle run here later (after a takeover) continues its numbering and
   * warm-starts from it.
   */
  adopt(cache: TemplateCache, leader?: { history: readonly CycleRecord[]; baseline: BaselineStatus }): void {
    if (leader) {
      this.history.splice(0, this.history.length, ...leader.history.slice(0, HISTORY));
      Object.assign(this.baseline, leader.baseline);
    }
    this.lastStatus = cache.kind === 'incremental' || cache.baseline.source === 'node_getblocktemplate' ? 'ok' : 'baseline_fallback';
    this.lastError = null;
    this.lastSuccessAt = cache.cachedAt;
    this.serve(cache);
  }

  /** Changed transactions waiting for the next incremental cycle. */
  get pendingIncrementalChanges(): number {
    return this.options.incremental?.pendingChanges ?? 0;
  }

  /** Full cycles run so far (whether or not incremental ones ran between them). */
  get fullCycleCount(): number {
    return this.incrementalStats.full.count;
  }

  private baselineDone(started: number, baseline: NodeBaseline | null, error: Error | null): NodeBaseline | null {
    const now = this.now();
    this.baseline.lastDurationMs = now - started;
    if (baseline) {
      this.baseline.lastStatus = 'ok';
      this.baseline.lastError = null;
      this.baseline.lastSuccessAt = now;
    } else {
      this.baseline.lastStatus = (error as { code?: string } | null)?.code === 'NODE_TIMEOUT' ? 'timeout' : 'error';
      this.baseline.lastError = error?.message ?? 'unknown';
    }
    return baseline;
  }
}

/** The promise, or a rejection with the signal's reason when it aborts first (the work itself is not stopped). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
