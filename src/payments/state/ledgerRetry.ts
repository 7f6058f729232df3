/**
 * A retry of a payment this replica's ledger holds (the local state, and the shared state when
 * Redis forgot a payment recorded here): answered from the kept answer, or recomputed uncharged,
 * counted on the row; anything but the same request is a replay (machine.ts).
 */
import type { CachedAnswer } from '../keptAnswers.js';
import type { Ledger, LedgerRow } from '../ledger.js';
import { paymentResponseOf } from '../replies.js';
import { MAX_RECOMPUTES } from './machine.js';
import type { ClaimOutcome, PaymentKey } from './paymentState.js';

export function retryOfRow(
  ledger: Ledger,
  row: LedgerRow,
  p: PaymentKey,
  kept: CachedAnswer | undefined,
  keep: (answer: CachedAnswer) => Promise<void>,
): ClaimOutcome {
  if (row.status === 'failed' || row.requestHash !== p.requestHash) return { kind: 'replay' };
  if (kept && kept.requestHash === p.requestHash) return { kind: 'kept', answer: kept, paymentResponse: paymentResponseOf(row) };
  if (row.replays >= MAX_RECOMPUTES) return { kind: 'exhausted' };
  return {
    kind: 'recompute',
    recompute: {
      // Read again when the answer goes out: the row may have settled meanwhile.
      paymentResponse: () => paymentResponseOf(ledger.get(row.id) ?? row),
      keep,
      count: async () => {
        ledger.countReplay(row.id, MAX_RECOMPUTES);
      },
    },
  };
}
