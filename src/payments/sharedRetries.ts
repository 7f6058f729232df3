/**
 * The gate's decision for a payment when replicas share their payment states (REDIS_URL, see
 * store/sharedPayments.ts): claim it, take it over from a replica that died before charging it,
 * or say what the holder's record means for this request.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { SharedAnswer, SharedPayments } from './store/sharedPayments.js';

export type SharedOutcome =
  /** Ours: the handler runs and this replica charges. `takenOver`: from a dead replica. */
  | { kind: 'claimed'; takenOver: boolean }
  /** Another request's payment, or one the facilitator refused. */
  | { kind: 'replay' }
  /** Running on a live replica: come back after Retry-After. */
  | { kind: 'in-progress' }
  /** Paid, or charged by a replica that died: the kept answer, or run again (never charged again). */
  | { kind: 'cached'; answer: SharedAnswer; paymentResponse: string | null }
  | { kind: 'recompute'; paymentResponse: string | null }
  /** Charged for this request, but its answer can no longer be recomputed (never a 402). */
  | { kind: 'exhausted' };

export async function claimShared(
  shared: SharedPayments,
  log: FastifyBaseLogger,
  q: { nonceKey: string; requestHash: string; expiresAtMs: number; maxRecomputes: number },
): Promise<SharedOutcome> {
  const claim = await shared.claim(q.nonceKey, q.requestHash, q.expiresAtMs);
  if (claim.kind === 'claimed') return { kind: 'claimed', takenOver: false };
  const r = claim.record;
  if (!r || r.h !== q.requestHash || r.s === 'failed') return { kind: 'replay' };
  if (r.s === 'claimed') {
    // Nothing was charged yet: a dead (or stale) owner's claim is taken over, atomically.
    if (!claim.ownerLive && (await shared.takeOver(q.nonceKey, r.o, q.requestHash))) {
      log.warn({ nonceKey: q.nonceKey, deadReplica: r.o }, 'payments: took over a payment claimed by a replica gone before charging it');
      return { kind: 'claimed', takenOver: true };
    }
    return { kind: 'in-progress' };
  }
  // `charging` on a live owner: it is recording and settling; its answer is coming.
  if (r.s === 'charging' && claim.ownerLive) return { kind: 'in-progress' };
  // `paid`, or `charging` whose owner is gone: its row (if committed) is settled by its reconciler.
  const paymentResponse = r.r ?? null;
  const cached = await shared.answer(q.nonceKey);
  if (cached && cached.requestHash === q.requestHash) return { kind: 'cached', answer: cached, paymentResponse };
  // Counted after the recompute, only when it ran and its answer could not be kept (replays.ts).
  if ((await shared.recomputes(q.nonceKey)) >= q.maxRecomputes) return { kind: 'exhausted' };
  if (r.o !== shared.replicaId) log.info({ nonceKey: q.nonceKey, replica: r.o }, 'payments: answering again a payment taken by another replica');
  return { kind: 'recompute', paymentResponse };
}
