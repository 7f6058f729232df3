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
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { getAddress, type Address } from 'viem';
import { assertProductionPayments, type Config } from '../config.js';
import { Errors } from '../errors.js';
import type { SettlementMode } from './capabilities.js';
import { requirementsBuilder } from './challenge.js';
import { ChainAuthorizations, parseChainRpcUrls } from './chainAuthorizations.js';
import { FacilitatorClient } from './facilitator.js';
import { PaymentGate, type GateStep } from './gate.js';
import type { RouteCtx } from './paidRequest.js';
import { paymentsInfo, type PaymentsInfo } from './info.js';
import type { PaymentLimits } from './limits.js';
import { resolveNetworks, type PaymentNetwork } from './networks.js';
import type { PaymentQuote } from './prices.js';
import { Settler } from './settlement.js';
import { openPaymentStorage, type PaymentStorage } from './storage.js';
import type { ReplayStore } from './store/replayStore.js';
import { createVerifier } from './verify.js';

export type { PaymentsHealth, PaymentsInfo } from './info.js';

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
  /**
   * The replica's connection to REDIS_URL, shared with the rate limits (src/app.ts): the payer's
   * budget and the claim leave in one write. Closed by its owner; without it, the plugin opens its own.
   */
  redis?: Redis;
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

/** Who is paid and how: the payee, the networks offered, and whether money moves. */
interface Payee {
  mode: SettlementMode;
  payTo: Address;
  networks: readonly PaymentNetwork[];
}

interface Settling {
  facilitator: FacilitatorClient | null;
  settler: Settler | null;
}

const payments: FastifyPluginAsync<PaymentsPluginOptions> = async (app, opts) => {
  const { config } = opts;
  // Whoever wires the plugin: production never runs a mode that takes payments without settling them.
  assertProductionPayments(config);
  const now = opts.now ?? Date.now;
  const payee = payeeOf(config);
  const storage = await openPaymentStorage(config, opts.store, now, app.log, opts.redis);
  const { recovery } = storage;
  if (recovery.releasedPaymentIds + recovery.releasedUnansweredRows > 0) app.log.warn(recovery, 'payments: released what a killed process left pending');
  const settling = openSettling(config, payee.mode, storage, app.log);
  const gate = gateOf(config, opts, payee, storage, settling, now, app.log);

  app.decorateRequest('paymentQuote', null);
  app.decorateRequest('paymentChargeable', true);
  const purge = purger(config, storage, now, app.log);
  app.decorate('payments', paymentsInfo({ config, ...payee, storage, ...settling, now, purge: purge.run, lastPurge: purge.last }));
  app.addHook('onRoute', (route: RouteOptions) => gatePaidRoute(route, gate, config.PAYMENTS_ENABLED));
  scheduleAndClose(app, config, opts, settling, storage, purge.run);
};

function payeeOf(config: Config): Payee {
  const mode: SettlementMode = config.PAY_TO === undefined ? 'demo' : config.X402_FACILITATOR_URL ? 'facilitator' : 'local-unsettled';
  return { mode, payTo: getAddress(config.PAY_TO ?? DEMO_PAY_TO), networks: resolveNetworks(config) };
}

/** The facilitator (facilitator mode only) and the settler; after a crash a refused re-settle is judged by the chain. */
function openSettling(config: Config, mode: SettlementMode, storage: PaymentStorage, log: FastifyBaseLogger): Settling {
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
  const chainUrls = parseChainRpcUrls(config.X402_CHAIN_RPC_URLS);
  const chain = chainUrls.size > 0 ? new ChainAuthorizations(chainUrls, config.X402_FACILITATOR_SETTLE_TIMEOUT_MS, log) : null;
  return { facilitator, settler: facilitator ? new Settler(storage.ledger, facilitator, log, chain) : null };
}

function gateOf(
  config: Config,
  opts: PaymentsPluginOptions,
  payee: Payee,
  storage: PaymentStorage,
  settling: Settling,
  now: () => number,
  log: FastifyBaseLogger,
): PaymentGate {
  return new PaymentGate({
    mode: payee.mode,
    builder: requirementsBuilder(payee.networks, payee.payTo, config.X402_MAX_TIMEOUT_SECONDS),
    verifier: createVerifier(payee.networks),
    state: storage.state,
    ...settling,
    verifyWithFacilitator: config.X402_FACILITATOR_VERIFY,
    limits: opts.limits ?? null,
    inProgressRetrySeconds: Math.max(1, Math.ceil(config.X402_FACILITATOR_SETTLE_TIMEOUT_MS / 1000)),
    publicBaseUrl: config.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    now,
    log,
    ...(opts.pause ? { pause: opts.pause } : {}),
  });
}

/** Every route declares its price (free ones as 0), so none is served unpriced by mistake; paid ones get the gate. */
function gatePaidRoute(route: RouteOptions, gate: PaymentGate, enabled: boolean): void {
  const pricing = route.config?.payment;
  if (!pricing) throw new Errors.PAYMENT_ROUTE_UNPRICED(`${String(route.method)} ${route.url}`);
  if (!enabled || pricing.priceUsd === 0) return;
  const ctx: RouteCtx = { key: pricing.key, priceUsd: pricing.priceUsd === 'per_call' ? null : pricing.priceUsd };
  route.preHandler = withHook(route.preHandler, (req: FastifyRequest, reply: FastifyReply) => gate.preHandler(req, reply, ctx), 'first');
  route.onSend = withHook(route.onSend, (req: FastifyRequest, reply: FastifyReply, payload: unknown) => gate.onSend(req, reply, payload), 'last');
  route.onResponse = withHook(route.onResponse, (req: FastifyRequest) => gate.onResponse(req), 'last');
}

/** The scheduled purge of expired claims, records, kept answers and old ledger rows. */
function purger(config: Config, storage: PaymentStorage, now: () => number, log: FastifyBaseLogger) {
  const last: { at: number | null; removed: number } = { at: null, removed: 0 };
  const run = async () => {
    const t = now();
    const removed =
      (await storage.store.purgeExpired()) +
      (await storage.answers.purge(t)) +
      storage.ledger.purge(t - config.X402_LEDGER_RETENTION_DAYS * 86_400_000, Math.floor(t / 1000));
    last.at = t;
    last.removed = removed;
    if (removed > 0) log.info({ removed }, 'payments: purged expired claims, records and old ledger rows');
  };
  return { run, last: () => last };
}

/** Timers start when the app is ready (reconciler, purge) and everything opened is freed on close. */
function scheduleAndClose(
  app: FastifyInstance,
  config: Config,
  opts: PaymentsPluginOptions,
  { facilitator, settler }: Settling,
  storage: PaymentStorage,
  purge: () => Promise<void>,
): void {
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
    await storage.close();
  });
}

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
