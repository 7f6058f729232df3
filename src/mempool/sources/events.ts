/**
 * Node events applied in the node's order (driven by `MempoolFollower` from Core's ZMQ `sequence`
 * topic or the simulated node's feed). Events see every version of a transaction, also one
 * replaced a second after it appeared. Added txs are read as their events arrive (`fetch`, or
 * `rebuild` from their raw form when already gone); a batch is then applied in one synchronous step.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { BitcoinNode } from '../../node/bitcoinNode.js';
import type { BlockVerbose1, MempoolInfo } from '../../node/schemas.js';
import { fetchEventTxs, rebuildGoneTxs } from '../eventTxs.js';
import type { MempoolEvent } from '../mempoolEvents.js';
import type { MirrorBlock, MirrorStore, RemovedTx } from '../mirrorStore.js';
import type { FetchedTx, MirrorTx } from '../mirrorTx.js';

export interface EventsSourceOptions {
  logger?: FastifyBaseLogger;
  now: () => number;
}

export class EventsSource {
  /** `added` events whose tx had already left the node when we asked for it (not in the view). */
  missedTxs = 0;

  constructor(
    private readonly node: BitcoinNode,
    private readonly store: MirrorStore,
    private readonly options: EventsSourceOptions,
  ) {}

  /** Entries and inputs of added txs, read as their events arrive (`eventTxs.ts`). */
  fetch(txids: readonly string[], rawOf?: (txid: string) => string | undefined): Promise<Map<string, FetchedTx>> {
    return fetchEventTxs(this.node, txids, rawOf, this.options.logger);
  }

  /** Txs already gone from the node, rebuilt from their raw form (`eventTxs.ts`). */
  rebuild(raws: ReadonlyMap<string, string>, now: number): Promise<Map<string, FetchedTx>> {
    return rebuildGoneTxs(this.node, raws, (txid) => this.store.txs.has(txid), now);
  }

  /**
   * Applies node events in the node's order (run it through the mirror's `exclusive`). `fetched`
   * has the entries of added txs (`fetch`). Events the view already reflects (mempool sequence below
   * `mempoolSequence`, blocks at or below the tip) are skipped. A removal is `replaced` when a later
   * added tx of the batch spends one of its inputs (Core sends the removal of the replaced tx right
   * before the addition of its replacement). Resolves to false when the events do not extend the
   * view (a block off our tip, a disconnected block): the caller then resynchronizes.
   */
  async apply(events: readonly MempoolEvent[], fetched: ReadonlyMap<string, FetchedTx>): Promise<boolean> {
    const { store } = this;
    const { info, blockData } = await this.readBatch(events);
    // --- no await below: the batch is committed at once ---
    const floor = store.mempoolSequence ?? 0;
    let sequence = floor;
    let inOrder = true;
    // Right after a full sync, the first change must be the next one: else events were lost before
    // the subscription was up (unless a block came first: its removals are numbered but not sent).
    let checkNext = store.syncedAt === floor;
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
        const tx = this.addFetched(event.txid, fetched);
        if (tx) added.push(tx);
      } else if (event.kind === 'removed') {
        const tx = store.txs.get(event.txid);
        if (!tx) continue;
        // Held until its replacement arrives (Core sends it after the removal, not always at once).
        store.hold(tx);
        gone.push(tx.txid);
        store.forget(tx);
      } else if (event.kind === 'connected') {
        const block = blockData.get(event.hash);
        if (!block) {
          inOrder = false;
          continue;
        }
        if (block.hash === store.tipHash || (store.tipHeight !== undefined && block.height <= store.tipHeight)) continue;
        checkNext = false;
        if (block.previousblockhash !== store.tipHash) inOrder = false;
        for (const txid of block.tx) {
          const tx = store.txs.get(txid);
          if (!tx) continue;
          removed.push({ tx, reason: 'confirmed', blockHeight: block.height });
          gone.push(tx.txid);
          store.forget(tx);
        }
        blocks.push({ hash: block.hash, height: block.height, txCount: block.nTx });
        store.tipHash = block.hash;
        store.tipHeight = block.height;
      } else inOrder = false;
    }
    const at = this.options.now();
    removed.push(...store.takeHeld(at, false));
    if (gone.length > 0) {
      store.txidOrder.deleteAll(gone);
      store.pruneParents((p) => store.txs.has(p));
    }
    const kept = added.filter((tx) => store.txs.get(tx.txid) === tx);
    store.txidOrder.addAll(kept.map((tx) => ({ txid: tx.txid, value: tx })));
    store.mempoolSequence = sequence;
    store.info = info;
    store.lastEventAt = at;
    store.commit({ at, added, removed, blocks }, added.length > 0 || gone.length > 0);
    return inOrder;
  }

  /** What a batch needs from the node: the mempool info and its connected blocks (a block the node no longer has is absent). */
  private async readBatch(events: readonly MempoolEvent[]): Promise<{ info: MempoolInfo; blockData: Map<string, BlockVerbose1> }> {
    const { node } = this;
    const connected = events.filter((e) => e.kind === 'connected').map((e) => e.hash);
    const [info, blockList] = await Promise.all([node.getMempoolInfo(), Promise.all(connected.map((hash) => node.getBlock(hash, 1).catch(() => undefined)))]);
    const blockData = new Map<string, BlockVerbose1>();
    for (const block of blockList) if (block) blockData.set(block.hash, block);
    return { info, blockData };
  }

  /** Puts an added tx in the view; undefined when it is in already, or had left the node when we asked (`missedTxs`). */
  private addFetched(txid: string, fetched: ReadonlyMap<string, FetchedTx>): MirrorTx | undefined {
    const { store } = this;
    if (store.txs.has(txid)) return undefined;
    const got = fetched.get(txid);
    if (!got) {
      this.missedTxs += 1;
      return undefined;
    }
    const tx = { ...got.tx, parents: got.tx.parents.filter((p) => store.txs.has(p)) };
    // A parent back from a disconnected block under children that stayed: link it from its side.
    for (const child of got.spentby) {
      const c = store.txs.get(child);
      if (c && !c.parents.includes(tx.txid)) c.parents.push(tx.txid);
    }
    store.txs.set(tx.txid, tx);
    for (const outpoint of tx.inputs ?? []) store.spentBy(outpoint, tx.txid);
    return tx;
  }
}
