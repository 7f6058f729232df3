/**
 * The full cycle through the incremental engine, which holds the mempool: it gets the changes since
 * its last step, runs from scratch and checks its incremental state against that (a mismatch is
 * logged and counted; the from-scratch state replaces it).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { CacheKind, CycleOutput } from '../cache/templateCache.js';
import type { CycleMode, CycleResult, CycleState } from '../cycle.js';
import type { IncrementalRunner, StepResult } from './incrementalRunner.js';
import type { IncrementalStats } from './incrementalStats.js';

export class EngineCycle implements CycleMode {
  constructor(
    private readonly runner: IncrementalRunner,
    private readonly stats: IncrementalStats,
    private readonly logger?: FastifyBaseLogger,
  ) {}

  async run(state: CycleState): Promise<CycleResult> {
    const { runner, logger } = this;
    state.enter('optimize');
    const check = !runner.willReset;
    const step = await abortable(runner.step({ ...state.options, seed: state.cycle }, { full: true, check }), state.signal);
    state.txCount = step.totals.txCount;

    state.enter('publish');
    if (step.totals.txCount !== step.mirrorTxCount) {
      // The engine's table drifted from the mirror (a diff it never got): the next step resends everything.
      runner.invalidate();
      this.stats.resyncs += 1;
      logger?.warn({ engine: step.totals.txCount, mirror: step.mirrorTxCount }, 'incremental optimizer table differs from the mempool view; resending it');
    }
    if (step.check && !step.check.match) {
      logger?.warn(
        { check: step.check, full: { feeSat: step.optimized.feeSat, weightWu: step.optimized.weightWu, upperBoundFeeSat: step.upperBound.feeSat } },
        'incremental optimizer state differed from a full rebuild; replaced',
      );
    }
    return { output: stepOutput(step, 'full', state.takenAt), check: step.check?.match ?? null, packMs: step.packMs };
  }
}

/** An engine step as a cycle's output (the engine keeps its own warm state). */
export function stepOutput(step: StepResult, kind: CacheKind, takenAt: number): CycleOutput {
  return { ...step, kind, snapshot: { ...step.totals, takenAt, source: 'mempool_mirror' }, warm: null };
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
