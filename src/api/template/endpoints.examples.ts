/** Example answers of the template routes and methods, as the documents show them. */
import type { z } from 'zod';
import type { BlockAuditRow } from '../shared/blockAuditRows.js';
import type { BlockAuditsAnswer } from './blockAudits.js';
import type { BatchCheckAnswer } from './endpoints.schemas.js';
import type { FeeLadderAnswer, OptimizedTxidsAnswer, TemplateCheck, TemplateHealth } from './templateAnswers.js';

export const EXAMPLE_TXID = 'e4b2c1a0f8d7e6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4';
export const EXAMPLE_CHECK: z.input<typeof TemplateCheck> = {
  success: true,
  txid: EXAMPLE_TXID,
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  inOptimizedTemplate: true,
  inBaselineTemplate: false,
  baselineComparisonAvailable: true,
  optimizerAdvantage: true,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  comparison: { available: true, optimizedOnlyTxidCount: 12, overlapTxidCount: 3_180, baselineOnlyTxidCount: 9 },
  note: 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction.',
  targetBlocks: 6,
  cacheAgeMs: 21_000,
  height: 850_001,
  baselineSource: 'node_getblocktemplate',
  inMempoolSnapshot: true,
  chunkFeeRateSatVb: 14.5,
  projectedBlock: 1,
  withinTarget: true,
};

export const EXAMPLE_BATCH_CHECK: z.input<typeof BatchCheckAnswer> = {
  success: true,
  targetBlocks: 6,
  count: 1,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  results: [EXAMPLE_CHECK],
};
export const EXAMPLE_HEALTH: z.input<typeof TemplateHealth> = {
  success: true,
  enabled: true,
  ready: true,
  status: 'ok',
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  cachedAt: '2026-11-25T10:00:00.000Z',
  cacheAgeMs: 21_000,
  height: 850_001,
  cycleCount: 42,
  refreshInProgress: false,
  phase: 'idle',
  lastStatus: 'ok',
  lastError: null,
  lastDurationMs: 1_450,
  nextRefreshAt: '2026-11-25T10:01:00.000Z',
  note: 'Template signals are intelligence from the latest cached optimizer cycle, not a guarantee that any miner includes a transaction.',
};
const rung = (satVb: number) => ({ satVb, useWhen: '…', derivation: '…' });
export const EXAMPLE_LADDER: z.input<typeof FeeLadderAnswer> = {
  success: true,
  targetBlocks: 6,
  ladder: { urgent: rung(15.3), normal: rung(6.1), cheap: rung(2.4) },
  unit: 'sat/vB',
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  projectedBlocks: [{ block: 1, txCount: 3_200, feeSat: 25_000_000, weightWu: 3_992_000, minFeeRateSatVb: 14.5, medianFeeRateSatVb: 21, maxFeeRateSatVb: 600 }],
  floorFeeRateSatVb: 1,
  note: '…',
};

export const EXAMPLE_OPTIMIZED_TXIDS: z.input<typeof OptimizedTxidsAnswer> = {
  success: true,
  source: 'core_v31_optimizer_cache',
  mode: 'live_cached',
  height: 850_001,
  previousBlockHash: '00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054',
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 21_000,
  cachedAt: '2026-11-25T10:00:00.000Z',
  cacheAgeMs: 21_000,
  weightLimit: 4_000_000,
  txCount: 3_200,
  feeSat: 25_000_000,
  weightWu: 3_992_000,
  sigopCost: 12_000,
  returnedTxidCount: 2,
  truncated: true,
  txids: [EXAMPLE_TXID, EXAMPLE_TXID.split('').reverse().join('')],
  wtxids: ['0b9e7c2f5a8d1e4b7c0a3f6d9e2b5c8a1f4e7d0c3b6a9f2e5d8c1b4a7f0e3d6c', EXAMPLE_TXID.split('').reverse().join('')],
  defaultWitnessCommitment: '6a24aa21a9ed921f9b76e2227d205e28f7339bf1aea5ebad6187e8082b930187ef30c18c67aa',
  receipt: {
    schema: 'bench-receipt/1',
    alg: 'Ed25519',
    keyId: 'ed25519:3f1c…',
    publicKey: '…base64…',
    payload: {
      schema: 'bench-receipt/1',
      alg: 'Ed25519',
      keyId: 'ed25519:3f1c…',
      cycle: 1_204,
      height: 850_001,
      previousBlockHash: '00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054',
      cachedAt: '2026-11-25T10:00:00.000Z',
      optimized: { txidsSha256: '5d41402abc4b2a76b9719d911017c592ae4f3b1c8e7d9f60a2b4c6d8e0f1a3b5', txCount: 3_192, feeSat: 24_310_552, weightWu: 3_992_000 },
      baseline: {
        txidsSha256: '9a0364b9e99bb480dd25e1f0284c8555c7e2f4a6b8d0c1e3f5a7b9d1e3f5a7b9',
        txCount: 3_189,
        feeSat: 24_101_877,
        weightWu: 3_991_204,
        source: 'node_getblocktemplate',
      },
      upperBound: { feeSat: 24_312_010, exact: false },
    },
    signature: '…base64…',
    covers: '…',
  },
  note: '…',
};

const EXAMPLE_AUDIT_SIDE = {
  txCount: 3_150,
  feeSat: 24_100_000,
  weightWu: 3_990_000,
  notInBlock: 60,
  blockTxsNotInIt: 41,
  matchRate: 0.98,
  feesLeftOnTableSat: 350_000,
};
const EXAMPLE_AUDIT: z.input<typeof BlockAuditRow> = {
  height: 850_001,
  hash: '00000000000000000001b5e4c8a0f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c',
  previousBlockHash: '00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054',
  time: '2026-11-25T10:03:00.000Z',
  auditedAt: '2026-11-25T10:03:01.000Z',
  block: { txCount: 3_131, feeSat: 23_750_000, weightWu: 3_991_000 },
  optimized: { ...EXAMPLE_AUDIT_SIDE, cycle: 42, cachedAt: '2026-11-25T10:02:58.000Z' },
  baseline: { ...EXAMPLE_AUDIT_SIDE, feeSat: 23_800_000, feesLeftOnTableSat: 50_000, source: 'node_getblocktemplate' },
};

export const EXAMPLE_BLOCK_AUDITS: z.input<typeof BlockAuditsAnswer> = {
  success: true,
  count: 1,
  keep: 144,
  summary: { blocks: 12, withTemplate: 12, feesLeftOnTableSat: 2_400_000, meanMatchRate: 0.97, failures: 0, last: EXAMPLE_AUDIT },
  audits: [EXAMPLE_AUDIT],
  note: '…',
};
