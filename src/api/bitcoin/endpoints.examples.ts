/** Example answers of the Bitcoin read routes and methods, as the documents show them. */
import type { z } from 'zod';
import type { BalanceResponse, FeeEstimateResponse, TxResponse, UtxosResponse } from './endpoints.schemas.js';

export const EXAMPLE_TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
export const EXAMPLE_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

export const EXAMPLE_FEE_ESTIMATE: z.input<typeof FeeEstimateResponse> = {
  success: true,
  asOf: '2026-11-25T10:00:00.000Z',
  ageMs: 1_200,
  blocks: 3,
  unit: 'sat/vB',
  feeRateSatVb: 12.4,
  source: 'mempool_projection',
  derivation: 'target within 8 blocks: the current queue decides. …',
  estimateSmartFee: { feeRateSatVb: 14.2, blocks: 3, mode: 'conservative', errors: [], raw: { feerate: 0.000142, blocks: 3 } },
  mempoolProjection: { feeRateSatVb: 12.4, competitive: true, vsizeAhead: 2_994_000, derivation: '…' },
};

export const EXAMPLE_BALANCE: z.input<typeof BalanceResponse> = {
  success: true,
  address: EXAMPLE_ADDRESS,
  type: 'p2wpkh',
  network: 'main',
  source: 'esplora',
  unit: 'sat',
  confirmedSat: 150_000,
  unconfirmedSat: -20_000,
  totalSat: 130_000,
  confirmedTxCount: 4,
  unconfirmedTxCount: 1,
  note: 'confirmed = chain funded − spent; unconfirmed = net change from mempool transactions',
};

export const EXAMPLE_UTXOS: z.input<typeof UtxosResponse> = {
  success: true,
  address: EXAMPLE_ADDRESS,
  type: 'p2wpkh',
  source: 'esplora',
  height: 850_000,
  count: 1,
  totalSat: 150_000,
  truncated: false,
  utxos: [{ txid: EXAMPLE_TXID, vout: 0, valueSat: 150_000, confirmed: true, height: 849_990, confirmations: 11 }],
};

export const EXAMPLE_TX: z.input<typeof TxResponse> = {
  success: true,
  txid: EXAMPLE_TXID,
  wtxid: EXAMPLE_TXID,
  version: 2,
  locktime: 0,
  size: 222,
  vsize: 141,
  weight: 561,
  feeSat: 2_820,
  feeRateSatVb: 20,
  rbfSignaling: true,
  coinbase: false,
  status: {
    confirmed: false,
    inMempool: true,
    confirmations: 0,
    blockHash: null,
    blockHeight: null,
    blockTime: null,
    firstSeen: '2026-11-25T10:00:00.000Z',
  },
  totalInputSat: 102_820,
  totalOutputSat: 100_000,
  inputs: [{ txid: EXAMPLE_TXID, vout: 1, coinbase: false, sequence: 4_294_967_293, witnessItems: 2, prevout: null }],
  outputs: [
    {
      n: 0,
      valueSat: 100_000,
      address: EXAMPLE_ADDRESS,
      scriptType: 'witness_v0_keyhash',
      scriptPubKeyHex: '0014e8df018c7e326cc253faac7e46cdc51e68542c42',
    },
  ],
};
