/**
 * The dashboard's free read-only feed: aggregate telemetry only (never the paid per-transaction
 * stream). Keeps short histories the services do not (fees of the last cycles, recent replacements
 * and blocks) by listening to the mempool view and the optimizer, and pushes a snapshot to every
 * open feed when either changes, at most once per `minIntervalMs`.
 *
 * While the node is known down the snapshot keeps the last known values (it is free: nothing is
 * sold from them) and says so: `node.down` with `node.lastKnownAt`, when the view last matched the
 * node. The feed looks at the node's status every `statusCheckMs` and pushes when it flips, since
 * a lost node sends no mempool change that would.
 */
import { PassThrough, type Readable } from 'node:stream';
import { btcPerKvbToSatVb } from '../../bitcoin/units.js';
import { feeHistogram } from '../../fees/feeHistogram.js';
import type { FeesService } from '../../fees/plugin.js';
import type { MempoolDiff } from '../../mempool/mirror.js';
import type { MempoolService } from '../../mempool/plugin.js';
import type { OptimizerHandle } from '../../optimizer/plugin.js';
import type { ProjectedBlock } from '../../optimizer/binding/native.js';
import type { TemplateCache } from '../../optimizer/cache/templateCache.js';
import { round } from '../../util/round.js';

const CYCLES_KEPT = 30;
const EVENTS_KEPT = 20;
const HEARTBEAT_MS = 15_000;

export interface CycleFees {
  cycle: number;
  /** `full` (from scratch, with the node's template) or `incremental` (from the mempool's changes). */
  kind: string;
  at: number;
  /** The native optimizer's own time for this publish, ms (full and incremental alike). */
  nativeMs: number;
  txCount: number;
  optimizedFeeSat: number;
  baselineFeeSat: number;
  nativeV31FeeSat: number;
  upperBoundFeeSat: number;
}

export interface DashboardSnapshot {
  at: number;
  node: {
    kind: string;
    height: number | null;
    tip: string | null;
    lastPollAt: number | null;
    lastError: string | null;
    /** The node is known unreachable: every value below is the last known one, as of `lastKnownAt`. */
    down: boolean;
    /** When the values shown last matched the node (its last applied event or full sync), ms since the epoch. */
    lastKnownAt: number | null;
    /** Why the node is down (null while it answers). */
    downReason: string | null;
  };
  mempool: { ready: boolean; count: number; vsize: number; feeSat: number; backlogBlocks: number; minFeeRateSatVb: number | null };
  histogram: Array<{ minFeeRateSatVb: number; maxFeeRateSatVb: number | null; vsize: number; count: number }>;
  optimizer: {
    enabled: boolean;
    cycleCount: number;
    phase: string | null;
    lastStatus: string | null;
    lastError: string | null;
    latest: (CycleFees & { gapToBoundPct: number; baselineSource: string; height: number }) | null;
  };
  projectedBlocks: Array<ProjectedBlock & { block: number }>;
  cycles: CycleFees[];
  phases: Array<{ cycle: number; status: string; durationMs: number; phasesMs: Record<string, number | null> }>;
  replacements: Array<{ at: number; txid: string; replacedBy: string | null }>;
  blocks: Array<{ at: number; height: number; hash: string; txCount: number }>;
  /** The last block audits, oldest first: each block's fees next to our template's and the baseline's for its parent (null: none for that parent). */
  audits: Array<{ height: number; hash: string; blockFeeSat: number; optimizedFeeSat: number | null; baselineFeeSat: number | null; matchRate: number | null }>;
  clients: number;
}

export interface DashboardSources {
  nodeKind: string;
  mempool: MempoolService;
  fees: FeesService;
  optimizer: OptimizerHandle;
  /** The node's reachability now (`nodeStatus` of freshness.ts, which imports this file through define.ts). */
  nodeStatus(): { down: boolean; error: string | null };
  now(): number;
  minIntervalMs: number;
  /** How often the node's status is looked at while feeds are open. Default 1000. */
  statusCheckMs?: number;
}

function cycleFees(cache: TemplateCache): CycleFees {
  return {
    cycle: cache.cycle,
    kind: cache.kind,
    at: cache.cachedAt,
    nativeMs: round(cache.nativeTimingsMs.total, 2),
    txCount: cache.optimized.txCount,
    optimizedFeeSat: cache.optimized.feeSat,
    baselineFeeSat: cache.baseline.feeSat,
    nativeV31FeeSat: cache.nativeV31.feeSat,
    upperBoundFeeSat: round(cache.upperBound.feeSat, 1),
  };
}

const keep = <T>(list: T[], item: T, max: number) => {
  list.unshift(item);
  if (list.length > max) list.length = max;
};

export class DashboardFeed {
  private readonly cycles: CycleFees[] = [];
  private readonly replacements: DashboardSnapshot['replacements'] = [];
  private readonly blocks: DashboardSnapshot['blocks'] = [];
  private readonly streams = new Set<PassThrough>();
  private pushTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  /** `node.down` of the last snapshot sent. */
  private sentDown = false;
  private lastPush = 0;

  constructor(private readonly sources: DashboardSources) {
    const cache = sources.optimizer.service.cache;
    if (cache) this.cycles.push(cycleFees(cache));
    sources.optimizer.service.on('published', this.onPublished);
    sources.mempool.mirror.on('diff', this.onDiff);
    sources.optimizer.audits.on('audit', this.onAudit);
  }

  private readonly onAudit = (): void => this.schedulePush();

  private readonly onPublished = (cache: TemplateCache): void => {
    if (this.cycles[0]?.cycle !== cache.cycle) keep(this.cycles, cycleFees(cache), CYCLES_KEPT);
    this.schedulePush();
  };

  private readonly onDiff = (diff: MempoolDiff): void => {
    for (const removed of diff.removed) {
      if (removed.reason === 'replaced') keep(this.replacements, { at: diff.at, txid: removed.tx.txid, replacedBy: removed.replacedBy ?? null }, EVENTS_KEPT);
    }
    for (const block of diff.blocks) keep(this.blocks, { at: diff.at, height: block.height, hash: block.hash, txCount: block.txCount }, EVENTS_KEPT);
    this.schedulePush();
  };

  snapshot(): DashboardSnapshot {
    const { mirror } = this.sources.mempool;
    const { service, enabled } = this.sources.optimizer;
    const cache = service.cache;
    const sample = mirror.ready ? this.sources.fees.sample() : undefined;
    const latest = this.cycles[0];
    const status = this.sources.nodeStatus();
    return {
      at: this.sources.now(),
      node: {
        kind: this.sources.nodeKind,
        height: mirror.tipHeight ?? null,
        tip: mirror.tipHash ?? null,
        lastPollAt: mirror.lastPollAt ?? null,
        lastError: mirror.lastError,
        down: status.down,
        lastKnownAt: mirror.matchedNodeAt ?? null,
        downReason: status.down ? (status.error ?? 'no answer') : null,
      },
      mempool: {
        ready: mirror.ready,
        count: sample?.count ?? 0,
        vsize: sample?.vsize ?? 0,
        feeSat: sample?.feeSat ?? 0,
        backlogBlocks: round((sample?.vsize ?? 0) / 1_000_000, 2),
        minFeeRateSatVb: mirror.info ? round(btcPerKvbToSatVb(mirror.info.mempoolminfee), 3) : null,
      },
      histogram: sample
        ? feeHistogram(sample).map((b) => ({ minFeeRateSatVb: b.minFeeRateSatVb, maxFeeRateSatVb: b.maxFeeRateSatVb, vsize: b.vsize, count: b.count }))
        : [],
      optimizer: {
        enabled,
        cycleCount: service.cycleCount,
        phase: service.refreshInProgress ? service.phase : null,
        lastStatus: service.lastStatus,
        lastError: service.lastError,
        latest:
          cache && latest?.cycle === cache.cycle
            ? {
                ...latest,
                height: cache.height,
                baselineSource: cache.baseline.source,
                gapToBoundPct: latest.upperBoundFeeSat > 0 ? round(((latest.upperBoundFeeSat - latest.optimizedFeeSat) / latest.upperBoundFeeSat) * 100, 6) : 0,
              }
            : null,
      },
      projectedBlocks: (cache?.projectedBlocks ?? []).map((b, k) => ({ block: k + 1, ...b })),
      cycles: [...this.cycles].reverse(),
      phases: service.history.map((h) => ({ cycle: h.cycle, status: h.status, durationMs: h.durationMs, phasesMs: { ...h.phasesMs } })),
      replacements: [...this.replacements],
      blocks: [...this.blocks],
      audits: this.sources.optimizer.audits.audits
        .slice(0, CYCLES_KEPT)
        .reverse()
        .map((a) => ({
          height: a.height,
          hash: a.hash,
          blockFeeSat: a.block.feeSat,
          optimizedFeeSat: a.optimized?.feeSat ?? null,
          baselineFeeSat: a.baseline?.feeSat ?? null,
          matchRate: a.optimized ? round(a.optimized.matchRate, 4) : null,
        })),
      clients: this.streams.size,
    };
  }

  /** A new server-sent-events stream: a snapshot now and on every change; closed by the client or by `close()`. */
  open(): Readable {
    const stream = new PassThrough();
    this.streams.add(stream);
    stream.on('close', () => {
      this.streams.delete(stream);
      if (this.streams.size === 0) this.stopHeartbeat();
    });
    stream.write(`retry: 3000\n\n`);
    const snapshot = this.snapshot();
    this.sentDown = snapshot.node.down;
    this.write(stream, snapshot);
    this.heartbeat ??= setInterval(() => {
      for (const s of this.streams) s.write(': keep-alive\n\n');
    }, HEARTBEAT_MS).unref();
    this.statusTimer ??= setInterval(() => {
      if (this.sources.nodeStatus().down !== this.sentDown) this.schedulePush();
    }, this.sources.statusCheckMs ?? 1000).unref();
    return stream;
  }

  get clientCount(): number {
    return this.streams.size;
  }

  close(): void {
    this.sources.optimizer.service.off('published', this.onPublished);
    this.sources.mempool.mirror.off('diff', this.onDiff);
    this.sources.optimizer.audits.off('audit', this.onAudit);
    clearTimeout(this.pushTimer);
    this.stopHeartbeat();
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.statusTimer);
    this.heartbeat = undefined;
    this.statusTimer = undefined;
  }

  private write(stream: PassThrough, snapshot: DashboardSnapshot): void {
    stream.write(`event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`);
  }

  /** Coalesces bursts of events into one snapshot per `minIntervalMs`. */
  private schedulePush(): void {
    if (this.streams.size === 0 || this.pushTimer) return;
    const wait = Math.max(0, this.lastPush + this.sources.minIntervalMs - this.sources.now());
    this.pushTimer = setTimeout(() => {
      this.pushTimer = undefined;
      this.lastPush = this.sources.now();
      const snapshot = this.snapshot();
      this.sentDown = snapshot.node.down;
      for (const stream of this.streams) this.write(stream, snapshot);
    }, wait);
    this.pushTimer.unref();
  }
}
