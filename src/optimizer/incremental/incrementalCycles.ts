/**
 * Incremental cycles between full ones: each mempool change schedules one at most every
 * `OPTIMIZER_INCREMENTAL_MS`; only the changed clusters are re-linearized, and the cache it
 * publishes compares the optimized template with our native Core v31 model of the same state (the
 * node's getblocktemplate is fetched by full cycles only). None runs before a full cycle published.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { OptimizerOptions } from '../binding/native.js';
import type { CycleOutput, NodeBaseline, TemplateCache } from '../cache/templateCache.js';
import { stepOutput } from './engineCycle.js';
import type { IncrementalRunner } from './incrementalRunner.js';
import type { IncrementalStats } from './incrementalStats.js';

export interface IncrementalCyclesOptions {
  runner: IncrementalRunner;
  stats: IncrementalStats;
  /** Least time between the starts of two scheduled cycles (ms). */
  intervalMs: number;
  /** Whether changes schedule cycles (else they run only when asked, `refresh`). */
  scheduled: boolean;
  /** The cache serving now. */
  current(): TemplateCache | undefined;
  /** The options and seed of the next cycle. */
  nextStep(): OptimizerOptions & { seed: number };
  publish(output: CycleOutput, nodeBaseline: NodeBaseline | null): TemplateCache;
  logger?: FastifyBaseLogger;
  now: () => number;
}

export class IncrementalCycles {
  private running: Promise<void> | undefined;
  /** The scheduled cycle's cancel (a timer, or an immediate when no wait is due). */
  private timer: (() => void) | undefined;
  private started = false;

  constructor(private readonly options: IncrementalCyclesOptions) {
    if (options.scheduled) options.runner.onChange = () => this.schedule();
  }

  start(): void {
    this.started = true;
  }

  /** Stops scheduling (a running cycle ends on its own: `idle`). */
  stop(): void {
    this.started = false;
    this.timer?.();
    this.timer = undefined;
  }

  /** Resolves once the running cycle (if any) ended. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** A cycle as soon as `intervalMs` has passed since the last one started. */
  private schedule(): void {
    if (!this.started || !this.options.scheduled || this.timer) return;
    const last = this.options.stats.lastStartedAt ?? 0;
    const delay = Math.max(0, last + this.options.intervalMs - this.options.now());
    const run = () => {
      this.timer = undefined;
      this.running ??= this.cycle().finally(() => {
        this.running = undefined;
        if (this.options.runner.hasChanges) this.schedule();
      });
    };
    // No wait due: right after this turn of the event loop (a 0 ms timer waits at least 1 ms).
    if (delay === 0) {
      const immediate = setImmediate(run);
      this.timer = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(run, delay);
      this.timer = () => clearTimeout(timeout);
    }
  }

  /** Runs a cycle now (or joins the running one); resolves with the cache it published, undefined when there was nothing to do or it failed. */
  async refresh(): Promise<TemplateCache | undefined> {
    await this.running;
    const before = this.options.current();
    this.running ??= this.cycle().finally(() => {
      this.running = undefined;
    });
    await this.running;
    const cache = this.options.current();
    return cache !== before && cache?.kind === 'incremental' ? cache : undefined;
  }

  /** One cycle (skipped until a full cycle published; the worker runs steps in order, so one may run while a full cycle waits for its baseline). */
  private async cycle(): Promise<void> {
    const { runner, stats, now, logger } = this.options;
    if (!this.options.current() || !runner.hasChanges) return;
    const started = now();
    stats.lastStartedAt = started;
    try {
      const step = await runner.step(this.options.nextStep(), { full: false, check: false });
      const publishStarted = performance.now();
      const cache = this.options.publish(stepOutput(step, 'incremental', step.takenAt), null);
      const publishMs = performance.now() - publishStarted;
      stats.recordIncremental(now() - started, { ...step.engine, packMs: step.packMs, publishMs }, cache.cachedAt);
    } catch (e) {
      stats.recordError(e as Error);
      logger?.error({ err: e }, 'incremental optimizer cycle failed; the previous cache keeps serving');
    }
  }
}
