/**
 * TRUC (BIP 431, version 3) topology rules of Core v28+ (`SingleTRUCChecks`,
 * src/policy/truc_policy.cpp), with Core's reason `TRUC-violation` and its messages:
 * a v3 tx spends only v3 unconfirmed parents and a non-v3 tx none; a v3 tx is ≤ 10,000 vB; it has
 * at most one unconfirmed ancestor; a child of an unconfirmed v3 tx is ≤ 1,000 vB; a v3 parent has
 * at most one child, and a second one may replace the first by sibling eviction (returned here as
 * an extra direct conflict, so rules 3, 4 and 6 then apply to it as to any replacement).
 */
import { TRUC_CHILD_MAX_VSIZE, TRUC_MAX_VSIZE, TRUC_VERSION } from '../../bitcoin/policy.js';
import type { Mempool } from './mempool.js';
import type { Rejection } from './standardness.js';
import type { SimTx } from '../tx/txCodec.js';

export type TrucOutcome = { ok: true; siblingToEvict: string | null } | { ok: false; rejection: Rejection };

const violation = (details: string): TrucOutcome => ({ ok: false, rejection: { reason: 'TRUC-violation', details } });

export function checkTruc(mempool: Mempool, tx: SimTx, vsize: number, parents: ReadonlySet<string>, directConflicts: ReadonlySet<string>): TrucOutcome {
  const id = `${tx.txid} (wtxid=${tx.wtxid})`;
  if (tx.version !== TRUC_VERSION) {
    for (const p of parents) {
      const parent = mempool.entry(p);
      if (parent.tx.version === TRUC_VERSION) return violation(`non-version=3 tx ${id} cannot spend from version=3 tx ${p} (wtxid=${parent.tx.wtxid})`);
    }
    return { ok: true, siblingToEvict: null };
  }
  for (const p of parents) {
    const parent = mempool.entry(p);
    if (parent.tx.version !== TRUC_VERSION) return violation(`version=3 tx ${id} cannot spend from non-version=3 tx ${p} (wtxid=${parent.tx.wtxid})`);
  }
  if (vsize > TRUC_MAX_VSIZE) return violation(`version=3 tx ${id} is too big: ${vsize} > ${TRUC_MAX_VSIZE} virtual bytes`);
  const ancestors = new Set<string>();
  for (const p of parents) {
    ancestors.add(p);
    for (const a of mempool.ancestors(p)) ancestors.add(a);
  }
  if (ancestors.size + 1 > 2) return violation(`tx ${id} would have too many ancestors`);
  const [parentId] = parents;
  if (parentId === undefined) return { ok: true, siblingToEvict: null };
  if (vsize > TRUC_CHILD_MAX_VSIZE) return violation(`version=3 child tx ${id} is too big: ${vsize} > ${TRUC_CHILD_MAX_VSIZE} virtual bytes`);
  const siblings = [...mempool.entry(parentId).children].filter((c) => !directConflicts.has(c));
  if (siblings.length === 0) return { ok: true, siblingToEvict: null };
  // Sibling eviction: only when the one existing child has no children of its own.
  const [sibling] = siblings;
  if (siblings.length === 1 && sibling !== undefined && mempool.entry(sibling).children.size === 0) return { ok: true, siblingToEvict: sibling };
  return violation(`tx ${parentId} would exceed descendant count limit`);
}
