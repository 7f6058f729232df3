/**
 * The mempool view both sources feed (`sources/poll.ts`, `sources/events.ts`): the transactions, in
 * a map and in Core's txid order, who spends which outpoint, the tip, and when the view last matched
 * the node. Sources change it in one synchronous step each and end with `commit`, which emits one
 * `MempoolDiff`: the txs added, the txs removed with the reason (mined in a block we saw, replaced
 * by a tx spending one of their inputs, or evicted otherwise), and new blocks. A tx that came and
 * went within one batch of events is in both `added` and `removed`.
 *
 * A removal seen as an event is held until the replacement that explains it arrives (`hold`,
 * `takeHeld`): Core sends the removal of a replaced tx before the addition of its replacement.
 */
import { EventEmitter } from 'node:events';
import type { MempoolInfo } from '../node/schemas.js';
import type { MirrorTx } from './mirrorTx.js';
import { TxidOrder } from './txidOrder.js';

export type RemovalReason = 'confirmed' | 'replaced' | 'evicted';

export interface RemovedTx {
  tx: MirrorTx;
  reason: RemovalReason;
  /** For `replaced`: the tx that spends one of its inputs now. */
  replacedBy?: string;
  /** For `evicted` descendants of a replaced tx: the replaced ancestor. */
  evictedWith?: string;
  blockHeight?: number;
}

export interface MirrorBlock {
  hash: string;
  height: number;
  txCount: number;
}

export interface MempoolDiff {
  at: number;
  added: MirrorTx[];
  removed: RemovedTx[];
  blocks: MirrorBlock[];
}

/**
 * How long a removal seen as an event waits for the replacement that explains it. Core sends the
 * removal of a replaced tx before the addition of its replacement, with its wallet's and other
 * subscribers' work in between: usually under a millisecond, on a busy node tens of them.
 */
export const HOLD_REMOVED_MS = 2000;

export class MirrorStore extends EventEmitter<{ diff: [MempoolDiff] }> {
  readonly txs = new Map<string, MirrorTx>();
  /** The same transactions in Core's txid order (tie-break ranks for the optimizer). */
  readonly txidOrder = new TxidOrder<MirrorTx>();
  /** `txid:vout` → spending mempool txid, for txs whose inputs are known. */
  readonly spends = new Map<string, string>();
  /** Txs whose inputs the poll has yet to learn. */
  readonly needInputs = new Set<string>();
  /** Removed by events, reason pending: a replacement may still come. */
  private held: Array<{ r: RemovedTx; at: number }> = [];
  private readonly heldBySpend = new Map<string, RemovedTx>();

  /** Hash of the chain tip the view reflects. */
  tipHash: string | undefined;
  tipHeight: number | undefined;
  info: MempoolInfo | undefined;
  /** The node's next mempool sequence as the view reflects it (`getrawmempool false true`): events numbered below it are in. */
  mempoolSequence: number | undefined;
  /** `mempoolSequence` of the last full sync, until an event batch moves past it. */
  syncedAt: number | undefined;
  /** When the last full sync succeeded (ms). */
  lastPollAt: number | undefined;
  /** When the last event batch was applied (ms). */
  lastEventAt: number | undefined;
  /** Bumped by every change to the set of transactions (what derived views key their caches on). */
  version = 0;

  constructor(private readonly clock: () => number) {
    super();
  }

  /**
   * When the view was last known to match the node: its last full poll or its last applied event
   * batch, whichever is later (what answers' `asOf` states; DESIGN §5, freshness).
   */
  get matchedNodeAt(): number | undefined {
    if (this.lastEventAt === undefined) return this.lastPollAt;
    return this.lastPollAt === undefined ? this.lastEventAt : Math.max(this.lastPollAt, this.lastEventAt);
  }

  get ready(): boolean {
    return this.lastPollAt !== undefined;
  }

  /** Adds entries to the view (the poll does this; benchmarks fill a mirror directly). */
  add(txs: readonly MirrorTx[]): void {
    const fresh = txs.filter((tx) => !this.txs.has(tx.txid));
    for (const tx of fresh) this.txs.set(tx.txid, tx);
    this.txidOrder.addAll(fresh.map((tx) => ({ txid: tx.txid, value: tx })));
  }

  /** Drops `tx` from the map and the spends (the txid order is updated in bulk: `txidOrder.deleteAll`). */
  forget(tx: MirrorTx): void {
    this.txs.delete(tx.txid);
    this.needInputs.delete(tx.txid);
    for (const outpoint of tx.inputs ?? []) if (this.spends.get(outpoint) === tx.txid) this.spends.delete(outpoint);
  }

  /** Drops parent links to txs that are no longer in the view. */
  pruneParents(inView: (txid: string) => boolean): void {
    for (const tx of this.txs.values()) if (tx.parents.some((p) => !inView(p))) tx.parents = tx.parents.filter((p) => inView(p));
  }

  /** Holds `tx`'s removal (as evicted) until its replacement arrives or `HOLD_REMOVED_MS` passes. */
  hold(tx: MirrorTx): void {
    const r: RemovedTx = { tx, reason: 'evicted' };
    this.held.push({ r, at: this.clock() });
    for (const outpoint of tx.inputs ?? []) this.heldBySpend.set(outpoint, r);
  }

  /** A tx now spends `outpoint`: a held removal that spent it was replaced by `txid`. */
  spentBy(outpoint: string, txid: string): void {
    this.spends.set(outpoint, txid);
    const earlier = this.heldBySpend.get(outpoint);
    if (earlier && earlier.reason === 'evicted') Object.assign(earlier, { reason: 'replaced', replacedBy: txid });
  }

  /** Whether removals wait for their replacement (`releaseHeld` reports them after `HOLD_REMOVED_MS`). */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** Reports the removals held longer than `HOLD_REMOVED_MS` (as evicted: no replacement came). */
  releaseHeld(): void {
    const at = this.clock();
    const removed = this.takeHeld(at, false);
    if (removed.length > 0) this.emit('diff', { at, added: [], removed, blocks: [] });
  }

  /**
   * The held removals that are explained (replaced, or evicted with a replaced ancestor) or waited
   * long enough, or all of them; descendants evicted along with a replaced ancestor are marked as
   * belonging to that replacement. O(held).
   */
  takeHeld(at: number, all: boolean): RemovedTx[] {
    const byId = new Map(this.held.map(({ r }) => [r.tx.txid, r]));
    const memo = new Map<string, string | null>();
    for (const { r } of this.held) if (r.reason === 'evicted') r.evictedWith = evictingAncestor(r, byId, memo) ?? undefined;
    const out: RemovedTx[] = [];
    const keep: Array<{ r: RemovedTx; at: number }> = [];
    for (const h of this.held) {
      if (all || h.r.reason === 'replaced' || h.r.evictedWith || at - h.at >= HOLD_REMOVED_MS) out.push(h.r);
      else keep.push(h);
    }
    this.held = keep;
    this.heldBySpend.clear();
    for (const { r } of keep) for (const outpoint of r.tx.inputs ?? []) this.heldBySpend.set(outpoint, r);
    return out;
  }

  /** Ends one change: a new `version` when the set of txs changed, and its diff when anything happened. */
  commit(diff: MempoolDiff, txSetChanged: boolean): void {
    if (txSetChanged) this.version += 1;
    if (diff.added.length || diff.removed.length || diff.blocks.length) this.emit('diff', diff);
  }
}

/** The replaced tx among the removed ancestors of an evicted tx, if any (memoized over one batch). */
function evictingAncestor(r: RemovedTx, removed: ReadonlyMap<string, RemovedTx>, memo: Map<string, string | null>, depth = 0): string | null {
  const known = memo.get(r.tx.txid);
  if (known !== undefined) return known;
  let found: string | null = null;
  for (const parent of depth > 100 ? [] : r.tx.parents) {
    const p = removed.get(parent);
    if (!p) continue;
    found = p.reason === 'replaced' ? parent : evictingAncestor(p, removed, memo, depth + 1);
    if (found) break;
  }
  memo.set(r.tx.txid, found);
  return found;
}
