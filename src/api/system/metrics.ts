/**
 * `/metrics` in Prometheus text format (prom-client): requests by route and status with latency
 * histograms, payments by outcome, optimizer cycles and their phase durations, the worker pool's
 * queue, the mempool view and the dashboard's live clients, plus Node's process metrics. One
 * prom-client registry per app (several apps may live in one process, as in the tests).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MempoolService } from '../../mempool/plugin.js';
import type { CycleRecord } from '../../optimizer/optimizerService.js';
import type { OptimizerHandle } from '../../optimizer/plugin.js';

/** What a paid request ended as, read from the answer the gate produced. */
export type PaymentOutcome = 'challenged' | 'refused' | 'paid' | 'replayed' | 'not_charged' | 'in_progress' | 'unavailable' | 'error';

export function paymentOutcome(status: number, headers: Record<string, unknown>, carriedPayment: boolean): PaymentOutcome | null {
  if (status === 402) return carriedPayment ? 'refused' : 'challenged';
  if (!carriedPayment) return null;
  if (headers['x-payment-charged'] === 'false') return 'not_charged';
  if (headers['x-payment-idempotent-replay'] === 'true') return 'replayed';
  if (headers['payment-response'] !== undefined) return 'paid';
  if (status === 409) return 'in_progress';
  if (status === 503) return 'unavailable';
  // A payment that was malformed, replayed, for another request or unverifiable: nothing charged.
  if (status >= 400 && status < 500) return 'refused';
  return 'error';
}

export interface MetricsSources {
  mempool: MempoolService;
  optimizer: OptimizerHandle;
  /** Open live connections by kind: `dashboard` feeds, paid `mempool` streams. */
  streamClients(): Record<'dashboard' | 'mempool', number>;
  /** Commits of the payments database, the writes they held and the WAL syncs, since the start (group commit). */
  ledgerCommits(): { commits: number; writes: number; syncs: number };
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly payments: Counter<'outcome'>;
  private readonly cycles: Counter<'status'>;
  private readonly phases: Histogram<'phase'>;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to answer, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.payments = new Counter({
      name: 'payments_total',
      help: 'Requests that carried or were asked for an x402 payment, by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.cycles = new Counter({ name: 'optimizer_cycles_total', help: 'Optimizer cycles ended, by status', labelNames: ['status'], registers });
    this.phases = new Histogram({
      name: 'optimizer_cycle_phase_seconds',
      help: 'Duration of each optimizer cycle phase',
      labelNames: ['phase'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 240],
      registers,
    });
    const { mirror } = sources.mempool;
    const { service } = sources.optimizer;
    new Gauge({ name: 'mempool_transactions', help: 'Transactions in the mempool view', registers, collect: gaugeOf(() => mirror.txs.size) });
    new Gauge({
      name: 'mempool_ready',
      help: '1 when the mempool view has been read from the node',
      registers,
      collect: gaugeOf(() => (mirror.ready ? 1 : 0)),
    });
    new Gauge({
      name: 'optimizer_pool_queue_depth',
      help: 'Optimizer tasks waiting for a worker thread',
      registers,
      collect: gaugeOf(() => service.poolQueueDepth),
    });
    new Gauge({
      name: 'optimizer_cache_age_seconds',
      help: 'Age of the cached optimized template (NaN before the first)',
      registers,
      collect: gaugeOf(() => (service.cache ? (Date.now() - service.cache.cachedAt) / 1000 : Number.NaN)),
    });
    new Gauge({
      name: 'optimizer_role',
      help: 'This replica in the optimizer lead: 1 on its role (single: no Redis; leader: runs the cycles; follower: serves the leader cache)',
      labelNames: ['role'],
      registers,
      collect() {
        for (const role of ['single', 'leader', 'follower'] as const) this.set({ role }, sources.optimizer.lease.role === role ? 1 : 0);
      },
    });
    new Gauge({
      name: 'stream_clients',
      help: 'Open live connections: dashboard feeds and paid mempool streams',
      labelNames: ['kind'],
      registers,
      collect() {
        for (const [kind, count] of Object.entries(sources.streamClients())) this.set({ kind }, count);
      },
    });
    new Gauge({
      name: 'payments_db_commits',
      help: 'Commits of the payments database since the start (ledger rows, settlement outcomes, claims: several per commit under load)',
      registers,
      collect: gaugeOf(() => sources.ledgerCommits().commits),
    });
    new Gauge({
      name: 'payments_db_commit_writes',
      help: 'Writes held by those commits (divided by payments_db_commits: the group commit batch size)',
      registers,
      collect: gaugeOf(() => sources.ledgerCommits().writes),
    });
    new Gauge({
      name: 'payments_db_syncs',
      help: 'WAL fsyncs of the payments database since the start, off the event loop (a durable write is answered after the one following its commit)',
      registers,
      collect: gaugeOf(() => sources.ledgerCommits().syncs),
    });
    service.on('cycle', this.onCycle);
  }

  private readonly onCycle = (record: CycleRecord): void => {
    this.cycles.inc({ status: record.status });
    for (const [phase, ms] of Object.entries(record.phasesMs)) if (ms !== null) this.phases.observe({ phase }, ms / 1000);
  };

  /** fastify `onResponse` hook. */
  readonly onResponse = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    this.requests.inc(labels);
    this.latency.observe(labels, reply.elapsedTime / 1000);
    const outcome = paymentOutcome(reply.statusCode, reply.getHeaders(), request.headers['payment-signature'] !== undefined);
    if (outcome) this.payments.inc({ outcome });
  };

  render(): Promise<string> {
    return this.registry.metrics();
  }

  close(): void {
    this.sources.optimizer.service.off('cycle', this.onCycle);
  }
}

function gaugeOf(read: () => number) {
  return function (this: Gauge) {
    this.set(read());
  };
}
