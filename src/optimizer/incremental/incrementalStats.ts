/**
 * What cache-stats and capabilities say about the two cadences: full cycles (every
 * `OPTIMIZER_INTERVAL_SEC`) and incremental ones (at most every `OPTIMIZER_INCREMENTAL_MS` when the
 * mempool changed): counts, last publish, durations (recent p50 / max), the incremental engine's
 * work, and the full cycles' checks of the incremental state.
 */
import type { StepOutput } from './incrementalWorker.js';

const RECENT = 64;

export type EngineWork = StepOutput['engine'] & { packMs: number; publishMs: number };

function quantile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null;
}

export interface CadenceSummary {
  count: number;
  lastPublishedAt: number | null;
  lastDurationMs: number | null;
  recentP50Ms: number | null;
  recentMaxMs: number | null;
}

class Cadence {
  count = 0;
  lastPublishedAt: number | null = null;
  lastDurationMs: number | null = null;
  private readonly recent: number[] = [];

  record(durationMs: number, at: number): void {
    this.count += 1;
    this.lastPublishedAt = at;
    this.lastDurationMs = durationMs;
    this.recent.push(durationMs);
    if (this.recent.length > RECENT) this.recent.shift();
  }

  summary(): CadenceSummary {
    return {
      count: this.count,
      lastPublishedAt: this.lastPublishedAt,
      lastDurationMs: this.lastDurationMs,
      recentP50Ms: quantile(this.recent, 0.5),
      recentMaxMs: this.recent.length ? Math.max(...this.recent) : null,
    };
  }
}

export class IncrementalStats {
  readonly full = new Cadence();
  readonly incremental = new Cadence();
  lastStartedAt: number | null = null;
  lastError: string | null = null;
  errors = 0;
  /** Full cycles that compared the incremental state with a from-scratch one, and how many differed. */
  checks = 0;
  mismatches = 0;
  /** Full cycles that found the engine's transaction count different from the mirror's (the engine was resent). */
  resyncs = 0;
  /** The last incremental cycle's work: in the worker (apply, build) and on the main thread (pack, publish), ms. */
  lastEngine: EngineWork | null = null;

  constructor(readonly intervalMs: number) {}

  recordIncremental(durationMs: number, engine: EngineWork, at: number): void {
    this.incremental.record(durationMs, at);
    this.lastEngine = engine;
    this.lastError = null;
  }

  /** Main-thread ms of the last full cycle through the engine (packing the changes, or the whole mempool on a reset, and publishing). */
  lastFullMainMs: number | null = null;

  recordFull(durationMs: number, at: number, match: boolean | null, mainMs: number | null = null): void {
    this.full.record(durationMs, at);
    if (mainMs !== null) this.lastFullMainMs = mainMs;
    if (match === null) return;
    this.checks += 1;
    if (!match) this.mismatches += 1;
  }

  recordError(e: Error): void {
    this.errors += 1;
    this.lastError = e.message;
  }
}
