/**
 * What the optimizer service schedules. A cycle mode turns the current mempool view into one
 * cycle's output; the service publishes it (signed cache) and keeps the public status. The modes:
 * the full cycle in the worker pool (`full/poolCycle.ts`) and the full cycle in the incremental
 * engine (`incremental/engineCycle.ts`); both run inside the frame of `full/fullCycle.ts` (baseline,
 * view, timeout, record). Incremental steps between full cycles have their own schedule
 * (`incremental/incrementalCycles.ts`).
 */
import type { OptimizerOptions } from './binding/native.js';
import type { CycleOutput, TemplateCache } from './cache/templateCache.js';

export type CyclePhase = 'idle' | 'baseline' | 'snapshot' | 'optimize' | 'publish';
export type CycleStatus = 'ok' | 'baseline_fallback' | 'error' | 'timeout';

export interface PhasesMs {
  baseline: number | null;
  snapshot: number;
  optimize: number;
  publish: number;
}

export interface CycleRecord {
  cycle: number;
  startedAt: string;
  durationMs: number;
  status: CycleStatus;
  error: string | null;
  phasesMs: PhasesMs;
  txCount: number;
}

export interface BaselineStatus {
  lastStatus: 'ok' | 'error' | 'timeout' | null;
  lastError: string | null;
  lastDurationMs: number | null;
  lastSuccessAt: number | null;
}

/** Blocks projected past the next one (fee estimates read them). */
export const PROJECTED_BLOCKS = 8;
/** Cycle records kept (newest first). */
export const CYCLE_HISTORY = 20;

/** One cycle as a mode sees it: its number and inputs, and where it reports its progress. */
export interface CycleState {
  /** This cycle's number (also the optimizer's seed). */
  readonly cycle: number;
  readonly options: OptimizerOptions;
  /** When the mempool view the cycle reads last matched the node (ms since the epoch). */
  readonly takenAt: number;
  /** The cache serving now (the pool mode warm-starts from it). */
  readonly previous: TemplateCache | undefined;
  /** Aborts when the cycle runs out of time. */
  readonly signal: AbortSignal;
  /** Ends the running phase (its time goes to the record) and starts `phase`. */
  enter(phase: CyclePhase): void;
  /** Transactions the cycle optimizes (kept in the record, also when the cycle fails). */
  txCount: number;
}

export interface CycleResult {
  output: CycleOutput;
  /** Whether the engine's incremental state matched a from-scratch rebuild; null: not checked. */
  check: boolean | null;
  /** Main-thread time spent packing the engine's changes (ms); null when no engine ran. */
  packMs: number | null;
}

export interface CycleMode {
  run(state: CycleState): Promise<CycleResult>;
}
