/**
 * Facilitator outages logged once per state change (issue 22 item 4): while its `/verify` is
 * unreachable, or settlements stay pending, every paid request would otherwise write a warn line.
 * The first failure is logged, then at most one line a minute with how many were not logged
 * (`LogSampler`), and one line when the facilitator answers again.
 *
 * One instance per logger (the app's), shared by the payment gate and the settler, so the call
 * sites stay one line: `facilitatorLog(log).verify(outcome)`.
 */
import type { FastifyBaseLogger } from 'fastify';
import { LogSampler, type LogSamplerOptions } from '../util/logSampler.js';
import type { SettleOutcome, VerifyOutcome } from './facilitator.js';

export class FacilitatorLog {
  private readonly sampler: LogSampler;

  constructor(
    private readonly log: FastifyBaseLogger,
    options: LogSamplerOptions = {},
  ) {
    this.sampler = new LogSampler(options);
  }

  /** One `/verify` outcome: an unreachable facilitator is logged when it starts, not per request. */
  verify(outcome: VerifyOutcome): void {
    if (outcome.kind !== 'unavailable') return this.recovered('verify', 'payments: facilitator /verify answers again');
    const sampled = this.sampler.take('verify');
    if (sampled)
      this.log.warn({ detail: outcome.detail, notLogged: sampled.suppressed }, 'payments: facilitator /verify unavailable, continuing on local verification');
  }

  /** One settle outcome of payment `paymentId`: pending settlements are logged when they start, not per payment. */
  settle(paymentId: number, outcome: SettleOutcome): void {
    if (outcome.kind !== 'pending') return this.recovered('settle', 'payments: settlements go through again');
    const sampled = this.sampler.take('settle');
    if (sampled)
      this.log.warn({ paymentId, reason: outcome.reason, transaction: outcome.transaction, notLogged: sampled.suppressed }, 'payments: settlement pending');
  }

  private recovered(key: string, msg: string): void {
    const notLogged = this.sampler.clear(key);
    if (notLogged !== undefined) this.log.info({ notLogged }, msg);
  }
}

const byLogger = new WeakMap<FastifyBaseLogger, FacilitatorLog>();

/** The facilitator log of `log` (made on first use). */
export function facilitatorLog(log: FastifyBaseLogger): FacilitatorLog {
  let found = byLogger.get(log);
  if (!found) byLogger.set(log, (found = new FacilitatorLog(log)));
  return found;
}
