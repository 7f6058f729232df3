/**
 * How old a derived answer is, and when it is too old to serve. Answers computed from the mempool
 * view or the optimizer cache carry `asOf` (when the snapshot was taken) and `ageMs`. The node
 * counts as unreachable from the last successful mempool poll (or the start) while polls fail;
 * past `NODE_STALE_AFTER_MS` of that, such answers are refused with 503 `NODE_UNAVAILABLE` before
 * payment, and `/health` answers 503 so a load balancer takes the replica out.
 */
import { Errors } from '../errors.js';
import type { ApiContext, Snapshot } from './define.js';

type Ctx = Pick<ApiContext, 'mempool' | 'now' | 'startedAt' | 'config'>;

/** Milliseconds the node has been failing: 0 while mempool polls succeed. Complexity: O(1). */
export function nodeOutageMs(ctx: Ctx): number {
  const { mirror } = ctx.mempool;
  if (mirror.lastError === null) return 0;
  return Math.max(0, ctx.now() - (mirror.lastPollAt ?? ctx.startedAt));
}

/** Why derived answers cannot be served now, or null when they can. */
export function staleReason(ctx: Ctx): string | null {
  const outage = nodeOutageMs(ctx);
  if (outage <= ctx.config.NODE_STALE_AFTER_MS) return null;
  const last = ctx.mempool.mirror.lastError ?? 'no answer';
  return `no answer from the node for ${Math.round(outage / 1000)} s (${last}); answers derived from its data would be stale`;
}

/**
 * Refuses a snapshot-derived request while the node has been unreachable too long.
 * @throws NODE_UNAVAILABLE (503, Retry-After) with the reason.
 */
export function assertFresh(ctx: Ctx, snapshot: Snapshot | undefined): void {
  if (snapshot === undefined) return;
  const reason = staleReason(ctx);
  if (reason !== null) throw new Errors.NODE_UNAVAILABLE(reason);
}

/** `asOf` (ISO 8601) and `ageMs` of a snapshot taken at `at` (ms since the epoch). */
export function snapshotAge(now: number, at: number): { asOf: string; ageMs: number } {
  return { asOf: new Date(at).toISOString(), ageMs: Math.max(0, Math.round(now - at)) };
}
