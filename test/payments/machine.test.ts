/**
 * The payment state machine itself (src/payments/state/machine.ts): every legal step goes where the
 * table says and is recorded; every other step is refused and changes nothing; and the table keeps
 * the promises of DESIGN §4 (charged only once, after an answer; a retry never charges).
 */
import { describe, expect, it } from 'vitest';
import {
  IllegalTransition,
  next,
  PAYMENT_STATES,
  PaymentMachine,
  TRANSITIONS,
  type PaymentEvent,
  type PaymentStateName,
} from '../../src/payments/state/machine.js';

const EVENTS = Object.keys(TRANSITIONS) as PaymentEvent[];
const allowed = (from: PaymentStateName, event: PaymentEvent) => (TRANSITIONS[event].from as readonly PaymentStateName[]).includes(from);

/** Every state reachable from `start` by the gate's events (the reconciler acts on the row, later). */
function reachable(start: PaymentStateName, by: 'gate' | 'any' = 'any'): Set<PaymentStateName> {
  const seen = new Set<PaymentStateName>([start]);
  const todo = [start];
  for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
    for (const e of EVENTS) {
      if (!allowed(s, e) || (by === 'gate' && TRANSITIONS[e].by !== 'gate')) continue;
      const to = TRANSITIONS[e].to;
      if (!seen.has(to)) {
        seen.add(to);
        todo.push(to);
      }
    }
  }
  return seen;
}

describe('payment state machine', () => {
  it('default: a paid request walks new → claimed → served → recorded → settled, each step recorded', () => {
    const m = new PaymentMachine();
    expect(m.state).toBe('new');
    for (const e of ['claim', 'serve', 'record', 'settle'] as const) m.fire(e);
    expect(m.state).toBe('settled');
    expect(m.trail).toEqual([
      { from: 'new', event: 'claim', to: 'claimed' },
      { from: 'claimed', event: 'serve', to: 'served' },
      { from: 'served', event: 'record', to: 'recorded' },
      { from: 'recorded', event: 'settle', to: 'settled' },
    ]);
  });

  it('behavior: each legal transition, from each state it allows, lands where the table says and is recorded', () => {
    let n = 0;
    for (const event of EVENTS) {
      for (const from of TRANSITIONS[event].from) {
        const m = new PaymentMachine(from);
        expect(m.fire(event)).toBe(TRANSITIONS[event].to);
        expect(m.state).toBe(TRANSITIONS[event].to);
        expect(m.trail).toEqual([{ from, event, to: TRANSITIONS[event].to }]);
        n++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(EVENTS.length);
  });

  it('error: every other (state, event) pair is refused; the state and the trail are unchanged', () => {
    let refused = 0;
    for (const from of PAYMENT_STATES) {
      for (const event of EVENTS) {
        if (allowed(from, event)) continue;
        const m = new PaymentMachine(from);
        expect(() => m.fire(event)).toThrow(IllegalTransition);
        expect(() => next(from, event)).toThrow(`'${event}' is not allowed from '${from}'`);
        expect(m.state).toBe(from);
        expect(m.trail).toEqual([]);
        refused++;
      }
    }
    // Most pairs are illegal: the table is a short list of allowed steps, not a default-allow.
    expect(refused).toBeGreaterThan(PAYMENT_STATES.length * EVENTS.length * 0.8);
  });

  it('error: nothing is charged twice: a payment is claimed once, recorded once, settled once', () => {
    const m = new PaymentMachine();
    m.fire('claim');
    expect(() => m.fire('claim')).toThrow(IllegalTransition);
    m.fire('serve');
    m.fire('record');
    expect(() => m.fire('record')).toThrow(IllegalTransition);
    // Once its row is durable a payment is never given back (the reconciler settles it after a crash).
    expect(() => m.fire('release')).toThrow(IllegalTransition);
    m.fire('settle');
    expect(() => m.fire('settle')).toThrow(IllegalTransition);
    expect(() => m.fire('release')).toThrow(IllegalTransition); // a charged payment is never given back
    expect(m.state).toBe('settled');
  });

  it('error: nothing is recorded without an answer, nor settled without a record', () => {
    expect(() => new PaymentMachine('claimed').fire('record')).toThrow(IllegalTransition);
    expect(() => new PaymentMachine('claimed').fire('settle')).toThrow(IllegalTransition);
    expect(() => new PaymentMachine('served').fire('settle')).toThrow(IllegalTransition);
    for (const e of EVENTS) if (TRANSITIONS[e].to === 'recorded') expect(TRANSITIONS[e].from).toEqual(['served']);
  });

  it('behavior: a retry of a payment taken already never reaches a charge, and counts only a recompute that ran and was not kept', () => {
    for (const start of ['recomputing', 'answered-again', 'turned-away'] as const) {
      const r = reachable(start);
      for (const charged of ['claimed', 'served', 'recorded', 'settled'] as const) expect(r.has(charged)).toBe(false);
    }
    const kept = new PaymentMachine();
    kept.fire('answer-kept');
    expect(kept.state).toBe('answered-again');
    const counted = new PaymentMachine();
    counted.fire('recompute');
    counted.fire('count');
    expect(counted.state).toBe('counted');
    const notReady = new PaymentMachine();
    notReady.fire('recompute');
    notReady.fire('not-ready');
    expect(notReady.state).toBe('uncounted');
    expect(() => notReady.fire('count')).toThrow(IllegalTransition);
  });

  it('behavior: after a crash the reconciler settles a recorded payment, by the chain when the re-settle is refused', () => {
    expect(next('recorded', 'reconcile')).toBe('settled');
    expect(next('recorded', 'chain-used')).toBe('settled');
    expect(next('recorded', 'chain-unused')).toBe('refused');
    // Only a recorded payment: a claim that never recorded is released, never settled.
    expect(() => next('claimed', 'chain-used')).toThrow(IllegalTransition);
  });

  it('behavior: every state but `new` is reachable, and every walk of the gate ends in a state with no gate step out', () => {
    const fromNew = reachable('new');
    for (const s of PAYMENT_STATES) expect(fromNew.has(s)).toBe(true);
    const ends = ['settled', 'refused', 'released', 'lost', 'turned-away', 'answered-again', 'counted', 'uncounted'] as const;
    for (const s of ends) expect([...reachable(s, 'gate')]).toEqual([s]);
  });
});
