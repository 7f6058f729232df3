/**
 * HTTP client of an x402 facilitator (spec §7): `POST /verify`, `POST /settle`, `GET /supported`.
 * Every answer is parsed with zod; a timeout, a network error, a 5xx or an unreadable body is
 * AMBIGUOUS for `/settle` (the transfer may have been broadcast), never a failure. The auth header
 * value is a secret: it is sent, never logged, never part of an error message.
 *
 * The facilitator cannot take the service down: `/verify` and `/settle` have short timeouts of their
 * own (their sum bounds what a facilitator adds to a paid request), nothing is retried inline, and
 * a circuit breaker (opossum) opens after repeated failures (timeouts, transport errors, 5xx): while
 * it is open, calls fail at once and the gate answers new paid requests 503 with `Retry-After`.
 */
import CircuitBreaker from 'opossum';
import { FacilitatorHttp } from './facilitatorHttp.js';
import { jsonOnce } from './jsonOnce.js';
import { FacilitatorSettleResponseSchema, FacilitatorVerifyResponseSchema, X402_VERSION, type PaymentPayload, type PaymentRequirements } from './schemas.js';

export type VerifyOutcome = { kind: 'valid'; payer: string | null } | { kind: 'invalid'; reason: string } | { kind: 'unavailable'; detail: string };

export type SettleOutcome =
  | { kind: 'settled'; transaction: string; network: string; payer: string | null }
  | { kind: 'failed'; reason: string; message: string | null; transaction: string | null }
  /** Ambiguous: timeout, transport error, or the facilitator's own `settlement_pending`. */
  | { kind: 'pending'; reason: string; transaction: string | null };

export const SETTLEMENT_PENDING = 'settlement_pending';

export interface FacilitatorClientOptions {
  url: string;
  verifyTimeoutMs: number;
  settleTimeoutMs: number;
  authorization?: string | undefined;
  /** Failures within `windowMs` (and at least half of the calls) that open the breaker. */
  breakerFailures: number;
  /** How long the breaker stays open before one trial call is let through. */
  breakerCooldownMs: number;
  /** Rolling window of the failure count (default 10 s). */
  breakerWindowMs?: number;
}

export interface FacilitatorHealth {
  reachable: boolean | null;
  checkedAt: number | null;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

type PostResult = { kind: 'ok'; status: number; body: unknown } | { kind: 'error'; detail: string };

/** What the breaker counts as a failure: the facilitator did not give a usable answer. */
class FacilitatorDown extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

export class FacilitatorClient {
  /** Updated by every call: /health reports it without a request of its own. */
  readonly health: FacilitatorHealth = { reachable: null, checkedAt: null };
  private readonly breaker: CircuitBreaker<[string, PaymentPayload, PaymentRequirements, number], PostResult>;
  private openedAt = 0;
  private readonly http: FacilitatorHttp;
  /** The same for every call (the auth value is a secret: sent, never logged). */
  private readonly headers: Record<string, string>;

  constructor(private readonly options: FacilitatorClientOptions) {
    this.http = new FacilitatorHttp(options.url);
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.authorization) this.headers.authorization = options.authorization;
    this.breaker = new CircuitBreaker(
      async (path: string, payload: PaymentPayload, requirements: PaymentRequirements, timeoutMs: number) => {
        const res = await this.post(path, payload, requirements, timeoutMs);
        if (res.kind === 'error') throw new FacilitatorDown(res.detail);
        if (res.status >= 500) throw new FacilitatorDown(`facilitator ${path} answered HTTP ${res.status}`);
        return res;
      },
      {
        timeout: false, // each call is bounded by its own timeout (facilitatorHttp.ts)
        volumeThreshold: options.breakerFailures,
        errorThresholdPercentage: 50,
        rollingCountTimeout: options.breakerWindowMs ?? 10_000,
        resetTimeout: options.breakerCooldownMs,
      },
    );
    this.breaker.on('open', () => {
      this.openedAt = Date.now();
    });
  }

  /** Closed, open (calls fail at once) or half-open (the next call is the trial). */
  get breakerState(): BreakerState {
    return this.breaker.opened ? 'open' : this.breaker.halfOpen ? 'half-open' : 'closed';
  }

  /** Seconds until the open breaker lets a trial call through (0 when not open). */
  retryAfterSeconds(): number {
    if (!this.breaker.opened) return 0;
    return Math.max(1, Math.ceil((this.openedAt + this.options.breakerCooldownMs - Date.now()) / 1000));
  }

  /** Stops the breaker's timers (on close). */
  shutdown(): void {
    this.breaker.shutdown();
    this.http.close();
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyOutcome> {
    const res = await this.call('/verify', payload, requirements, this.options.verifyTimeoutMs);
    if (res.kind === 'error') return { kind: 'unavailable', detail: res.detail };
    const parsed = FacilitatorVerifyResponseSchema.safeParse(res.body);
    if (!parsed.success) return { kind: 'unavailable', detail: `unexpected /verify answer (HTTP ${res.status})` };
    if (parsed.data.isValid) return { kind: 'valid', payer: parsed.data.payer ?? null };
    return { kind: 'invalid', reason: parsed.data.invalidReason ?? 'facilitator_rejected' };
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome> {
    const res = await this.call('/settle', payload, requirements, this.options.settleTimeoutMs);
    if (res.kind === 'error') return { kind: 'pending', reason: res.detail, transaction: null };
    const parsed = FacilitatorSettleResponseSchema.safeParse(res.body);
    if (!parsed.success || res.status >= 500) {
      return { kind: 'pending', reason: `unexpected /settle answer (HTTP ${res.status})`, transaction: null };
    }
    const body = parsed.data;
    const transaction = body.transaction ? body.transaction : null;
    if (body.success && transaction) {
      return { kind: 'settled', transaction, network: body.network ?? requirements.network, payer: body.payer ?? null };
    }
    if (body.success || body.errorReason === SETTLEMENT_PENDING) {
      return { kind: 'pending', reason: body.errorReason ?? 'settled without a transaction hash', transaction };
    }
    return { kind: 'failed', reason: body.errorReason ?? 'settlement_failed', message: body.errorMessage ?? null, transaction };
  }

  /** `GET /supported`, to learn reachability at start-up. */
  async probe(): Promise<boolean> {
    try {
      const res = await this.http.call('/supported', 'GET', this.headers, null, this.options.verifyTimeoutMs);
      this.mark(res.status < 500);
    } catch {
      this.mark(false);
    }
    return this.health.reachable === true;
  }

  private mark(reachable: boolean): void {
    this.health.reachable = reachable;
    this.health.checkedAt = Date.now();
  }

  /** Through the breaker: an open breaker answers at once, as an error. */
  private async call(path: string, payload: PaymentPayload, requirements: PaymentRequirements, timeoutMs: number): Promise<PostResult> {
    try {
      return await this.breaker.fire(path, payload, requirements, timeoutMs);
    } catch (err) {
      if (err instanceof FacilitatorDown) return { kind: 'error', detail: err.detail };
      if (CircuitBreaker.isOurError(err as Error)) return { kind: 'error', detail: `facilitator ${path} skipped: circuit breaker open` };
      return { kind: 'error', detail: `facilitator ${path} failed` };
    }
  }

  private async post(path: string, paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements, timeoutMs: number): Promise<PostResult> {
    try {
      // As JSON.stringify({ x402Version, paymentPayload, paymentRequirements }), each part encoded once per payment.
      const body = `{"x402Version":${X402_VERSION},"paymentPayload":${jsonOnce(paymentPayload)},"paymentRequirements":${jsonOnce(paymentRequirements)}}`;
      const res = await this.http.call(path, 'POST', this.headers, body, timeoutMs);
      const text = res.text;
      this.mark(res.status < 500);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Leave null: the schema check reports it.
      }
      return { kind: 'ok', status: res.status, body: parsed };
    } catch (err) {
      this.mark(false);
      const name = err instanceof Error ? err.name : 'Error';
      return {
        kind: 'error',
        detail: name === 'TimeoutError' ? `facilitator ${path} timed out after ${timeoutMs} ms` : `facilitator ${path} unreachable (${name})`,
      };
    }
  }
}
