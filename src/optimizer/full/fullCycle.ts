/**
 * The frame of one full cycle, whatever its mode: abandoned after `OPTIMIZER_TIMEOUT_SEC`; the
 * node's `getblocktemplate` baseline first, the mempool view synced right after; then the mode
 * optimizes, the service publishes, and the cycle's record (status, phase times) is kept. A failed
 * cycle records its error; the previous cache keeps serving. The running phase and the times are
 * public on the board (cache-stats), so a slow cycle is visible while it runs.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { MempoolMirror } from '../../mempool/mirror.js';
import type { BitcoinNode } from '../../node/bitcoinNode.js';
import type { OptimizerOptions } from '../binding/native.js';
import type { CycleOutput, NodeBaseline, TemplateCache } from '../cache/templateCache.js';
import {
  CYCLE_HISTORY,
  type BaselineStatus,
  type CycleMode,
  type CyclePhase,
  type CycleRecord,
  type CycleState,
  type CycleStatus,
  type PhasesMs,
} from '../cycle.js';
import { fetchNodeBaseline } from './nodeBaseline.js';

/** The public status a full cycle keeps (the service's fields). */
export interface CycleBoard {
  phase: CyclePhase;
  phaseStartedAt: number | null;
  cycleStartedAt: number | null;
  lastStatus: CycleStatus | null;
  lastError: string | null;
  lastDurationMs: number | null;
  lastRefreshStartedAt: number | null;
  lastRefreshFinishedAt: number | null;
  lastSuccessAt: number | null;
  readonly baseline: BaselineStatus;
  readonly history: CycleRecord[];
}

export interface FullCycleContext {
  config: Config;
  mirror: MempoolMirror;
  node: BitcoinNode;
  logger?: FastifyBaseLogger;
  now: () => number;
  board: CycleBoard;
  options: OptimizerOptions;
  /** The cache serving now. */
  current(): TemplateCache | undefined;
  /** Signs and serves the cycle's output; synchronous, so the record below follows it at once. */
  publish(output: CycleOutput, nodeBaseline: NodeBaseline | null): TemplateCache;
  /** A cycle published: its duration, the cache's time, the engine check and main-thread time (publish stats). */
  published(durationMs: number, cachedAt: number, check: boolean | null, mainMs: number | null): void;
  /** The cycle ended (any status). */
  recorded(record: CycleRecord): void;
}

/** Runs cycle number `cycle` in `mode`. Resolves with the published cache (undefined on failure). */
export async function runFullCycle(ctx: FullCycleContext, mode: CycleMode, cycle: number): Promise<TemplateCache | undefined> {
  const { config, board, now, logger } = ctx;
  const started = now();
  board.cycleStartedAt = started;
  board.lastRefreshStartedAt = started;
  const phasesMs: PhasesMs = { baseline: null, snapshot: 0, optimize: 0, publish: 0 };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`cycle exceeded ${config.OPTIMIZER_TIMEOUT_SEC} s`)), config.OPTIMIZER_TIMEOUT_SEC * 1000);
  /** Ends the running phase (its time goes to `phasesMs`) and starts `phase`. */
  const enter = (phase: CyclePhase): void => {
    const at = now();
    if (board.phase !== 'idle' && board.phaseStartedAt !== null) phasesMs[board.phase] = at - board.phaseStartedAt;
    board.phase = phase;
    board.phaseStartedAt = at;
  };
  let status: CycleStatus = 'ok';
  let error: string | null = null;
  // What the mode sees (`takenAt` is known once the view is synced).
  const state = {
    cycle,
    options: ctx.options,
    takenAt: 0,
    get previous() {
      return ctx.current();
    },
    signal: abort.signal,
    enter,
    txCount: 0,
  } satisfies CycleState;
  try {
    // The baseline first, then the snapshot at once: our snapshot then holds (nearly) every tx
    // the node's template could choose from, so the comparison is not skewed by arrivals the
    // node saw and we did not.
    enter('baseline');
    const nodeBaseline = await baselineOf(ctx);
    if (!nodeBaseline) status = 'baseline_fallback';

    enter('snapshot');
    state.takenAt = await syncView(ctx);
    const result = await mode.run(state);
    const publishStarted = performance.now();
    const cache = ctx.publish(result.output, nodeBaseline);
    const mainMs = result.packMs === null ? null : result.packMs + performance.now() - publishStarted;
    ctx.published(now() - started, cache.cachedAt, result.check, mainMs);
    enter('idle');
    board.lastSuccessAt = now();
    return cache;
  } catch (e) {
    status = abort.signal.aborted ? 'timeout' : 'error';
    error = abort.signal.aborted ? String((abort.signal.reason as Error)?.message ?? 'timeout') : (e as Error).message;
    logger?.error({ err: e, cycle }, 'optimizer cycle failed; the previous cache keeps serving');
    return undefined;
  } finally {
    clearTimeout(timer);
    ctx.recorded(endCycle(board, now(), { cycle, started, status, error, phasesMs, txCount: state.txCount }));
  }
}

/** The board after a cycle ended (any status), and the cycle's record, kept first in its history. */
function endCycle(
  board: CycleBoard,
  finished: number,
  {
    cycle,
    started,
    status,
    error,
    phasesMs,
    txCount,
  }: { cycle: number; started: number; status: CycleStatus; error: string | null; phasesMs: PhasesMs; txCount: number },
): CycleRecord {
  board.phase = 'idle';
  board.phaseStartedAt = null;
  board.cycleStartedAt = null;
  board.lastRefreshFinishedAt = finished;
  board.lastDurationMs = finished - started;
  board.lastStatus = status;
  board.lastError = error ?? (status === 'baseline_fallback' ? `baseline: ${board.baseline.lastError}` : null);
  const record: CycleRecord = { cycle, startedAt: new Date(started).toISOString(), durationMs: finished - started, status, error, phasesMs, txCount };
  board.history.unshift(record);
  board.history.length = Math.min(board.history.length, CYCLE_HISTORY);
  return record;
}

/** The node's template, or null (the cycle falls back to our v31 model); the baseline status says which. */
async function baselineOf({ node, config, board, now }: FullCycleContext): Promise<NodeBaseline | null> {
  const started = now();
  const done = (baseline: NodeBaseline | null, error: Error | null): NodeBaseline | null => {
    const at = now();
    board.baseline.lastDurationMs = at - started;
    if (baseline) {
      board.baseline.lastStatus = 'ok';
      board.baseline.lastError = null;
      board.baseline.lastSuccessAt = at;
    } else {
      board.baseline.lastStatus = (error as { code?: string } | null)?.code === 'NODE_TIMEOUT' ? 'timeout' : 'error';
      board.baseline.lastError = error?.message ?? 'unknown';
    }
    return baseline;
  };
  return fetchNodeBaseline(node, config.BASELINE_TIMEOUT_SEC * 1000).then(
    (b) => done(b, null),
    (e: unknown) => done(null, e as Error),
  );
}

/** Syncs the mirror; resolves with when its view last matched the node (what the snapshot is as old as). */
async function syncView({ mirror, config, now, logger }: FullCycleContext): Promise<number> {
  await mirror.poll().catch((e: unknown) => {
    if (!mirror.ready) throw e;
    // A poll that just failed once: the last good view is still recent enough to optimize.
    // An older one is not published as a new cache (whose cachedAt would claim fresh data):
    // the previous cache keeps serving with its true age.
    const ageMs = now() - (mirror.lastPollAt ?? 0);
    if (ageMs > config.OPTIMIZER_INTERVAL_SEC * 1000) {
      throw new Error(`the mempool view is ${Math.round(ageMs / 1000)} s old and the poll failed: ${(e as Error).message}`);
    }
    logger?.warn({ err: e }, 'mempool poll failed; optimizing the last good view');
  });
  // The snapshot is as old as the view it reads.
  const takenAt = mirror.lastPollAt;
  if (takenAt === undefined) throw new Error('the mempool view has no successful poll yet');
  return takenAt;
}
