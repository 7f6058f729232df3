/**
 * Keeps the mempool mirror current from node events (`MempoolEventSource`: Core's ZMQ `sequence`
 * topic or the simulated node's feed) instead of polling:
 *
 * - each `added` tx is fetched at once (entry and inputs), batched per turn of the event loop, so a
 *   version replaced a moment later is still read and its replacement recorded;
 * - events are applied in the node's order in batches of `coalesceMs`, one at a time with full syncs;
 * - a gap (lost messages, node restart) or a block off our tip triggers a full resync
 *   (`getrawmempool false true`), after which events already reflected are skipped by sequence;
 * - the mirror's scheduled sync keeps running as a safety net every `quietMs`; when it finds the view
 *   out of date while no event came for `quietMs`, the feed is taken as silent and the mirror polls
 *   every `MEMPOOL_POLL_MS` until events flow again (`mode`).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { MempoolEvent, MempoolEventSource } from './mempoolEvents.js';
import { HOLD_REMOVED_MS, type FetchedTx, type MempoolMirror } from './mirror.js';

export type MempoolMode = 'events' | 'polling';

export interface MempoolFollowerOptions {
  /** Silence after which a feed that missed changes is given up for polling; also the safety-sync period. */
  quietMs: number;
  /** Polling period while the feed is silent. */
  pollMs: number;
  /** How long events gather before a batch is applied. */
  coalesceMs?: number;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

export class MempoolFollower {
  mode: MempoolMode = 'events';
  gaps = 0;
  resyncs = 0;
  lastGap: string | null = null;
  lastEventAt: number | undefined;
  private pending: MempoolEvent[] = [];
  private toFetch: string[] = [];
  private fetchScheduled = false;
  private readonly fetches = new Map<string, Promise<Map<string, FetchedTx>>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly mirror: MempoolMirror,
    readonly source: MempoolEventSource,
    private readonly options: MempoolFollowerOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Subscribes to the source. The mirror's own first sync (its `start`) is the initial resync. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.source.start({ event: (e) => this.onEvent(e), gap: (reason) => this.onGap(reason) });
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.flushTimer);
    clearTimeout(this.releaseTimer);
    this.flushTimer = undefined;
    this.releaseTimer = undefined;
    this.pending = [];
    await this.source.stop();
  }

  /**
   * Delay before the mirror's next scheduled sync (its `interval` option), and the silence check
   * on the sync that just ran.
   */
  nextSyncDelay(): number {
    if (!this.running) return this.options.pollMs;
    const silent = this.lastEventAt === undefined || this.now() - this.lastEventAt >= this.options.quietMs;
    if (this.mode === 'events' && this.mirror.lastPollChanged && silent) {
      this.mode = 'polling';
      this.options.logger?.warn({ source: this.source.name }, 'mempool event feed is silent while the mempool changes: polling');
    }
    return this.mode === 'events' ? this.options.quietMs : this.options.pollMs;
  }

  private onEvent(event: MempoolEvent): void {
    if (!this.running) return;
    this.lastEventAt = this.now();
    if (this.mode === 'polling') {
      this.mode = 'events';
      this.options.logger?.info({ source: this.source.name }, 'mempool events flow again');
      this.requestResync();
    }
    this.pending.push(event);
    if (event.kind === 'added') {
      this.toFetch.push(event.txid);
      if (!this.fetchScheduled) {
        this.fetchScheduled = true;
        setImmediate(() => this.startFetch());
      }
    }
    this.flushTimer ??= setTimeout(() => this.flush(), this.options.coalesceMs ?? 10);
  }

  private onGap(reason: string): void {
    this.gaps += 1;
    this.lastGap = reason;
    this.options.logger?.warn({ reason, source: this.source.name }, 'mempool event gap: resynchronizing');
    // What was queued is covered by the resync's snapshot.
    this.pending = [];
    this.requestResync();
  }

  private requestResync(): void {
    this.resyncs += 1;
    void this.mirror.resync().catch(() => undefined);
  }

  private startFetch(): void {
    this.fetchScheduled = false;
    const txids = this.toFetch;
    this.toFetch = [];
    if (txids.length === 0) return;
    const fetched = this.mirror.fetchTxs(txids, this.source.rawTransaction?.bind(this.source)).catch((error: unknown) => {
      this.options.logger?.warn({ err: error }, 'mempool entries for events not fetched');
      return new Map<string, FetchedTx>();
    });
    for (const txid of txids) this.fetches.set(txid, fetched);
  }

  /** Removals no replacement explained are reported once their hold ends, also when no event follows. */
  private scheduleRelease(): void {
    if (this.releaseTimer) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = undefined;
      void this.mirror.exclusive(async () => this.mirror.releaseHeld());
      if (this.running) setImmediate(() => this.mirror.holding && this.scheduleRelease());
    }, HOLD_REMOVED_MS + 10);
  }

  /** Versions replaced before their fetch: rebuilt from the raw form the source kept, if it did. */
  private async rebuildGone(batch: readonly MempoolEvent[], fetched: Map<string, FetchedTx>): Promise<void> {
    const raws = new Map<string, string>();
    for (const e of batch) {
      if (e.kind !== 'added' || fetched.has(e.txid) || this.mirror.txs.has(e.txid)) continue;
      const raw = this.source.rawTransaction?.(e.txid);
      if (raw !== undefined) raws.set(e.txid, raw);
    }
    if (raws.size === 0) return;
    for (const [txid, tx] of await this.mirror.rebuildTxs(raws, this.now())) fetched.set(txid, tx);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.startFetch();
    const waits = new Set<Promise<Map<string, FetchedTx>>>();
    for (const e of batch) {
      if (e.kind !== 'added') continue;
      const wait = this.fetches.get(e.txid);
      this.fetches.delete(e.txid);
      if (wait) waits.add(wait);
    }
    void this.mirror
      .exclusive(async () => {
        // A batch is applied on a synced view only (the first sync may still be running or have failed).
        if (!this.mirror.ready) return;
        const fetched = new Map<string, FetchedTx>();
        for (const part of await Promise.all(waits)) for (const [txid, tx] of part) fetched.set(txid, tx);
        await this.rebuildGone(batch, fetched);
        if (!(await this.mirror.applyEvents(batch, fetched))) {
          this.lastGap = 'events do not extend the view';
          this.requestResync();
        }
        if (this.mirror.holding) this.scheduleRelease();
      })
      .catch((error: unknown) => {
        this.options.logger?.warn({ err: error }, 'mempool events not applied: resynchronizing');
        this.requestResync();
      });
  }
}
