/**
 * Rate limits per client, designed so that a payer is never locked out of paying and nobody skips
 * them (issues 21.1, 22.3). Three budgets per window (RATE_LIMIT_WINDOW_SEC):
 *
 * - **unpaid** (RATE_LIMIT_MAX per client address): free routes, paid routes asked without a
 *   payment, and requests whose payment header is malformed or fails verification. Past it, 429.
 * - **challenge** (RATE_LIMIT_CHALLENGE_MAX per client address): past the unpaid budget, a paid
 *   route asked without a payment still gets its 402 challenge (no handler, no node work), so a
 *   busy client behind one address can always learn how to pay; only past this allowance too is it
 *   429.
 * - **paid** (RATE_LIMIT_PAID_MAX per payer address, after the gate verified the payment locally):
 *   a verified payment is never counted against the unpaid budget.
 *
 * A request carrying a well-formed payment passes `onRequest` uncounted; the payment gate then
 * reports the verdict (`PaymentLimits`), and a request that reached neither verdict (a 400 before
 * the gate, a free JSON-RPC call) is counted as unpaid. /health and /metrics are never counted.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { Errors } from '../../errors.js';
import { decodePaymentHeaderOf } from '../../payments/decode.js';
import type { PaymentLimits } from '../../payments/limits.js';
import { Budget } from './budget.js';

/** Load-balancer and monitor checks: several replicas share the counters, so these would exceed any per-client limit. */
const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/health', '/metrics']);

/**
 * Counted by the route itself once its body is read (`spendUnpaid`): an MCP message that calls a
 * tool is counted as the HTTP request the tool call is injected as (paid or not, by the same rules),
 * so a payer calling a priced tool is never refused by the unpaid budget; any other MCP message is
 * unpaid.
 */
const SELF_COUNTED_PATHS: ReadonlySet<string> = new Set(['/mcp']);

/**
 * Where a request stands: `deferred` carries a payment the gate has not judged yet; `over` was let
 * through on the challenge allowance (only a 402 may answer it); `counted` is settled.
 */
type Standing = 'deferred' | 'over' | 'counted';

export type RateLimitConfig = Pick<
  Config,
  'RATE_LIMIT_MAX' | 'RATE_LIMIT_WINDOW_SEC' | 'RATE_LIMIT_CHALLENGE_MAX' | 'RATE_LIMIT_PAID_MAX' | 'PAYMENTS_ENABLED'
>;

export class RateLimits implements PaymentLimits {
  private readonly unpaid: Budget;
  private readonly challenge: Budget;
  private readonly paid: Budget | null;
  private readonly standing = new WeakMap<FastifyRequest, Standing>();

  constructor(
    private readonly config: RateLimitConfig,
    redis: Redis | undefined,
    log: FastifyBaseLogger,
  ) {
    const windowSec = config.RATE_LIMIT_WINDOW_SEC;
    this.unpaid = new Budget({ name: 'unpaid', max: config.RATE_LIMIT_MAX, windowSec, redis, log });
    this.challenge = new Budget({ name: 'challenge', max: config.RATE_LIMIT_CHALLENGE_MAX, windowSec, redis, log });
    this.paid = config.RATE_LIMIT_PAID_MAX > 0 ? new Budget({ name: 'paid', max: config.RATE_LIMIT_PAID_MAX, windowSec, redis, log }) : null;
  }

  /** Before the body is read: counts what is unpaid, lets a payment through to the gate. */
  readonly onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const path = request.routeOptions.url ?? '';
    if (UNLIMITED_PATHS.has(path) || SELF_COUNTED_PATHS.has(path)) return;
    const paidRoute = this.paidRoute(request);
    if (paidRoute && carriesPayment(request)) {
      this.standing.set(request, 'deferred');
      return;
    }
    this.standing.set(request, 'counted');
    const spent = await this.unpaid.spend(request.ip);
    if (spent.ok) return;
    // Without a payment on a paid route: the challenge is what it needs to pay.
    if (paidRoute && request.headers['payment-signature'] === undefined) {
      const challenge = await this.challenge.spend(request.ip);
      if (challenge.ok) {
        this.standing.set(request, 'over');
        return;
      }
    }
    throw limited(reply, spent.retryAfterSeconds);
  };

  /**
   * After the body is read and priced (JSON-RPC quotes per call), before the gate: a call that
   * turned out free is unpaid whatever header it carries.
   */
  readonly preHandler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.paymentQuote?.priceUsd !== 0) return;
    const standing = this.standing.get(request);
    if (standing === 'over') throw limited(reply, this.config.RATE_LIMIT_WINDOW_SEC);
    if (standing === 'deferred') await this.refused(request, reply);
  };

  /** An unpaid request, counted by its route once it knows (see SELF_COUNTED_PATHS). */
  async spendUnpaid(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const spent = await this.unpaid.spend(request.ip);
    if (!spent.ok) throw limited(reply, spent.retryAfterSeconds);
  }

  /** A payment the gate never judged (a 400 before the gate, an aborted request) still counts as unpaid. */
  readonly onResponse = async (request: FastifyRequest): Promise<void> => {
    if (this.standing.get(request) !== 'deferred') return;
    this.standing.set(request, 'counted');
    await this.unpaid.spend(request.ip);
  };

  async verified(request: FastifyRequest, reply: FastifyReply, payer: string): Promise<void> {
    if (this.standing.get(request) !== 'deferred') return;
    this.standing.set(request, 'counted');
    if (!this.paid) return;
    const spent = await this.paid.spend(payer.toLowerCase());
    if (!spent.ok) throw limited(reply, spent.retryAfterSeconds);
  }

  async refused(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (this.standing.get(request) !== 'deferred') return;
    this.standing.set(request, 'counted');
    const spent = await this.unpaid.spend(request.ip);
    if (!spent.ok) throw limited(reply, spent.retryAfterSeconds);
  }

  /** A route with a price (or a per-call quote) while payments are on. */
  private paidRoute(request: FastifyRequest): boolean {
    const payment = request.routeOptions.config.payment;
    return this.config.PAYMENTS_ENABLED && payment !== undefined && payment.priceUsd !== 0;
  }
}

/** One well-formed x402 v2 payment header: the gate verifies it. Anything else is unpaid. */
function carriesPayment(request: FastifyRequest): boolean {
  const header = request.headers['payment-signature'];
  return typeof header === 'string' && decodePaymentHeaderOf(request, header).kind === 'ok';
}

function limited(reply: FastifyReply, retryAfterSeconds: number): Error {
  void reply.header('retry-after', String(retryAfterSeconds));
  return new Errors.RATE_LIMITED(`${retryAfterSeconds} s`);
}
