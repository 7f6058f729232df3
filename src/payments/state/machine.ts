/**
 * The life of one payment, written down once (DESIGN §4). Every paid request walks this table; the
 * gate (gate.ts) fires one event per step and the machine refuses any step out of order, so "never
 * charge twice" and "never serve unpaid" read here, not across files.
 *
 *   new ──claim──▶ claimed ──serve──▶ served ──record──▶ recorded ──settle──▶ settled
 *                    │                  │                   └──refuse──▶ refused
 *                    └──release──▶ released ◀──release──────┘ (ledger write failed)
 *
 * A request for a payment already taken (the payer retrying after a lost answer, maybe after a
 * crash, maybe on another replica) never claims: it is answered again from the kept answer, or the
 * handler runs again uncharged (`recomputing`), and only a recompute that ran and could not be kept
 * is counted (at most MAX_RECOMPUTES). After a crash, the reconciler settles a `recorded` payment,
 * and a refused re-settle is judged by the chain (settlement.ts).
 */

/**
 * Times one paid answer may be recomputed for retries without being kept (a kept answer is given
 * again without limit). Counted only when a recompute ran and its answer could not be kept: it
 * failed (but 503, a service not ready yet: come back, nothing spent) or was too large to keep.
 */
export const MAX_RECOMPUTES = 3;

export const PAYMENT_STATES = [
  'new',
  'claimed',
  'served',
  'recorded',
  'settled',
  'refused',
  'released',
  'lost',
  'turned-away',
  'recomputing',
  'answered-again',
  'counted',
  'uncounted',
] as const;
export type PaymentStateName = (typeof PAYMENT_STATES)[number];

/** Who fires the event: the gate for the request, or the reconciler on the ledger row later. */
type Actor = 'gate' | 'reconciler';

export interface Transition {
  from: readonly PaymentStateName[];
  to: PaymentStateName;
  by: Actor;
  /** What holds once the transition is made (and what the state implementations must have done). */
  holds: string;
}

export const TRANSITIONS = {
  // The request that takes the payment.
  claim: { from: ['new'], to: 'claimed', by: 'gate', holds: 'the nonce (and payment id) is ours before the handler runs; nothing is charged' },
  'take-over': { from: ['new'], to: 'claimed', by: 'gate', holds: "shared: a dead replica's claim is ours (it charged nothing)" },
  serve: { from: ['claimed'], to: 'served', by: 'gate', holds: 'the handler answered; shared: the answer is kept in Redis before the row' },
  lose: { from: ['claimed'], to: 'lost', by: 'gate', holds: 'shared: taken for dead, another replica took the payment over; nothing charged here' },
  release: {
    from: ['claimed', 'served'],
    to: 'released',
    by: 'gate',
    holds: 'nothing charged (handler failed, client gone, facilitator refused or unavailable, a store failed): the payer may retry',
  },
  record: { from: ['served'], to: 'recorded', by: 'gate', holds: 'the ledger row is durable with the answer (local: on disk in the same commit)' },
  settle: { from: ['recorded'], to: 'settled', by: 'gate', holds: 'settled, or accepted as pending (an ambiguous outcome is never a 402)' },
  refuse: { from: ['recorded'], to: 'refused', by: 'gate', holds: 'the facilitator refused it: answered 402, the authorization is spent' },
  // After a crash: the row left `recorded` (pending) is settled by the reconciler.
  reconcile: { from: ['recorded'], to: 'settled', by: 'reconciler', holds: 'a pending row settled on a later attempt' },
  'chain-used': { from: ['recorded'], to: 'settled', by: 'reconciler', holds: 'a refused re-settle, but the authorization is used on chain' },
  'chain-unused': { from: ['recorded'], to: 'refused', by: 'reconciler', holds: 'a refused re-settle, and the authorization is unused on chain' },
  // A retry of a payment already taken: answered again, never charged again.
  'turn-away': { from: ['new'], to: 'turned-away', by: 'gate', holds: 'a replay, a conflict, still in progress, or recomputes exhausted: nothing claimed' },
  'answer-kept': { from: ['new'], to: 'answered-again', by: 'gate', holds: 'the kept answer is sent again' },
  recompute: { from: ['new'], to: 'recomputing', by: 'gate', holds: 'no kept answer: the handler runs again, uncharged' },
  keep: { from: ['recomputing'], to: 'answered-again', by: 'gate', holds: 'the recomputed answer is kept for the next retry' },
  count: { from: ['recomputing'], to: 'counted', by: 'gate', holds: 'the recompute ran and could not be kept (failed, too large): counted' },
  'not-ready': { from: ['recomputing'], to: 'uncounted', by: 'gate', holds: 'answered 503 (not ready): nothing kept, nothing counted' },
} as const satisfies Record<string, Transition>;

export type PaymentEvent = keyof typeof TRANSITIONS;

export class IllegalTransition extends Error {
  constructor(
    readonly from: PaymentStateName,
    readonly event: PaymentEvent,
  ) {
    super(`payment state machine: '${event}' is not allowed from '${from}'`);
    this.name = 'IllegalTransition';
  }
}

/** The state after `event`, or IllegalTransition. */
export function next(from: PaymentStateName, event: PaymentEvent): PaymentStateName {
  const t: Transition = TRANSITIONS[event];
  if (!t.from.includes(from)) throw new IllegalTransition(from, event);
  return t.to;
}

export interface Step {
  from: PaymentStateName;
  event: PaymentEvent;
  to: PaymentStateName;
}

/** One payment's walk through the table; each legal step is recorded, an illegal one throws. */
export class PaymentMachine {
  private current: PaymentStateName;
  private readonly steps: Step[] = [];

  constructor(start: PaymentStateName = 'new') {
    this.current = start;
  }

  get state(): PaymentStateName {
    return this.current;
  }

  get trail(): readonly Step[] {
    return this.steps;
  }

  fire(event: PaymentEvent): PaymentStateName {
    const to = next(this.current, event);
    this.steps.push({ from: this.current, event, to });
    this.current = to;
    return to;
  }
}
