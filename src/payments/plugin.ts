/**
 * The x402 v2 payments plugin (DESIGN §4), shaped like @fastify/rate-limit: options become one
 * params object at registration, each route's price is read once in `onRoute` from the route's
 * `config.payment` (set from the registry, `src/api/routes.ts`), storage sits behind
 * `ReplayStore`, and `onClose` frees what the plugin opened. A route without a price refuses to
 * start the service (`PAYMENT_ROUTE_UNPRICED`): nothing is served unpriced.
 *
 * Register it before the routes. Decorates:
 * - `request.paymentQuote` (null): a route whose price depends on the body (POST /v1/rpc) sets
 *   `{ priceUsd, description }` in a route-level `preValidation` hook; 0 = free. Left null, the
 *   table price applies.
 * - `request.paymentChargeable` (true): a route sets it false when its answer is not to be charged
 *   (a JSON-RPC request with a failed priced call); the claim is then given back.
 * - `app.payments`: settlement mode, networks, payTo, capabilities, ledger counts, `reconcile()`.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { getAddress } from 'viem';
import { assertProductionPayments, type Config } from '../config.js';
import { Errors } from '../errors.js';
import { AnswerCache } from './answerCache.js';
import { paymentsCapabilities, type PaymentsCapabilities, type SettlementMode } from './capabilities.js';
import { requirementsBuilder } from './challenge.js';
import { ChainAuthorizations, parseChainRpcUrls } from './chainAuthorizations.js';
import { openPaymentsDb } from './db.js';
import { FacilitatorClient, type BreakerState, type FacilitatorHealth } from './facilitator.js';
import { PaymentGate, type GateStep, type RouteCtx } from './gate.js';
import { KeptAnswers } from './keptAnswers.js';
import { Ledger, type LedgerStatus } from './ledger.js';
import type { PaymentLimits } from './limits.js';
import { resolveNetworks, type PaymentNetwork } from './networks.js';
import type { PaymentQuote } from './prices.js';
import { Settler, type ReconcileResult } from './settlement.js';
import { MemoryReplayStore } from './store/memoryReplayStore.js';
import { RedisReplayStore } from './store/redisReplayStore.js';
import type { ReplayStore } from './store/replayStore.js';
import { SharedPayments } from './store/sharedPayments.js';
import { StreamTickets } from './streamTickets.js';
import { SqliteReplayStore } from './store/sqliteReplayStore.js';
import { createVerifier } from './verify.js';
import { WriteQueue } from './writeQueue.js';

/** payTo in demo mode (no PAY_TO): recognisably not a wallet; nothing is ever settled to it. */
export const DEMO_PAY_TO = '0x0000000000000000000000000000000000000402';

export interface PaymentsPluginOptions {
  config: Config;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Replaces the store chosen from the config (`memory` for tests and benchmarks). */
  store?: ReplayStore | 'memory';
  /** The rate limits the gate reports verified and refused payments to (src/api/limits/); none in tests of the gate alone. */
  limits?: PaymentLimits | null;
  /**
   * Test seam (the crash tests' fixture, test/payments/fixtures/paidServer.ts): awaited by the gate
   * at each step; a test resolves it, or never does to kill the process there.
   */
  pause?: (step: GateStep) => Promise<void>;
  /** Overrides X402_RECONCILE_INTERVAL_SEC (tests). */
  reconcileIntervalMs?: number;
}

export interface PaymentsInfo {
  enabled: boolean;
  settlement: SettlementMode;
  payTo: string;
  networks: readonly PaymentNetwork[];
  store: ReplayStore['kind'];
  facilitator: { configured: boolean } & FacilitatorHealth;
  /** For the capabilities route: `payment` and `customerAuth` (= limits.customerAuth). */
  capabilities: PaymentsCapabilities;
  /** For /health: one line that says whether money moves. */
  settlementNote: string;
  ledgerCounts(): Record<LedgerStatus, number>;
  /** Retries pending settlements now (also runs at start and on a timer). */
  reconcile(): Promise<ReconcileResult>;
  /** Purges expired replay-store records and old ledger rows now (also on a timer). */
  purge(): Promise<void>;
  /** The `payments` section of /health (no secrets: the facilitator is named by host only). */
  health(): PaymentsHealth;
  /** Stream tickets, in the replay store (shared by replicas with REDIS_URL). */
  tickets: StreamTickets;
}

export interface PaymentsHealth {
  enabled: boolean;
  settlement: SettlementMode;
  note: string;
  payTo: string;
  networks: string[];
  replayStore: ReplayStore['kind'];
  facilitator: {
    configured: boolean;
    reachable: boolean | null;
    checkedAt: string | null;
    /** `open`: repeated failures; new paid requests are answered 503 at once. */
    breaker: BreakerState | null;
    retryAfterSeconds: number | null;
  };
  ledger: Record<LedgerStatus, number>;
  /** Answers kept in memory for retries of paid requests. */
  answerCache: { entries: number; bytes: number; maxBytes: number };
  /** The last scheduled purge of the replay store and the ledger. */
  purge: { lastAt: string | null; removed: number };
  /** At start: abandoned pending records released (their payers may retry without waiting). */
  recovery: { releasedPaymentIds: number; releasedUnansweredRows: number };
}

/** A route's price, in its `config.payment`: USD, or `per_call` when the route quotes each request (JSON-RPC). */
export interface RoutePayment {
  /** `"<METHOD> <path>"`, recorded in the ledger. */
  key: string;
  priceUsd: number | 'per_call';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    payment?: RoutePayment;
  }
  interface FastifyRequest {
    paymentQuote: PaymentQuote | null;
    paymentChargeable: boolean;
  }
  interface FastifyInstance {
    payments: PaymentsInfo;
  }
}

const kGateHook = Symbol('x402-gate');

const payments: FastifyPluginAsync<PaymentsPluginOptions> = async (app, opts) => {
  const { config } = opts;
  // Whoever wires the plugin: production never runs a mode that takes payments without settling them.
  assertProductionPayments(config);
  const now = opts.now ?? Date.now;
  const networks = resolveNetworks(config);
  const payTo = getAddress(config.PAY_TO ?? DEMO_PAY_TO);
  const mode: SettlementMode = config.PAY_TO === undefined ? 'demo' : config.X402_FACILITATOR_URL ? 'facilitator' : 'local-unsettled';
  const enabled = config.PAYMENTS_ENABLED;

  const db = openPaymentsDb(config.DATA_DIR);
  // One group-commit queue for the ledger and the SQLite store: their writes share transactions.
  const writes = new WriteQueue(db);
  const ledger = new Ledger(db, now, writes);
  let store: ReplayStore;
  // At start (one process per DATA_DIR), nothing of this process is in flight yet: pending
  // payment-identifier records and unanswered pending rows were left by a killed process.
  const recovery = { releasedPaymentIds: 0, releasedUnansweredRows: ledger.releaseUnanswered() };
  if (opts.store === 'memory') store = new MemoryReplayStore(now);
  else if (opts.store) store = opts.store;
  else if (config.REDIS_URL) store = await RedisReplayStore.connect(config.REDIS_URL, 'x402:', now);
  else {
    const sqlite = new SqliteReplayStore(db, now, writes);
    recovery.releasedPaymentIds = sqlite.releaseAbandoned();
    store = sqlite;
  }
  // Several replicas: payment states and retry answers live in Redis beside the claims.
  const budgetMs = config.X402_FACILITATOR_VERIFY_TIMEOUT_MS + config.X402_FACILITATOR_SETTLE_TIMEOUT_MS;
  // A crashed replica's payment id (or shared claim) is free again after the facilitator budget plus a minute for the handler.
  const pendingLeaseMs = budgetMs + 60_000;
  const shared =
    store instanceof RedisReplayStore ? new SharedPayments(store.redis, store.prefix, now, config.X402_ANSWER_CACHE_ENTRY_BYTES, pendingLeaseMs) : null;
  await shared?.start();
  if (recovery.releasedPaymentIds + recovery.releasedUnansweredRows > 0) app.log.warn(recovery, 'payments: released what a killed process left pending');
  const facilitator =
    mode === 'facilitator' && config.X402_FACILITATOR_URL
      ? new FacilitatorClient({
          url: config.X402_FACILITATOR_URL,
          verifyTimeoutMs: config.X402_FACILITATOR_VERIFY_TIMEOUT_MS,
          settleTimeoutMs: config.X402_FACILITATOR_SETTLE_TIMEOUT_MS,
          authorization: config.X402_FACILITATOR_AUTH,
          breakerFailures: config.X402_BREAKER_FAILURES,
          breakerCooldownMs: config.X402_BREAKER_COOLDOWN_SEC * 1000,
        })
      : null;
  // After a crash, a refused re-settle is judged by the chain (X402_CHAIN_RPC_URLS).
  const chainUrls = parseChainRpcUrls(config.X402_CHAIN_RPC_URLS);
  const chain = chainUrls.size > 0 ? new ChainAuthorizations(chainUrls, config.X402_FACILITATOR_SETTLE_TIMEOUT_MS, app.log) : null;
  const settler = facilitator ? new Settler(ledger, facilitator, app.log, chain) : null;
  // Without Redis, kept answers also go to the data directory: they outlive a crash.
  const answers = new AnswerCache(config.X402_ANSWER_CACHE_BYTES, config.X402_ANSWER_CACHE_ENTRY_BYTES, shared ? null : new KeptAnswers(db, writes));

  const gate = new PaymentGate({
    mode,
    builder: requirementsBuilder(networks, payTo, config.X402_MAX_TIMEOUT_SECONDS),
    verifier: createVerifier(networks),
    store,
    ledger,
    answers,
    shared,
    facilitator,
    settler,
    verifyWithFacilitator: config.X402_FACILITATOR_VERIFY,
    limits: opts.limits ?? null,
    pendingLeaseMs,
    inProgressRetrySeconds: Math.max(1, Math.ceil(config.X402_FACILITATOR_SETTLE_TIMEOUT_MS / 1000)),
    publicBaseUrl: config.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    now,
    log: app.log,
    ...(opts.pause ? { pause: opts.pause } : {}),
  });

  app.decorateRequest('paymentQuote', null);
  app.decorateRequest('paymentChargeable', true);
  const settlementNote =
    mode === 'facilitator'
      ? `payments are settled through the facilitator at ${config.X402_FACILITATOR_URL ? new URL(config.X402_FACILITATOR_URL).host : '(unset)'}`
      : mode === 'local-unsettled'
        ? 'settlement is OFF: payments are verified locally and recorded unsettled (no facilitator configured)'
        : 'demo mode: no PAY_TO configured; payments are verified but never settled';
  const info: PaymentsInfo = {
    enabled,
    settlement: mode,
    payTo,
    networks,
    store: store.kind,
    tickets: new StreamTickets(store, now),
    facilitator: {
      configured: facilitator !== null,
      get reachable() {
        return facilitator?.health.reachable ?? null;
      },
      get checkedAt() {
        return facilitator?.health.checkedAt ?? null;
      },
    },
    capabilities: paymentsCapabilities(mode, payTo, networks),
    settlementNote,
    ledgerCounts: () => ledger.countByStatus(),
    reconcile: () => (settler ? settler.reconcile() : Promise.resolve({ attempted: 0, settled: 0, failed: 0, pending: 0 })),
    purge: () => purge(),
    health: () => ({
      enabled,
      settlement: mode,
      note: settlementNote,
      payTo,
      networks: networks.map((n) => n.network),
      replayStore: store.kind,
      facilitator: {
        configured: facilitator !== null,
        reachable: facilitator?.health.reachable ?? null,
        checkedAt: facilitator?.health.checkedAt ? new Date(facilitator.health.checkedAt).toISOString() : null,
        breaker: facilitator?.breakerState ?? null,
        retryAfterSeconds: facilitator ? facilitator.retryAfterSeconds() : null,
      },
      ledger: ledger.countByStatus(),
      answerCache: { entries: answers.size, bytes: answers.bytes, maxBytes: config.X402_ANSWER_CACHE_BYTES },
      purge: { lastAt: lastPurge.at === null ? null : new Date(lastPurge.at).toISOString(), removed: lastPurge.removed },
      recovery,
    }),
  };
  app.decorate('payments', info);

  app.addHook('onRoute', (route: RouteOptions) => {
    const pricing = route.config?.payment;
    // Every route declares its price (free ones as 0), so none is served unpriced by mistake.
    if (!pricing) throw new Errors.PAYMENT_ROUTE_UNPRICED(`${String(route.method)} ${route.url}`);
    if (!enabled || pricing.priceUsd === 0) return;
    const ctx: RouteCtx = { key: pricing.key, priceUsd: pricing.priceUsd === 'per_call' ? null : pricing.priceUsd };
    route.preHandler = withHook(route.preHandler, (req: FastifyRequest, reply: FastifyReply) => gate.preHandler(req, reply, ctx), 'first');
    route.onSend = withHook(route.onSend, (req: FastifyRequest, reply: FastifyReply, payload: unknown) => gate.onSend(req, reply, payload), 'last');
    route.onResponse = withHook(route.onResponse, (req: FastifyRequest) => gate.onResponse(req), 'last');
  });

  const lastPurge: { at: number | null; removed: number } = { at: null, removed: 0 };
  const purge = async () => {
    const t = now();
    const removed =
      (await store.purgeExpired()) + (await answers.purge(t)) + ledger.purge(t - config.X402_LEDGER_RETENTION_DAYS * 86_400_000, Math.floor(t / 1000));
    lastPurge.at = t;
    lastPurge.removed = removed;
    if (removed > 0) app.log.info({ removed }, 'payments: purged expired claims, records and old ledger rows');
  };
  let purgeTimer: NodeJS.Timeout | null = null;
  app.addHook('onReady', async () => {
    if (settler && facilitator) {
      void facilitator.probe();
      // The timer leaves alone rows younger than one settle timeout: their own request is settling them.
      settler.start(opts.reconcileIntervalMs ?? config.X402_RECONCILE_INTERVAL_SEC * 1000, 2 * config.X402_FACILITATOR_SETTLE_TIMEOUT_MS);
    }
    purgeTimer = setInterval(() => {
      purge().catch((err: unknown) => app.log.error({ err }, 'payments: scheduled purge failed'));
    }, config.X402_PURGE_INTERVAL_SEC * 1000);
    purgeTimer.unref();
  });

  app.addHook('onClose', async () => {
    if (purgeTimer) clearInterval(purgeTimer);
    await settler?.stop();
    facilitator?.shutdown();
    await shared?.stop();
    await store.close();
    writes.flush();
    db.close();
  });
};

/** Adds `hook` to a route's hooks (function, array or none) once, first or last. */
function withHook<T extends (...args: never[]) => unknown>(existing: unknown, hook: T, where: 'first' | 'last'): T[] {
  const list = (Array.isArray(existing) ? existing : existing ? [existing] : []) as T[];
  // HEAD routes are copied from their GET with our hooks already on them.
  if (list.some((h) => (h as unknown as Record<symbol, boolean>)[kGateHook])) return list;
  Object.defineProperty(hook, kGateHook, { value: true });
  return where === 'first' ? [hook, ...list] : [...list, hook];
}

/** `await app.register(paymentsPlugin, { config })`, before the routes. */
export const paymentsPlugin = fp(payments, { fastify: '5.x', name: 'payments' });
export default paymentsPlugin;
