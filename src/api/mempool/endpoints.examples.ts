/** Example answers of the mempool routes, as the documents show them. */
import type { z } from 'zod';
import type { FeesResponse, MempoolTxResponse, ReplacementsResponse, StatsResponse } from './endpoints.schemas.js';

export const EXAMPLE_TXID = 'e4b2c1a0f8d7e6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4';
const EXAMPLE_TXID_2 = '0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d';

export const EXAMPLE_STATS: z.input<typeof StatsResponse> = {
  success: true,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 1_200,
  count: 41_000,
  vsize: 24_500_000,
  bytes: 41_000_000,
  usage: 210_000_000,
  maxMempool: 300_000_000,
  totalFeeSat: 61_000_000,
  minFeeRateSatVb: 1,
  minRelayFeeRateSatVb: 0.1,
  congestion: { level: 'congested', backlogBlocks: 24.5, explanation: '…' },
  feeRates: {
    unit: 'sat/vB',
    weighting: 'by vsize, effective (chunk) fee rates',
    min: 1,
    p5: 1,
    p10: 1.2,
    p25: 2,
    p50: 4.1,
    p75: 9,
    p90: 18,
    p95: 30,
    max: 650,
  },
  nextBlock: { feeRateSatVb: 12.4, full: true, derivation: '…' },
};

export const EXAMPLE_FEES: z.input<typeof FeesResponse> = {
  success: true,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 1_200,
  target: 10,
  unit: 'sat/vB',
  recommended: { feeRateSatVb: 4.2, competitive: true, vsizeAhead: 9_980_000, derivation: '…' },
  floorFeeRateSatVb: 1,
  totals: { count: 41_000, vsize: 24_500_000, feeSat: 61_000_000 },
  histogram: [{ minFeeRateSatVb: 4, maxFeeRateSatVb: 5, count: 3_100, vsize: 1_250_000, feeSat: 5_600_000, cumulativeVsize: 9_100_000 }],
};

export const EXAMPLE_MEMPOOL_TX: z.input<typeof MempoolTxResponse> = {
  success: true,
  txid: EXAMPLE_TXID,
  feeSat: 1_410,
  modifiedFeeSat: 1_410,
  vsize: 141,
  weight: 561,
  feeRateSatVb: 10,
  effectiveFeeRate: { satVb: 14.5, source: 'node_chunk' },
  firstSeen: '2026-11-25T09:58:00.000Z',
  ageSeconds: 120,
  entryHeight: 850_000,
  rbf: { replaceable: true, bip125Signaling: null, fullRbf: true },
  ancestors: { count: 0, vsize: 0, feeSat: 0 },
  descendants: { count: 1, vsize: 110, feeSat: 2_200 },
  parents: [],
  children: [EXAMPLE_TXID_2],
  position: { blocksAway: 2, beyondProjection: false, source: 'optimizer', vsizeAhead: null },
  belowMinimum: false,
  unit: { fee: 'sat', feeRate: 'sat/vB', size: 'vB' },
};

export const EXAMPLE_REPLACEMENTS: z.input<typeof ReplacementsResponse> = {
  success: true,
  status: 'replaced',
  txid: EXAMPLE_TXID,
  replacedBy: {
    txid: EXAMPLE_TXID_2,
    feeSat: 2_820,
    vsize: 141,
    feeRateSatVb: 20,
    firstSeen: '2026-11-25T10:00:00.000Z',
    replacedAt: '2026-11-25T10:00:01.000Z',
    feeDeltaSat: 1_410,
    feeRateDeltaSatVb: 10,
  },
  latestTxid: EXAMPLE_TXID_2,
  replaces: [],
  evictedWithReplacementOf: null,
  eventCount: 1,
  tracking: { since: 'service start or earlier (history persists across restarts)', pollMs: 2000, note: '…' },
  feeUnit: 'sat',
  feeRateUnit: 'sat/vB',
};
