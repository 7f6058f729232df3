/**
 * Real answers from the simulated node (seed 7, 300 transactions): the examples of the insight
 * route and methods.
 */
import type { z } from 'zod';
import { EXAMPLE_BUMP_PLAN } from '../shared/bumpPlan.examples.js';
import type { AddressInsight, InsightAnswer } from './insightAnswers.js';

const { success: _success, note: _note, ...PLAN } = EXAMPLE_BUMP_PLAN;

export const EXAMPLE_INSIGHT: z.input<typeof InsightAnswer> = {
  success: true,
  txid: '141511143178d62ae70065911763b6d28957b77e285cefbdb2316801a4e290ac',
  targetBlocks: 1,
  verdict: 'at_risk_for_target',
  summary:
    'Transaction 141511143178… may miss the target: watch it, or bump it a little; a replacement paying 568 sat more reaches 5 sat/vB (projected block 1).',
  templateCheck: {
    mode: 'live_cached',
    source: 'core_v31_optimizer_cache',
    inOptimizedTemplate: true,
    effectiveFeeRate: 1,
    targetFeeRate: 5,
    projectedBlock: 1,
    cachedAt: '2026-11-25T19:48:58.278Z',
  },
  bump: {
    available: true,
    method: 'rbf_signed_replacement',
    additionalFeeSats: 568,
    signsOrCustodiesFunds: false,
    // The same plan as the bump-plan example (same transaction and target), asked for block 1.
    plan: { ...PLAN, target: { ...PLAN.target, targetBlocks: 1 }, cachedAt: '2026-11-25T19:48:58.278Z' },
  },
  note: 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction. The service never signs, holds or spends funds; it relays only a bump of the named transaction that the caller signed.',
};

export const EXAMPLE_ADDRESS_INSIGHT: z.input<typeof AddressInsight> = {
  success: true,
  address: 'bcrt1qfg0wqq8cadhdl4qrardccxvre4ekyzxsc6t8sl',
  type: 'p2wpkh',
  source: 'esplora',
  targetBlocks: 6,
  targetFeeRate: 0.3,
  balance: {
    confirmedSat: 269861092,
    unconfirmedSat: 5276789,
    totalSat: 275137881,
  },
  utxos: {
    count: 10,
    valueSat: 275137881,
    confirmedCount: 8,
    unconfirmedCount: 2,
  },
  unconfirmedTransactions: [
    {
      txid: 'a1f5b905c1416595aaf339ae9cb0db644d136046b9c6d67190bd0b8af1084a65',
      verdict: 'healthy_for_target',
      effectiveFeeRate: 24.709,
      projectedBlock: 1,
      blocksAway: 1,
    },
    {
      txid: '8c29f85aa86de9c903b0641bd453a8e62770ed3c7c1354e214b8a75efa8620a7',
      verdict: 'healthy_for_target',
      effectiveFeeRate: 15.304,
      projectedBlock: 1,
      blocksAway: 1,
    },
  ],
  cpfpCandidates: [
    {
      txid: '8c29f85aa86de9c903b0641bd453a8e62770ed3c7c1354e214b8a75efa8620a7',
      vout: 59,
      valueSat: 2046788,
      parentVerdict: 'healthy_for_target',
    },
    {
      txid: 'a1f5b905c1416595aaf339ae9cb0db644d136046b9c6d67190bd0b8af1084a65',
      vout: 31,
      valueSat: 3230001,
      parentVerdict: 'healthy_for_target',
    },
  ],
  note: 'Unconfirmed transactions: those spending from or paying to this address (at most 25); spending one of cpfpCandidates is a CPFP child of its transaction: ask POST /v1/template/bump-plan for the fee.',
};
