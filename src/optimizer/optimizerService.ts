/**
 * The optimizer's scheduler: a full cycle every `OPTIMIZER_INTERVAL_SEC`, never overlapping
 * (`full/fullCycle.ts`: baseline, view, optimize, publish, record), in one of two modes: with
 * incremental cycles (`OPTIMIZER_INCREMENTAL_MS` > 0, an `IncrementalRunner`) the engine's worker
 * holds the mempool (`incremental/engineCycle.ts`) and each mempool change schedules an incremental
 * cycle between full ones (`incremental/incrementalCycles.ts`); without them the mirror's view is
 * optimized in the piscina pool (`full/poolCycle.ts`). Every cycle publishes through `publish` (a
 * signed cache); a cache computed by the leader replica is served through `adopt`
 * (`leadership/`). The status fields are public (cache-stats, capabilities, metrics).
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_BLOCK_WEIGHT_WU } from '../bitcoin/consensus.js';
import type { Config } from '../config.js';
import type { MempoolMirror } from '../mempool/mirror.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { PeriodicTask } from '../util/periodicTask.js';
import type { OptimizerOptions } from './binding/native.js';
import type { ReceiptSigner } from './cache/receipts.js';
import { publishCache, type CycleOutput, type NodeBaseline, type TemplateCache } from './cache/templateCache.js';
import { WtxidBook } from './cache/wtxidBook.js';
import { CYCLE_HISTORY, PROJECTED_BLOCKS, type BaselineStatus, type CycleMode, type CyclePhase, type CycleRecord, type CycleStatus } from './cycle.js';
import { runFullCycle, type CycleBoard } from './full/fullCycle.js';
import type { OptimizerPool } from './full/optimizerPool.js';
import { PoolCycle } from './full/poolCycle.js';
import { EngineCycle } from './incremental/engineCycle.js';
import { IncrementalCycles } from './incremental/incrementalCycles.js';
import type { IncrementalRunner } from './incremental/incrementalRunner.js';
import { IncrementalStats } from './incremental/incrementalStats.js';

export { PROJECTED_BLOCKS, type BaselineStatus, type CyclePhase, type CycleRecord, type CycleStatus } from './cycle.js';

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
export class OptimizerService extends EventEmitter<{ published: [TemplateCache]; cycle: [CycleRecord] }> implements CycleBoard {
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
  private readonly schedule: PeriodicTask;
  private readonly now: () => number;
  private readonly wtxids: WtxidBook;
  private readonly fullMode: CycleMode;
  private readonly incremental: IncrementalCycles | undefined;

  constructor(private readonly options: OptimizerServiceOptions) {
    super();
    const { config, mirror, pool, incremental, logger } = options;
    this.now = options.now ?? Date.now;
    this.wtxids = new WtxidBook(mirror);
    this.incrementalStats = new IncrementalStats(config.OPTIMIZER_INCREMENTAL_MS);
    const stats = this.incrementalStats;
    this.fullMode = incremental && this.incrementalEnabled ? new EngineCycle(incremental, stats, logger) : new PoolCycle(mirror, pool);
    this.incremental = incremental
      ? new IncrementalCycles({
          runner: incremental,
          stats,
          intervalMs: config.OPTIMIZER_INCREMENTAL_MS,
          scheduled: this.incrementalEnabled,
          current: () => this.cache,
          nextStep: () => ({ ...this.optimizerOptions, seed: this.cycleCount + 1 }),
          publish: (output, nodeBaseline) => this.publish(output, nodeBaseline),
          logger,
          now: this.now,
        })
      : undefined;
    this.schedule = new PeriodicTask(
      () => this.refresh(),
      () => config.OPTIMIZER_INTERVAL_SEC * 1000,
      this.now,
    );
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
    // After a stop (a leader that stepped down and leads again), removals are followed again.
    this.wtxids.open();
    this.incremental?.start();
    this.schedule.start();
  }

  async stop(): Promise<void> {
    this.schedule.stop();
    this.incremental?.stop();
    this.wtxids.close();
    await this.running?.catch(() => undefined);
    await this.incremental?.idle();
  }

  /** Runs one full cycle now, or joins the running one. Resolves with the published cache (undefined on failure). */
  refresh(): Promise<TemplateCache | undefined> {
    this.running ??= runFullCycle(
      {
        ...this.options,
        now: this.now,
        board: this,
        published: (durationMs, cachedAt, check, mainMs) => this.incrementalStats.recordFull(durationMs, cachedAt, check, mainMs),
        options: this.optimizerOptions,
        current: () => this.cache,
        publish: (output, nodeBaseline) => this.publish(output, nodeBaseline),
        recorded: (record) => this.emit('cycle', record),
      },
      this.fullMode,
      this.cycleCount + 1,
    ).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Runs an incremental cycle now (or joins the running one), whatever the schedule; resolves with
   * the cache it published, undefined when there was nothing to do or it failed.
   */
  async refreshIncremental(): Promise<TemplateCache | undefined> {
    return this.incremental?.refresh();
  }

  /** Signs the output of cycle number `cycleCount + 1` and serves it. */
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

  /**
   * Serves a cache computed by another replica (the optimizer leader, leadership/leadership.ts) as if
   * this one had published it, with the leader's cycle records and baseline status: listeners hear
   * `published`, and a cycle run here later (after a takeover) continues its numbering and
   * warm-starts from it.
   */
  adopt(cache: TemplateCache, leader?: { history: readonly CycleRecord[]; baseline: BaselineStatus }): void {
    if (leader) {
      this.history.splice(0, this.history.length, ...leader.history.slice(0, CYCLE_HISTORY));
      Object.assign(this.baseline, leader.baseline);
    }
    this.lastStatus = cache.kind === 'incremental' || cache.baseline.source === 'node_getblocktemplate' ? 'ok' : 'baseline_fallback';
    this.lastError = null;
    this.lastSuccessAt = cache.cachedAt;
    this.serve(cache);
  }

  get refreshInProgress(): boolean {
    return this.running !== undefined;
  }

  /** When the next scheduled cycle starts (ms since the epoch), or null. */
  get nextRefreshAt(): number | null {
    return this.schedule.nextAt;
  }

  /** Optimizer tasks waiting for a worker thread (metrics). */
  get poolQueueDepth(): number {
    return this.options.pool.queueSize;
  }

  /** Changed transactions waiting for the next incremental cycle. */
  get pendingIncrementalChanges(): number {
    return this.options.incremental?.pendingChanges ?? 0;
  }

  /** Full cycles run so far (whether or not incremental ones ran between them). */
  get fullCycleCount(): number {
    return this.incrementalStats.full.count;
  }
}
