/**
 * A local mirror of the node's mempool. It is what mempool statistics, histograms, the replacement
 * tracker and the stream read, so those answers cost no node round trip and stay consistent with
 * each other (one snapshot, one `asOf`).
 *
 * Two ways to keep it: a full sync (`poll`: `getrawmempool false true`, diffed, only new entries
 * fetched) and node events applied in order (`applyEvents`, driven by `MempoolFollower` from Core's
 * ZMQ `sequence` topic or the simulated node's feed). Events see every version of a transaction,
 * also one replaced a second after it appeared; polling alone never sees a version that comes and
 * goes between two polls. Both run one at a time (`exclusive`), each committing its changes in one
 * synchronous step.
 *
 * Every change emits one `MempoolDiff`: the txs added, the txs removed with the reason (mined in a
 * block we saw, replaced by a tx spending one of their inputs, or evicted otherwise), and new blocks.
 * A tx that came and went within one batch of events is in both `added` and `removed`.
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { BlockVerbose1, MempoolEntry, MempoolInfo } from '../node/schemas.js';
import { decodeInputs } from './decodeInputs.js';
import { fetchEventTxs, rebuildGoneTxs } from './eventTxs.js';
import type { MempoolEvent } from './mempoolEvents.js';
import { toMirrorTx, type FetchedTx, type MirrorTx } from './mirrorTx.js';
import { LogSampler } from '../util/logSampler.js';
import { PeriodicTask } from '../util/periodicTask.js';
import { TxidOrder } from './txidOrder.js';

export { toMirrorTx, type FetchedTx, type MirrorTx } from './mirrorTx.js';

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

export interface MempoolMirrorOptions {
  pollMs: number;
  /** Delay before the next scheduled sync, when it varies (the follower lengthens it while events flow). */
  interval?: () => number;
  /** Most raw transactions fetched per poll to learn inputs of a backlog. */
  inputFetchPerPoll?: number;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

const MAX_BLOCK_WALK = 10;
/**
 * How long a removal seen as an event waits for the replacement that explains it. Core sends the
 * removal of a replaced tx before the addition of its replacement, with its wallet's and other
 * subscribers' work in between: usually under a millisecond, on a busy node tens of them.
 */
export const HOLD_REMOVED_MS = 2000;
/** Raw transactions decoded between two turns of the event loop. */
const DECODE_SLICE = 500;

export class MempoolMirror extends EventEmitter<{ diff: [MempoolDiff] }> {
  readonly txs = new Map<string, MirrorTx>();
  /** The same transactions in Core's txid order (tie-break ranks for the optimizer). */
  readonly txidOrder = new TxidOrder<MirrorTx>();
  /** `txid:vout` → spending mempool txid, for txs whose inputs are known. */
  private readonly spends = new Map<string, string>();
  private readonly needInputs = new Set<string>();
  private readonly schedule = new PeriodicTask(
    () => this.poll(),
    () => this.options.interval?.() ?? this.options.pollMs,
  );
  private polling: Promise<void> | undefined;
  /** Tail of the chain of syncs and event batches (they never overlap). */
  private queue: Promise<unknown> = Promise.resolve();
  private tip: string | undefined;
  /** The node's next mempool sequence as the view reflects it (`getrawmempool false true`): events numbered below it are in. */
  mempoolSequence: number | undefined;
  /** Removed by events, reason pending: a replacement may still come (see `applyEvents`). */
  private held: Array<{ r: RemovedTx; at: number }> = [];
  private readonly heldBySpend = new Map<string, RemovedTx>();
  /** Poll failures while the node is down: logged when they start, then once a minute, and when they end. */
  private readonly pollFailureLog = new LogSampler();
  /** `mempoolSequence` of the last full sync, until an event batch moves past it. */
  private syncedAt: number | undefined;
  /** Whether the last full sync found the view out of date (what tells a silent event feed apart). */
  lastPollChanged = false;

  info: MempoolInfo | undefined;
  tipHeight: number | undefined;
  lastPollAt: number | undefined;
  lastPollMs: number | undefined;
  lastError: string | null = null;
  /** When the last poll failed (ms); with `lastPollAt`, which of the two is the node's latest word. */
  lastErrorAt: number | undefined;
  pollCount = 0;
  /** When the last event batch was applied (ms). */
  lastEventAt: number | undefined;
  /** `added` events whose tx had already left the node when we asked for it (not in the view). */
  missedTxs = 0;
  /** Bumped by every poll that changed the set of transactions (what derived views key their caches on). */
  version = 0;

  constructor(
    private readonly node: BitcoinNode,
    private readonly options: MempoolMirrorOptions,
  ) {
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

  /** Hash of the chain tip at the last poll. */
  get tipHash(): string | undefined {
    return this.tip;
  }

  start(): void {
    this.schedule.start();
  }

  async stop(): Promise<void> {
    this.schedule.stop();
    await this.polling?.catch(() => undefined);
    await this.queue;
  }

  /** One refresh. Concurrent callers share the running poll. Rejects (and records `lastError`) on node failure. */
  poll(): Promise<void> {
    this.polling ??= this.exclusive(() => this.pollOnce()).finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  /** A full sync queued after everything queued so far (unlike `poll`, never shares one already running). */
  resync(): Promise<void> {
    return this.exclusive(() => this.pollOnce());
  }

  /** Runs `task` after every sync or event batch queued before it, and before any queued after. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Everything the poll needs is fetched first; then the view changes in one synchronous step (or
   * not at all when a fetch fails): no reader, and no failed poll, ever sees a half-applied diff
   * (e.g. a replacement added while the tx it replaced is still there).
   */
  private async pollOnce(): Promise<void> {
    const now = this.options.now ?? Date.now;
    const started = now();
    try {
      const { tip, height, txids, info, sequence } = await this.consistentView();
      const blocks = tip !== this.tip && this.tip !== undefined ? await this.newBlocks(tip) : [];
      const current = new Set(txids);
      const childrenOf = new Map<string, string[]>();
      const added = await this.fetchEntries(
        txids.filter((txid) => !this.txs.has(txid)),
        childrenOf,
      );
      const inputs = await this.fetchInputs(added);
      // --- no await below: the new view is committed at once ---
      const diff = this.apply(current, added, childrenOf, inputs, blocks, started);
      this.tip = tip;
      this.tipHeight = height;
      this.info = info;
      this.mempoolSequence = sequence;
      this.syncedAt = sequence;
      this.lastPollChanged = diff.added.length > 0 || diff.removed.length > 0;
      this.lastPollAt = now();
      this.lastPollMs = this.lastPollAt - started;
      if (this.lastError !== null) {
        const notLogged = this.pollFailureLog.clear('poll');
        if (notLogged !== undefined) this.options.logger?.info({ failedPollsNotLogged: notLogged }, 'mempool poll recovered');
      }
      this.lastError = null;
      this.pollCount += 1;
      if (diff.added.length || diff.removed.length) this.version += 1;
      if (diff.added.length || diff.removed.length || diff.blocks.length) this.emit('diff', diff);
    } catch (error) {
      this.lastError = (error as Error).message;
      this.lastErrorAt = now();
      const sampled = this.pollFailureLog.take('poll');
      if (sampled) this.options.logger?.warn({ err: error, failedPollsNotLogged: sampled.suppressed }, 'mempool poll failed');
      throw error;
    }
  }

  /** Tip and mempool from the same moment: retried when a block lands between the calls. */
  private async consistentView(): Promise<{ tip: string; height: number; txids: string[]; info: MempoolInfo; sequence: number }> {
    for (let attempt = 0; ; attempt += 1) {
      const before = await this.node.getBestBlockHash();
      const [pool, info, height] = await Promise.all([this.node.getRawMempoolWithSequence(), this.node.getMempoolInfo(), this.node.getBlockCount()]);
      const after = await this.node.getBestBlockHash();
      if (before === after || attempt >= 2) return { tip: after, height, txids: pool.txids, info, sequence: pool.mempool_sequence };
    }
  }

  private async newBlocks(tip: string): Promise<Array<MirrorBlock & { txids: Set<string> }>> {
    const blocks: Array<MirrorBlock & { txids: Set<string> }> = [];
    let hash: string | undefined = tip;
    while (hash && hash !== this.tip && blocks.length < MAX_BLOCK_WALK) {
      const block: BlockVerbose1 = await this.node.getBlock(hash, 1);
      blocks.push({ hash, height: block.height, txCount: block.nTx, txids: new Set(block.tx) });
      hash = block.previousblockhash;
    }
    return blocks.reverse();
  }

  /** Applies one poll's fetched data to the view. Synchronous by design (see `pollOnce`). */
  private apply(
    current: ReadonlySet<string>,
    added: MirrorTx[],
    childrenOf: ReadonlyMap<string, string[]>,
    inputs: ReadonlyMap<string, string[] | null>,
    blocks: Array<MirrorBlock & { txids: Set<string> }>,
    at: number,
  ): MempoolDiff {
    this.add(added);
    // A parent can arrive after its children: a reorg puts a block's txs back into the mempool
    // under children that stayed. Their entries (read once) do not list it, so link it from the
    // parent's side, or the optimizer could select a child without its parent.
    for (const [parent, children] of childrenOf) {
      for (const child of children) {
        const c = this.txs.get(child);
        if (c && !c.parents.includes(parent)) c.parents.push(parent);
      }
    }
    for (const tx of added) this.needInputs.add(tx.txid);
    for (const [txid, outpoints] of inputs) {
      this.needInputs.delete(txid);
      const tx = this.txs.get(txid);
      if (!tx || !outpoints) continue;
      tx.inputs = outpoints;
      for (const outpoint of outpoints) this.spends.set(outpoint, txid);
    }

    const removed: RemovedTx[] = [];
    const removedIds: string[] = [];
    for (const txid of this.txs.keys()) if (!current.has(txid)) removedIds.push(txid);
    const replacedNow = new Map<string, string>();
    for (const txid of removedIds) {
      const tx = this.txs.get(txid);
      if (!tx) continue;
      const block = blocks.find((b) => b.txids.has(txid));
      if (block) {
        removed.push({ tx, reason: 'confirmed', blockHeight: block.height });
        continue;
      }
      const replacedBy = tx.inputs?.map((o) => this.spends.get(o)).find((s) => s !== undefined && s !== txid && current.has(s));
      if (replacedBy) {
        replacedNow.set(txid, replacedBy);
        removed.push({ tx, reason: 'replaced', replacedBy });
      } else removed.push({ tx, reason: 'evicted' });
    }
    // Descendants evicted along with a replaced ancestor belong to that replacement.
    const memo = new Map<string, string | null>();
    for (const r of removed) {
      if (r.reason !== 'evicted') continue;
      const root = this.replacedAncestor(r.tx, replacedNow, memo);
      if (root) r.evictedWith = root;
    }
    for (const r of removed) this.forget(r.tx);
    this.txidOrder.deleteAll(removedIds);
    for (const tx of this.txs.values()) if (tx.parents.some((p) => !current.has(p))) tx.parents = tx.parents.filter((p) => current.has(p));
    // Removals events left pending: their replacement, if any, is in the view now (or was never seen).
    const held = this.takeHeld(at, true);
    for (const r of held) {
      const by = r.reason === 'evicted' ? r.tx.inputs?.map((o) => this.spends.get(o)).find((s) => s !== undefined && current.has(s)) : undefined;
      if (by) Object.assign(r, { reason: 'replaced', replacedBy: by, evictedWith: undefined });
    }
    removed.unshift(...held);
    return { at, added, removed, blocks: blocks.map(({ hash, height, txCount }) => ({ hash, height, txCount })) };
  }

  /**
   * The replaced tx among `tx`'s in-mempool ancestors, if any. Memoized over one poll, so all the
   * evicted txs together cost O(txs + parent links) even in a DAG with exponentially many paths.
   */
  private replacedAncestor(tx: MirrorTx, replaced: ReadonlyMap<string, string>, memo: Map<string, string | null>, depth = 0): string | undefined {
    const known = memo.get(tx.txid);
    if (known !== undefined) return known ?? undefined;
    if (depth > 100) return undefined;
    let found: string | null = null;
    for (const parent of tx.parents) {
      if (replaced.has(parent)) {
        found = parent;
        break;
      }
      const p = this.txs.get(parent);
      const root = p ? this.replacedAncestor(p, replaced, memo, depth + 1) : undefined;
      if (root) {
        found = root;
        break;
      }
    }
    memo.set(tx.txid, found);
    return found ?? undefined;
  }

  /** Entries and inputs of added txs, read as their events arrive (`eventTxs.ts`). */
  fetchTxs(txids: readonly string[], rawOf?: (txid: string) => string | undefined): Promise<Map<string, FetchedTx>> {
    return fetchEventTxs(this.node, txids, rawOf, this.options.logger);
  }

  /** Txs already gone from the node, rebuilt from their raw form (`eventTxs.ts`). */
  rebuildTxs(raws: ReadonlyMap<string, string>, now: number): Promise<Map<string, FetchedTx>> {
    return rebuildGoneTxs(this.node, raws, (txid) => this.txs.has(txid), now);
  }

  /**
   * Applies node events in the node's order (run it through `exclusive`). `fetched` has the
   * entries of added txs (`fetchTxs`). Events the view already reflects (mempool sequence below
   * `mempoolSequence`, blocks at or below the tip) are skipped. A removal is `replaced` when
   * a later added tx of the batch spends one of its inputs (Core sends the removal of the replaced
   * tx right before the addition of its replacement). Resolves to false when the events do not
   * extend the view (a block off our tip, a disconnected block): the caller then resynchronizes.
   */
  async applyEvents(events: readonly MempoolEvent[], fetched: ReadonlyMap<string, FetchedTx>): Promise<boolean> {
    const connected = events.filter((e) => e.kind === 'connected').map((e) => e.hash);
    const [info, blockList] = await Promise.all([
      this.node.getMempoolInfo(),
      Promise.all(connected.map((hash) => this.node.getBlock(hash, 1).catch(() => undefined))),
    ]);
    const blockData = new Map<string, BlockVerbose1>();
    for (const block of blockList) if (block) blockData.set(block.hash, block);
    // --- no await below: the batch is committed at once ---
    const floor = this.mempoolSequence ?? 0;
    let sequence = floor;
    let inOrder = true;
    // Right after a full sync, the first change must be the next one: else events were lost before
    // the subscription was up (unless a block came first: its removals are numbered but not sent).
    let checkNext = this.syncedAt === floor;
    const added: MirrorTx[] = [];
    const removed: RemovedTx[] = [];
    const blocks: MirrorBlock[] = [];
    const gone: string[] = [];
    for (const event of events) {
      if (event.kind === 'added' || event.kind === 'removed') {
        if (event.mempoolSequence < floor) continue;
        if (checkNext && event.mempoolSequence !== floor) inOrder = false;
        checkNext = false;
        sequence = Math.max(sequence, event.mempoolSequence + 1);
      }
      if (event.kind === 'added') {
        if (this.txs.has(event.txid)) continue;
        const got = fetched.get(event.txid);
        if (!got) {
          this.missedTxs += 1;
          continue;
        }
        const tx = { ...got.tx, parents: got.tx.parents.filter((p) => this.txs.has(p)) };
        // A parent back from a disconnected block under children that stayed: link it from its side.
        for (const child of got.spentby) {
          const c = this.txs.get(child);
          if (c && !c.parents.includes(tx.txid)) c.parents.push(tx.txid);
        }
        this.txs.set(tx.txid, tx);
        added.push(tx);
        for (const outpoint of tx.inputs ?? []) {
          this.spends.set(outpoint, tx.txid);
          const earlier = this.heldBySpend.get(outpoint);
          if (earlier && earlier.reason === 'evicted') {
            Object.assign(earlier, { reason: 'replaced', replacedBy: tx.txid });
          }
        }
      } else if (event.kind === 'removed') {
        const tx = this.txs.get(event.txid);
        if (!tx) continue;
        // Held until its replacement arrives (Core sends it after the removal, not always at once).
        const r: RemovedTx = { tx, reason: 'evicted' };
        this.held.push({ r, at: (this.options.now ?? Date.now)() });
        for (const outpoint of tx.inputs ?? []) this.heldBySpend.set(outpoint, r);
        gone.push(tx.txid);
        this.forget(tx);
      } else if (event.kind === 'connected') {
        const block = blockData.get(event.hash);
        if (!block) {
          inOrder = false;
          continue;
        }
        if (block.hash === this.tip || (this.tipHeight !== undefined && block.height <= this.tipHeight)) continue;
        checkNext = false;
        if (block.previousblockhash !== this.tip) inOrder = false;
        for (const txid of block.tx) {
          const tx = this.txs.get(txid);
          if (!tx) continue;
          removed.push({ tx, reason: 'confirmed', blockHeight: block.height });
          gone.push(tx.txid);
          this.forget(tx);
        }
        blocks.push({ hash: block.hash, height: block.height, txCount: block.nTx });
        this.tip = block.hash;
        this.tipHeight = block.height;
      } else inOrder = false;
    }
    const at = (this.options.now ?? Date.now)();
    removed.push(...this.takeHeld(at, false));
    if (gone.length > 0) {
      this.txidOrder.deleteAll(gone);
      for (const tx of this.txs.values()) if (tx.parents.some((p) => !this.txs.has(p))) tx.parents = tx.parents.filter((p) => this.txs.has(p));
    }
    const kept = added.filter((tx) => this.txs.get(tx.txid) === tx);
    this.txidOrder.addAll(kept.map((tx) => ({ txid: tx.txid, value: tx })));
    this.mempoolSequence = sequence;
    this.info = info;
    this.lastEventAt = at;
    if (added.length || gone.length) this.version += 1;
    if (added.length || removed.length || blocks.length) this.emit('diff', { at, added, removed, blocks });
    return inOrder;
  }

  /** Whether removals wait for their replacement (`releaseHeld` reports them after `HOLD_REMOVED_MS`). */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** Reports the removals held longer than `HOLD_REMOVED_MS` (as evicted: no replacement came). */
  releaseHeld(): void {
    const at = (this.options.now ?? Date.now)();
    const removed = this.takeHeld(at, false);
    if (removed.length > 0) this.emit('diff', { at, added: [], removed, blocks: [] });
  }

  /**
   * The held removals that are explained (replaced, or evicted with a replaced ancestor) or waited
   * long enough, or all of them; descendants evicted along with a replaced ancestor are marked as
   * belonging to that replacement. O(held).
   */
  private takeHeld(at: number, all: boolean): RemovedTx[] {
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

  /** Adds entries to the view (the poll does this; benchmarks fill a mirror directly). */
  add(txs: readonly MirrorTx[]): void {
    const fresh = txs.filter((tx) => !this.txs.has(tx.txid));
    for (const tx of fresh) this.txs.set(tx.txid, tx);
    this.txidOrder.addAll(fresh.map((tx) => ({ txid: tx.txid, value: tx })));
  }

  private forget(tx: MirrorTx): void {
    this.txs.delete(tx.txid);
    this.needInputs.delete(tx.txid);
    for (const outpoint of tx.inputs ?? []) if (this.spends.get(outpoint) === tx.txid) this.spends.delete(outpoint);
  }

  /** New entries, with the in-mempool children each had when fetched (`spentby`) in `childrenOf`. */
  private async fetchEntries(txids: string[], childrenOf: Map<string, string[]>): Promise<MirrorTx[]> {
    if (txids.length === 0) return [];
    // Batches of getmempoolentry, also for a large gap (first poll, after an outage): one verbose
    // dump of a 150k-tx mempool is ~75 MB whose JSON.parse and schema check hold the event loop for
    // ~2 s; batches cost about the same in total, ~1,000 entries per turn of the loop.
    const entries: Map<string, MempoolEntry> = await this.node.getMempoolEntries(txids);
    const out: MirrorTx[] = [];
    for (const txid of txids) {
      const e = entries.get(txid);
      if (!e) continue;
      out.push(toMirrorTx(txid, e));
      if (e.spentby.length > 0) childrenOf.set(txid, e.spentby);
    }
    return out;
  }

  /**
   * Outpoints spent by up to `inputFetchPerPoll` txs: this poll's new txs first (a replacement is
   * recognised only once its inputs are known), then the backlog of earlier ones. Txs the node no
   * longer knows, or whose raw form does not decode, map to null (never retried).
   */
  private async fetchInputs(added: readonly MirrorTx[]): Promise<Map<string, string[] | null>> {
    const limit = this.options.inputFetchPerPoll ?? 5000;
    const wanted: string[] = [];
    for (const tx of added) {
      if (wanted.length >= limit) break;
      wanted.push(tx.txid);
    }
    for (const txid of this.needInputs) {
      if (wanted.length >= limit) break;
      wanted.push(txid);
    }
    const out = new Map<string, string[] | null>();
    if (wanted.length === 0) return out;
    const raws = await this.node.getRawTransactionsHex(wanted);
    for (const [k, txid] of wanted.entries()) {
      // Decoding is CPU work (~25 µs a tx): let requests through between slices of a large backlog.
      if (k > 0 && k % DECODE_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const raw = raws.get(txid);
      let outpoints: string[] | null = null;
      if (raw !== undefined) {
        try {
          outpoints = decodeInputs(raw);
        } catch (error) {
          this.options.logger?.warn({ err: error, txid }, 'mempool tx does not decode; its replacements are not tracked');
        }
      }
      out.set(txid, outpoints);
    }
    return out;
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
