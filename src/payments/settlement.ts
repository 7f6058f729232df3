/**
 * Settlement after a successful handler, and the reconciler for what could not be settled then.
 *
 * A ledger row is `pending` (with the hash of the answer it paid for) before the `/settle` call. The
 * outcome moves it to `settled` or `failed`; an ambiguous outcome (timeout, transport error, open
 * breaker, `settlement_pending`) leaves it `pending` with whatever tx hash we learnt: one attempt
 * inline, bounded by the settle timeout, never a retry within the request. The reconciler retries
 * pending rows at start and every interval. An authorization we accepted is never answered with a
 * new 402 because of an ambiguous outcome: the client is not asked to pay twice.
 *
 * A pending row may have been settled by a first attempt whose outcome was lost (a crash during
 * the settle call): a real facilitator then refuses the re-settle because the authorization is
 * used. So a refused re-settle is judged by the chain's truth (chainAuthorizations.ts): used →
 * settled; unused → failed; unknown (no endpoint, unreachable) → left pending and retried.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ChainAuthorizations } from './chainAuthorizations.js';
import type { FacilitatorClient, SettleOutcome } from './facilitator.js';
import { facilitatorLog } from './facilitatorLog.js';
import type { Ledger, LedgerRow } from './ledger.js';
import type { PaymentPayload, PaymentRequirements, SettlementResponse } from './schemas.js';
import { PaymentMachine, type PaymentEvent } from './state/machine.js';

export interface ReconcileResult {
  attempted: number;
  settled: number;
  failed: number;
  pending: number;
}

export class Settler {
  private readonly inFlight = new Map<number, Promise<SettleOutcome>>();
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<ReconcileResult> | null = null;

  constructor(
    private readonly ledger: Ledger,
    private readonly facilitator: FacilitatorClient,
    private readonly log: FastifyBaseLogger,
    private readonly chain: ChainAuthorizations | null = null,
  ) {}

  /** One attempt (bounded by the settle timeout, no inline retry); the ledger row reflects the outcome. */
  settleInline(id: number, payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome> {
    return this.attempt(id, payload, requirements, false);
  }

  /**
   * Retries every pending row not already in flight and last touched more than `quietMs` ago (a
   * row just written is about to be settled by its own request). Concurrent calls share one run.
   */
  reconcile(limit = 100, quietMs = 0): Promise<ReconcileResult> {
    this.reconciling ??= this.reconcileOnce(limit, quietMs).finally(() => {
      this.reconciling = null;
    });
    return this.reconciling;
  }

  /**
   * Reconciles now (every pending row: at start none is in flight), then every `intervalMs` the rows
   * quiet for `quietMs` (the timer does not keep the process alive).
   */
  start(intervalMs: number, quietMs: number): void {
    const tick = (quiet: number) => {
      this.reconcile(100, quiet).catch((err: unknown) => this.log.error({ err }, 'payments: reconcile failed'));
    };
    tick(0);
    this.timer = setInterval(() => tick(quietMs), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for settlements in flight (each bounded by the facilitator timeout). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight.values(), this.reconciling ?? Promise.resolve()]);
  }

  private async reconcileOnce(limit: number, quietMs: number): Promise<ReconcileResult> {
    const result: ReconcileResult = { attempted: 0, settled: 0, failed: 0, pending: 0 };
    const rows: LedgerRow[] = this.ledger.list('pending', limit, quietMs).filter((r) => !this.inFlight.has(r.id));
    for (const row of rows) {
      result.attempted++;
      const outcome = await this.attempt(row.id, row.payload, row.requirements, true);
      if (outcome.kind === 'settled') result.settled++;
      else if (outcome.kind === 'failed') result.failed++;
      else result.pending++;
    }
    if (result.attempted > 0) this.log.info({ ...result }, 'payments: reconciled pending settlements');
    return result;
  }

  /** `resettle`: a pending row, which an earlier attempt (its outcome lost) may have settled. */
  private attempt(id: number, payload: PaymentPayload, requirements: PaymentRequirements, resettle: boolean): Promise<SettleOutcome> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const p = this.run(id, payload, requirements, resettle).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, p);
    return p;
  }

  private async run(id: number, payload: PaymentPayload, requirements: PaymentRequirements, resettle: boolean): Promise<SettleOutcome> {
    let outcome = await this.facilitator.settle(payload, requirements);
    let byChain = false;
    if (outcome.kind === 'failed' && resettle) {
      byChain = true;
      outcome = await this.byChainTruth(id, outcome, payload, requirements);
    }
    // The reconciler's step in the payment's life (state/machine.ts), from the row's `recorded` state.
    const step = resettle ? reconcilerStep(outcome, byChain) : null;
    if (step) new PaymentMachine('recorded').fire(step);
    switch (outcome.kind) {
      case 'settled':
        await this.ledger.markSettled(id, outcome.transaction);
        break;
      case 'failed':
        await this.ledger.markFailed(id, outcome.transaction, outcome.message ? `${outcome.reason}: ${outcome.message}` : outcome.reason);
        this.log.warn({ paymentId: id, reason: outcome.reason }, 'payments: settlement refused');
        break;
      case 'pending':
        await this.ledger.markPending(id, outcome.transaction, outcome.reason);
        break;
    }
    facilitatorLog(this.log).settle(id, outcome);
    return outcome;
  }

  /** A refused re-settle: settled if the authorization is used on chain, failed if not, else still pending. */
  private async byChainTruth(
    id: number,
    refused: Extract<SettleOutcome, { kind: 'failed' }>,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<SettleOutcome> {
    const { from, nonce } = payload.payload.authorization;
    const state = this.chain ? await this.chain.state(requirements.network, requirements.asset, from, nonce) : 'unknown';
    if (state === 'unused') return refused;
    const transaction = refused.transaction ?? this.ledger.get(id)?.txHash ?? null;
    if (state === 'used') {
      this.log.info({ paymentId: id, reason: refused.reason }, 'payments: re-settle refused, the authorization is used on chain: settled');
      return { kind: 'settled', transaction: transaction ?? '', network: requirements.network, payer: from };
    }
    return { kind: 'pending', reason: `re-settle refused (${refused.reason}); the chain's authorization state is unknown`, transaction };
  }
}

/** The machine's event for a re-settle's outcome; null while it stays pending (`recorded`). */
function reconcilerStep(outcome: SettleOutcome, byChain: boolean): PaymentEvent | null {
  if (outcome.kind === 'pending') return null;
  if (outcome.kind === 'failed') return 'chain-unused';
  return byChain ? 'chain-used' : 'reconcile';
}

/**
 * The SettlementResponse of a paid request: one inline attempt through `settler`, or (no
 * facilitator) the unsettled answer. `success: false` only when the facilitator refused it.
 */
export async function settleForAnswer(
  settler: Settler | null,
  ledgerId: number,
  payload: PaymentPayload,
  requirement: PaymentRequirements,
): Promise<SettlementResponse> {
  const base = { network: requirement.network, payer: payload.payload.authorization.from, amount: requirement.amount };
  if (!settler) return { success: true, transaction: '', ...base, extra: { settlement: 'unsettled' } };
  const outcome = await settler.settleInline(ledgerId, payload, requirement);
  if (outcome.kind === 'failed') {
    return {
      success: false,
      errorReason: outcome.reason,
      ...(outcome.message ? { errorMessage: outcome.message } : {}),
      transaction: outcome.transaction ?? '',
      ...base,
    };
  }
  return outcome.kind === 'settled'
    ? { success: true, transaction: outcome.transaction, ...base, extra: { settlement: 'settled' } }
    : { success: true, transaction: outcome.transaction ?? '', ...base, extra: { settlement: 'pending' } };
}
