/**
 * The full sync: `getrawmempool false true`, diffed against the view, only new entries fetched (and
 * the inputs of up to `inputFetchPerPoll` txs). Everything is fetched first; then the view changes
 * in one synchronous step (or not at all when a fetch fails): no reader, and no failed poll, ever
 * sees a half-applied diff (e.g. a replacement added while the tx it replaced is still there).
 * Polling alone never sees a version that comes and goes between two polls (the event source does).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { BitcoinNode } from '../../node/bitcoinNode.js';
import type { BlockVerbose1, MempoolEntry, MempoolInfo } from '../../node/schemas.js';
import { LogSampler } from '../../util/logSampler.js';
import { decodeInputs } from '../decodeInputs.js';
import type { MempoolDiff, MirrorBlock, MirrorStore, RemovedTx } from '../mirrorStore.js';
import { toMirrorTx, type MirrorTx } from '../mirrorTx.js';

const MAX_BLOCK_WALK = 10;
/** Raw transactions decoded between two turns of the event loop. */
const DECODE_SLICE = 500;

type FetchedBlock = MirrorBlock & { txids: Set<string> };

export interface PollSourceOptions {
  /** Most raw transactions fetched per poll to learn inputs of a backlog. */
  inputFetchPerPoll?: number;
  logger?: FastifyBaseLogger;
  now: () => number;
}

export class PollSource {
  lastPollMs: number | undefined;
  lastError: string | null = null;
  /** When the last poll failed (ms); with `lastPollAt`, which of the two is the node's latest word. */
  lastErrorAt: number | undefined;
  pollCount = 0;
  /** Whether the last full sync found the view out of date (what tells a silent event feed apart). */
  lastPollChanged = false;
  /** Poll failures while the node is down: logged when they start, then once a minute, and when they end. */
  private readonly failureLog = new LogSampler();

  constructor(
    private readonly node: BitcoinNode,
    private readonly store: MirrorStore,
    private readonly options: PollSourceOptions,
  ) {}

  /** One full sync. Rejects (and records `lastError`) on node failure. Run it through the mirror's `exclusive`. */
  async sync(): Promise<void> {
    const { store, options } = this;
    const started = options.now();
    try {
      const { tip, height, txids, info, sequence } = await this.consistentView();
      const blocks = tip !== store.tipHash && store.tipHash !== undefined ? await this.newBlocks(tip) : [];
      const current = new Set(txids);
      const childrenOf = new Map<string, string[]>();
      const added = await this.fetchEntries(
        txids.filter((txid) => !store.txs.has(txid)),
        childrenOf,
      );
      const inputs = await this.fetchInputs(added);
      // --- no await below: the new view is committed at once ---
      const diff = this.apply(current, added, childrenOf, inputs, blocks, started);
      store.tipHash = tip;
      store.tipHeight = height;
      store.info = info;
      store.mempoolSequence = sequence;
      store.syncedAt = sequence;
      this.lastPollChanged = diff.added.length > 0 || diff.removed.length > 0;
      store.lastPollAt = options.now();
      this.lastPollMs = store.lastPollAt - started;
      if (this.lastError !== null) {
        const notLogged = this.failureLog.clear('poll');
        if (notLogged !== undefined) options.logger?.info({ failedPollsNotLogged: notLogged }, 'mempool poll recovered');
      }
      this.lastError = null;
      this.pollCount += 1;
      store.commit(diff, diff.added.length > 0 || diff.removed.length > 0);
    } catch (error) {
      this.lastError = (error as Error).message;
      this.lastErrorAt = options.now();
      const sampled = this.failureLog.take('poll');
      if (sampled) options.logger?.warn({ err: error, failedPollsNotLogged: sampled.suppressed }, 'mempool poll failed');
      throw error;
    }
  }

  /** Tip and mempool from the same moment: retried when a block lands between the calls. */
  private async consistentView(): Promise<{ tip: string; height: number; txids: string[]; info: MempoolInfo; sequence: number }> {
    const { node } = this;
    for (let attempt = 0; ; attempt += 1) {
      const before = await node.getBestBlockHash();
      const [pool, info, height] = await Promise.all([node.getRawMempoolWithSequence(), node.getMempoolInfo(), node.getBlockCount()]);
      const after = await node.getBestBlockHash();
      if (before === after || attempt >= 2) return { tip: after, height, txids: pool.txids, info, sequence: pool.mempool_sequence };
    }
  }

  private async newBlocks(tip: string): Promise<FetchedBlock[]> {
    const blocks: FetchedBlock[] = [];
    let hash: string | undefined = tip;
    while (hash && hash !== this.store.tipHash && blocks.length < MAX_BLOCK_WALK) {
      const block: BlockVerbose1 = await this.node.getBlock(hash, 1);
      blocks.push({ hash, height: block.height, txCount: block.nTx, txids: new Set(block.tx) });
      hash = block.previousblockhash;
    }
    return blocks.reverse();
  }

  /** Applies one poll's fetched data to the view. Synchronous by design (see `sync`). */
  private apply(
    current: ReadonlySet<string>,
    added: MirrorTx[],
    childrenOf: ReadonlyMap<string, string[]>,
    inputs: ReadonlyMap<string, string[] | null>,
    blocks: FetchedBlock[],
    at: number,
  ): MempoolDiff {
    const { store } = this;
    store.add(added);
    // A parent can arrive after its children: a reorg puts a block's txs back into the mempool
    // under children that stayed. Their entries (read once) do not list it, so link it from the
    // parent's side, or the optimizer could select a child without its parent.
    for (const [parent, children] of childrenOf) {
      for (const child of children) {
        const c = store.txs.get(child);
        if (c && !c.parents.includes(parent)) c.parents.push(parent);
      }
    }
    for (const tx of added) store.needInputs.add(tx.txid);
    for (const [txid, outpoints] of inputs) {
      store.needInputs.delete(txid);
      const tx = store.txs.get(txid);
      if (!tx || !outpoints) continue;
      tx.inputs = outpoints;
      for (const outpoint of outpoints) store.spends.set(outpoint, txid);
    }

    const removed: RemovedTx[] = [];
    const removedIds: string[] = [];
    for (const txid of store.txs.keys()) if (!current.has(txid)) removedIds.push(txid);
    const replacedNow = new Map<string, string>();
    for (const txid of removedIds) {
      const tx = store.txs.get(txid);
      if (!tx) continue;
      const block = blocks.find((b) => b.txids.has(txid));
      if (block) {
        removed.push({ tx, reason: 'confirmed', blockHeight: block.height });
        continue;
      }
      const replacedBy = tx.inputs?.map((o) => store.spends.get(o)).find((s) => s !== undefined && s !== txid && current.has(s));
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
    for (const r of removed) store.forget(r.tx);
    store.txidOrder.deleteAll(removedIds);
    store.pruneParents((p) => current.has(p));
    // Removals events left pending: their replacement, if any, is in the view now (or was never seen).
    const held = store.takeHeld(at, true);
    for (const r of held) {
      const by = r.reason === 'evicted' ? r.tx.inputs?.map((o) => store.spends.get(o)).find((s) => s !== undefined && current.has(s)) : undefined;
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
      const p = this.store.txs.get(parent);
      const root = p ? this.replacedAncestor(p, replaced, memo, depth + 1) : undefined;
      if (root) {
        found = root;
        break;
      }
    }
    memo.set(tx.txid, found);
    return found ?? undefined;
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
    for (const txid of this.store.needInputs) {
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
