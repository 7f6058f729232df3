/**
 * A local mirror of the node's mempool. It is what mempool statistics, histograms, the replacement
 * tracker and the stream read, so those answers cost no node round trip and stay consistent with
 * each other (one snapshot, one `asOf`).
 *
 * Two sources feed one view (`mirrorStore.ts`): the full sync (`poll`, `sources/poll.ts`) and node
 * events applied in order (`applyEvents`, `sources/events.ts`, driven by `MempoolFollower`). This
 * class schedules them and runs them one at a time (`exclusive`), each committing its changes in
 * one synchronous step.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { MempoolEvent } from './mempoolEvents.js';
import { MirrorStore } from './mirrorStore.js';
import type { FetchedTx } from './mirrorTx.js';
import { PeriodicTask } from '../util/periodicTask.js';
import { EventsSource } from './sources/events.js';
import { PollSource } from './sources/poll.js';

export { toMirrorTx, type FetchedTx, type MirrorTx } from './mirrorTx.js';
export { HOLD_REMOVED_MS, type MempoolDiff, type MirrorBlock, type RemovalReason, type RemovedTx } from './mirrorStore.js';

export interface MempoolMirrorOptions {
  pollMs: number;
  /** Delay before the next scheduled sync, when it varies (the follower lengthens it while events flow). */
  interval?: () => number;
  /** Most raw transactions fetched per poll to learn inputs of a backlog. */
  inputFetchPerPoll?: number;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

export class MempoolMirror extends MirrorStore {
  private readonly polls: PollSource;
  private readonly events: EventsSource;
  private readonly schedule = new PeriodicTask(
    () => this.poll(),
    () => this.options.interval?.() ?? this.options.pollMs,
  );
  private polling: Promise<void> | undefined;
  /** Tail of the chain of syncs and event batches (they never overlap). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    node: BitcoinNode,
    private readonly options: MempoolMirrorOptions,
  ) {
    const now = (): number => (options.now ?? Date.now)();
    super(now);
    this.polls = new PollSource(node, this, { inputFetchPerPoll: options.inputFetchPerPoll, logger: options.logger, now });
    this.events = new EventsSource(node, this, { logger: options.logger, now });
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
    this.polling ??= this.exclusive(() => this.polls.sync()).finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  /** A full sync queued after everything queued so far (unlike `poll`, never shares one already running). */
  resync(): Promise<void> {
    return this.exclusive(() => this.polls.sync());
  }

  /** Runs `task` after every sync or event batch queued before it, and before any queued after. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Applies node events in the node's order (run it through `exclusive`); false: resynchronize (`sources/events.ts`). */
  applyEvents(events: readonly MempoolEvent[], fetched: ReadonlyMap<string, FetchedTx>): Promise<boolean> {
    return this.events.apply(events, fetched);
  }

  /** Entries and inputs of added txs, read as their events arrive. */
  fetchTxs(txids: readonly string[], rawOf?: (txid: string) => string | undefined): Promise<Map<string, FetchedTx>> {
    return this.events.fetch(txids, rawOf);
  }

  /** Txs already gone from the node, rebuilt from their raw form. */
  rebuildTxs(raws: ReadonlyMap<string, string>, now: number): Promise<Map<string, FetchedTx>> {
    return this.events.rebuild(raws, now);
  }

  get lastPollMs(): number | undefined {
    return this.polls.lastPollMs;
  }

  get lastError(): string | null {
    return this.polls.lastError;
  }

  /** When the last poll failed (ms); with `lastPollAt`, which of the two is the node's latest word. */
  get lastErrorAt(): number | undefined {
    return this.polls.lastErrorAt;
  }

  get pollCount(): number {
    return this.polls.pollCount;
  }

  /** Whether the last full sync found the view out of date (what tells a silent event feed apart). */
  get lastPollChanged(): boolean {
    return this.polls.lastPollChanged;
  }

  /** `added` events whose tx had already left the node when we asked for it (not in the view). */
  get missedTxs(): number {
    return this.events.missedTxs;
  }
}
