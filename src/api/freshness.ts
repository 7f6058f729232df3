/**
 * What the service knows about its node, and how old a derived answer is (DESIGN §5, freshness).
 *
 * The node's latest word is the newer of the background check (`NodeWatch`) and the mempool view's
 * last poll: the node is *down* while the newer of the two failed (two checks in a row, or a poll),
 * *reached* once either succeeded.
 * Paid routes and methods are refused with 503 `NODE_UNAVAILABLE` (Retry-After) before payment while
 * the node is down or not yet reached: nothing is sold from data known to be stale. `/health` is
 * 503 then too, and until the mempool view has loaded.
 *
 * Answers computed from the mempool view or the optimizer cache carry `asOf` (when their data was
 * last known to match the node) and `ageMs`.
 */
import { Errors } from '../errors.js';
import type { ApiContext } from './define.js';

type Ctx = Pick<ApiContext, 'mempool' | 'now' | 'startedAt' | 'nodeWatch'>;

export interface NodeStatus {
  /** The node answered at least once (a check or a poll). */
  reached: boolean;
  /** The node's latest word was a failure. */
  down: boolean;
  /** When the node last answered, ms since the epoch. */
  lastOkAt: number | undefined;
  /** The failure, while down. */
  error: string | null;
}

/** Failed background checks in a row that make the node known down (a failed poll is one). */
export const CHECK_FAILURES_DOWN = 2;

const latest = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

/** Complexity: O(1). */
export function nodeStatus(ctx: Ctx): NodeStatus {
  const { mirror } = ctx.mempool;
  const check = ctx.nodeWatch.last;
  const lastOkAt = latest(check?.ok ? check.at : undefined, mirror.lastPollAt);
  // Two failed checks in a row: one slow answer on a busy event loop does not take the replica out.
  const checkFailAt = check && !check.ok && ctx.nodeWatch.failures >= CHECK_FAILURES_DOWN ? check.at : undefined;
  const pollFailAt = mirror.lastError !== null ? mirror.lastErrorAt : undefined;
  const failAt = latest(checkFailAt, pollFailAt);
  const down = failAt !== undefined && (lastOkAt === undefined || failAt > lastOkAt);
  const error = !down ? null : failAt === checkFailAt ? (check?.error ?? 'no answer') : (mirror.lastError ?? 'no answer');
  return { reached: lastOkAt !== undefined, down, lastOkAt, error };
}

/** Milliseconds the node has been failing: 0 while it answers. Complexity: O(1). */
export function nodeOutageMs(ctx: Ctx): number {
  const status = nodeStatus(ctx);
  if (!status.down) return 0;
  return Math.max(0, ctx.now() - (status.lastOkAt ?? ctx.startedAt));
}

/** Why answers that need the node cannot be served now, or null when they can. */
export function staleReason(ctx: Ctx): string | null {
  const status = nodeStatus(ctx);
  if (status.down) {
    const since = status.lastOkAt === undefined ? 'never reached since start' : `last answer ${Math.round((ctx.now() - status.lastOkAt) / 1000)} s ago`;
    return `the node's last check failed (${status.error ?? 'no answer'}; ${since}); answers from its data would be stale`;
  }
  if (!status.reached) return 'the node has not been reached yet';
  return null;
}

/**
 * Refuses a request that needs the node (a paid route or method, or one derived from a snapshot)
 * while the node is down or not yet reached; called before payment.
 * @throws NODE_UNAVAILABLE (503, Retry-After) with the reason.
 */
export function assertNodeUp(ctx: Ctx): void {
  const reason = staleReason(ctx);
  if (reason !== null) throw new Errors.NODE_UNAVAILABLE(reason);
}

/** `asOf` (ISO 8601) and `ageMs` of a snapshot taken at `at` (ms since the epoch). */
export function snapshotAge(now: number, at: number): { asOf: string; ageMs: number } {
  return { asOf: new Date(at).toISOString(), ageMs: Math.max(0, Math.round(now - at)) };
}
