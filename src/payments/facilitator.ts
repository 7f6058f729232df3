/**
 * HTTP client of an x402 facilitator (spec §7): `POST /verify`, `POST /settle`, `GET /supported`.
 * Every answer is parsed with zod; a timeout, a network error, a 5xx or an unreadable body is
 * AMBIGUOUS for `/settle` (the transfer may have been broadcast), never a failure. The auth header
 * value is a secret: it is sent, never logged, never part of an error message.
 */
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
  timeoutMs: number;
  authorization?: string | undefined;
}

export interface FacilitatorHealth {
  reachable: boolean | null;
  checkedAt: number | null;
}

export class FacilitatorClient {
  private readonly base: string;
  /** Updated by every call: /health reports it without a request of its own. */
  readonly health: FacilitatorHealth = { reachable: null, checkedAt: null };

  constructor(private readonly options: FacilitatorClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyOutcome> {
    const res = await this.post('/verify', payload, requirements);
    if (res.kind === 'error') return { kind: 'unavailable', detail: res.detail };
    const parsed = FacilitatorVerifyResponseSchema.safeParse(res.body);
    if (!parsed.success) return { kind: 'unavailable', detail: `unexpected /verify answer (HTTP ${res.status})` };
    if (parsed.data.isValid) return { kind: 'valid', payer: parsed.data.payer ?? null };
    return { kind: 'invalid', reason: parsed.data.invalidReason ?? 'facilitator_rejected' };
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome> {
    const res = await this.post('/settle', payload, requirements);
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
      const res = await fetch(`${this.base}/supported`, { headers: this.headers(), signal: AbortSignal.timeout(this.options.timeoutMs) });
      await res.arrayBuffer();
      this.mark(res.status < 500);
    } catch {
      this.mark(false);
    }
    return this.health.reachable === true;
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.authorization) h.authorization = this.options.authorization;
    return h;
  }

  private mark(reachable: boolean): void {
    this.health.reachable = reachable;
    this.health.checkedAt = Date.now();
  }

  private async post(
    path: string,
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
  ): Promise<{ kind: 'ok'; status: number; body: unknown } | { kind: 'error'; detail: string }> {
    try {
      const res = await fetch(`${this.base}${path}`, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({ x402Version: X402_VERSION, paymentPayload, paymentRequirements }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const text = await res.text();
      this.mark(res.status < 500);
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        // Leave null: the schema check reports it.
      }
      return { kind: 'ok', status: res.status, body };
    } catch (err) {
      this.mark(false);
      const name = err instanceof Error ? err.name : 'Error';
      return {
        kind: 'error',
        detail: name === 'TimeoutError' ? `facilitator ${path} timed out after ${this.options.timeoutMs} ms` : `facilitator ${path} unreachable (${name})`,
      };
    }
  }
}
