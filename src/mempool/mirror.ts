/**
 * A local mirror of the node's mempool, kept by polling and diffing (`getrawmempool false` every
 * `MEMPOOL_POLL_MS`; only new entries are fetched). It is what mempool statistics, histograms and
 * the replacement tracker read, so those answers cost no node round trip and stay consistent with
 * each other (one snapshot, one `asOf`).
 *
 * Each poll emits one `MempoolDiff`: the txs added, the txs removed with the reason (mined in a
 * block we saw, replaced by a tx spending one of their inputs, or evicted otherwise), and new blocks.
 * A tx that arrives and leaves between two polls is never seen: that is the price of polling
 * (a ZMQ feed would close the gap).
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { BYTES_PER_SIGOP, WITNESS_SCALE_FACTOR } from '../bitcoin/consensus.js';
import { btcToSats } from '../bitcoin/units.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { BlockVerbose1, MempoolEntry, MempoolInfo } from '../node/schemas.js';
import { decodeInputs } from './decodeInputs.js';
import { PeriodicTask } from '../util/periodicTask.js';
import { TxidOrder } from './txidOrder.js';

export interface MirrorTx {
  txid: string;
  feeSat: number;
  modifiedFeeSat: number;
  vsize: number;
  weight: number;
  /** Unix seconds the node first saw it. */
  time: number;
  /** Unconfirmed parents at entry time (kept while they are in the mempool). */
  parents: string[];
  /** Outpoints spent, `txid:vout`; null until fetched (large backlogs are fetched over several polls). */
  inputs: string[] | null;
  /** Chunk fee and weight reported by a v31 node. */
  chunkFeeSat: number | null;
  chunkWeight: number | null;
  /**
   * Sigop cost implied by the node's sigop-adjusted vsize (max(weight, 20 × sigops) / 4, Core's `vsize`
   * on every version, also v31's `vsize_adjusted`): exact when sigops dominate the size, 0 when the
   * weight dominates (then sigops do not change the fit).
   */
  sigopCostLowerBound: number;
  /** Scratch for the optimizer's snapshot builder: this tx's index in the snapshot being built. */
  snapshotIndex: number;
}

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
  /** Most raw transactions fetched per poll to learn inputs of a backlog. */
  inputFetchPerPoll?: number;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

const MAX_BLOCK_WALK = 10;
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
    () => this.options.pollMs,
  );
  private polling: Promise<void> | undefined;
  /** True while the polling loop runs (between `start` and `stop`). */
  private tip: string | undefined;

  info: MempoolInfo | undefined;
  tipHeight: number | undefined;
  lastPollAt: number | undefined;
  lastPollMs: number | undefined;
  lastError: string | null = null;
  pollCount = 0;
  /** Bumped by every poll that changed the set of transactions (what derived views key their caches on). */
  version = 0;

  constructor(
    private readonly node: BitcoinNode,
    private readonly options: MempoolMirrorOptions,
  ) {
    super();
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
  }

  /** One refresh. Concurrent callers share the running poll. Rejects (and records `lastError`) on node failure. */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
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
      const { tip, height, txids, info } = await this.consistentView();
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
      this.lastPollAt = now();
      this.lastPollMs = this.lastPollAt - started;
      this.lastError = null;
      this.pollCount += 1;
      if (diff.added.length || diff.removed.length) this.version += 1;
      if (diff.added.length || diff.removed.length || diff.blocks.length) this.emit('diff', diff);
    } catch (error) {
      this.lastError = (error as Error).message;
      this.options.logger?.warn({ err: error }, 'mempool poll failed');
      throw error;
    }
  }

  /** Tip and mempool from the same moment: retried when a block lands between the calls. */
  private async consistentView(): Promise<{ tip: string; height: number; txids: string[]; info: MempoolInfo }> {
    for (let attempt = 0; ; attempt += 1) {
      const before = await this.node.getBestBlockHash();
      const [txids, info, height] = await Promise.all([this.node.getRawMempoolTxids(), this.node.getMempoolInfo(), this.node.getBlockCount()]);
      const after = await this.node.getBestBlockHash();
      if (before === after || attempt >= 2) return { tip: after, height, txids, info };
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

/** A mirror entry from a `getmempoolentry` / `getrawmempool true` entry. */
export function toMirrorTx(txid: string, e: MempoolEntry): MirrorTx {
  return {
    txid,
    feeSat: btcToSats(e.fees.base),
    modifiedFeeSat: btcToSats(e.fees.modified),
    vsize: e.vsize,
    weight: e.weight ?? e.vsize * 4,
    time: e.time,
    parents: [...e.depends],
    inputs: null,
    chunkFeeSat: e.fees.chunk !== undefined ? btcToSats(e.fees.chunk) : null,
    chunkWeight: e.chunkweight ?? null,
    snapshotIndex: -1,
    sigopCostLowerBound: sigopCostLowerBound(e),
  };
}

/**
 * Core's `vsize` (and v31's `vsize_adjusted`, the same number) is sigop-adjusted:
 * ceil(max(weight, 20 × sigops) / 4). When it exceeds ceil(weight / 4), sigops dominate and the
 * sigop cost is vsize / 5 (as `snapshot.ts` derives it for the CLI); otherwise it is not known and
 * does not matter to the fit.
 */
function sigopCostLowerBound(e: MempoolEntry): number {
  const adjusted = Math.max(e.vsize, e.vsize_adjusted ?? 0);
  if (e.weight === undefined || adjusted <= Math.ceil(e.weight / WITNESS_SCALE_FACTOR)) return 0;
  return Math.ceil((adjusted * WITNESS_SCALE_FACTOR) / BYTES_PER_SIGOP);
}
