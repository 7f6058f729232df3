/**
 * The insight verdict of a transaction (DESIGN §5): `confirmed`, `replaced`, `not_found`, and for a
 * mempool transaction, from its effective (chunk) rate and projected block against the target:
 * - `below_min_relay`: its rate is under the node's floor (it may be evicted or not relayed);
 * - `healthy_for_target`: rate ≥ target and projected within targetBlocks (or beyond the projection
 *   with a target further out than it reaches);
 * - `at_risk_for_target`: one of the two holds, not both (a rate that lands now but below the
 *   target, or the target rate with a queue ahead of it);
 * - `below_target_bump_recommended`: neither.
 */
export const VERDICTS = [
  'confirmed',
  'healthy_for_target',
  'at_risk_for_target',
  'below_target_bump_recommended',
  'below_min_relay',
  'replaced',
  'not_found',
  /** A bump is needed but no method reaches the target: the plan's effect is the best block reachable and its cost. */
  'target_unreachable_by_bump',
] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface VerdictInputs {
  status: 'mempool' | 'confirmed' | 'replaced' | 'not_found';
  effectiveRateSatVb: number | null;
  /** 1-based projected block, null when unknown or beyond the projection. */
  projectedBlock: number | null;
  projectedBlockCount: number;
  targetSatVb: number;
  targetBlocks: number;
  floorSatVb: number;
}

export function verdictOf(v: VerdictInputs): Verdict {
  if (v.status !== 'mempool') return v.status;
  const rate = v.effectiveRateSatVb ?? 0;
  if (rate < v.floorSatVb) return 'below_min_relay';
  const rateOk = rate >= v.targetSatVb;
  const placeOk = v.projectedBlock !== null ? v.projectedBlock <= v.targetBlocks : v.targetBlocks > v.projectedBlockCount && rateOk;
  if (rateOk && placeOk) return 'healthy_for_target';
  if (rateOk || placeOk) return 'at_risk_for_target';
  return 'below_target_bump_recommended';
}

const SAY: Readonly<Record<Verdict, string>> = {
  confirmed: 'is confirmed: nothing to do',
  healthy_for_target: 'pays enough to confirm within the target: no bump needed',
  at_risk_for_target: 'may miss the target: watch it, or bump it a little',
  below_target_bump_recommended: 'pays too little for the target: bump it',
  below_min_relay: 'pays below the node’s minimum rate and may be dropped: bump it',
  replaced: 'was replaced by another transaction',
  not_found: 'is not known to the node',
  target_unreachable_by_bump: 'pays too little for the target, and no bump reaches it',
};

/** One sentence a person can act on. */
export function summaryOf(txid: string, verdict: Verdict, detail: string): string {
  return `Transaction ${txid.slice(0, 12)}… ${SAY[verdict]}${detail ? `; ${detail}` : ''}.`;
}
