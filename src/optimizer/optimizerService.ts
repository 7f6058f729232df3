/**
 * The optimizer cycle: every `OPTIMIZER_INTERVAL_SEC`, never overlapping, abandoned after
 * `OPTIMIZER_TIMEOUT_SEC`. Each cycle fetches the node's `getblocktemplate` baseline, snapshots the
 * mempool mirror into typed arrays right after, runs the native optimizer in the worker pool,
 * compares, signs a receipt and publishes a new cache atomically. A failed cycle records
 * `lastError`; the previous cache keeps serving. The running phase and its timings are public
 * (cache-stats), so a slow cycle is visible while it runs.
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_BLOCK_WEIGHT_WU } from '../bitcoin/consensus.js';
import type { Config } from '../config.js';
import type { MempoolMirror } from '../mempool/mirror.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { PeriodicTask } from '../util/periodicTask.js';
import { snapshotFromMirror } from './mirrorSnapshot.js';
import { warmOrderFromPrevious } from './snapshot.js';
import type { OptimizerOptions } from './native.js';
import { fetchNodeBaseline } from './nodeBaseline.js';
import type { OptimizerPool } from './optimizerPool.js';
import type { ReceiptSigner } from './receipts.js';
import { buildTemplateCache, type NodeBaseline, type TemplateCache } from './templateCache.js';

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

  private running: Promise<TemplateCache | undefined> | undefined;
  private readonly schedule: PeriodicTask;
  private readonly now: () => number;

  constructor(private readonly options: OptimizerServiceOptions) {
    super();
    this.now = options.now ?? Date.now;
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

  /** Starts the schedule: a first cycle now, then one every interval after the previous ends. */
  start(): void {
    this.schedule.start();
  }

  async stop(): Promise<void> {
    this.schedule.stop();
    await this.running?.catch(() => undefined);
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
      const snapshot = snapshotFromMirror(mirror, takenAt);
      // Warm start: last cycle's linearization, mapped to this snapshot (never worse than the hint).
      const previous = this.cache;
      if (previous) snapshot.input.warmOrder = warmOrderFromPrevious({ txids: previous.snapshotTxids, linearization: previous.linearization }, snapshot);
      txCount = snapshot.txids.length;
      phasesMs.snapshot = this.now() - t;

      t = this.enter('optimize');
      const result = await pool.run(snapshot.input, { ...this.optimizerOptions, seed: cycle }, abort.signal);
      phasesMs.optimize = this.now() - t;

      t = this.enter('publish');
      const cache = buildTemplateCache({
        cycle,
        now: this.now(),
        snapshot,
        result,
        nodeBaseline,
        weightLimitWu: MAX_BLOCK_WEIGHT_WU,
        maxTxCount: this.optimizerOptions.maxTxCount,
        signer,
      });
      this.cache = cache;
      this.cycleCount = cycle;
      phasesMs.publish = this.now() - t;
      this.lastSuccessAt = this.now();
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
    this.cache = cache;
    this.cycleCount = cache.cycle;
    this.lastStatus = cache.baseline.source === 'node_getblocktemplate' ? 'ok' : 'baseline_fallback';
    this.lastError = null;
    this.lastSuccessAt = cache.cachedAt;
    this.emit('published', cache);
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
