/** The answers of the Bitcoin read routes (their examples: `endpoints.examples.ts`). */
import { z } from 'zod';
import { ADDRESS_TYPES } from '../../bitcoin/address.js';
import { Freshness, Hash, HexQuantity, Network, Sat, SatVb, Success } from '../schemas.js';
import { DecodedTransaction } from '../shared/decodedTransaction.js';

export const BlockHeightResponse = z.object({ success: Success, height: z.number().int().nonnegative(), hex: HexQuantity });

export const AddressType = z.enum(ADDRESS_TYPES);
export const AddressSourceKind = z.enum(['esplora', 'scantxoutset']);

export const FeeEstimateResponse = z.object({
  success: Success,
  /** The mempool view's time (the projection's input); the smart-fee answer is at most 30 s older. */
  ...Freshness,
  blocks: z.number().int(),
  unit: z.literal('sat/vB'),
  feeRateSatVb: SatVb,
  source: z.enum(['mempool_projection', 'estimatesmartfee']),
  derivation: z.string(),
  estimateSmartFee: z.object({
    feeRateSatVb: SatVb.nullable(),
    blocks: z.number().int().nullable(),
    mode: z.string(),
    errors: z.array(z.string()),
    raw: z.object({ feerate: z.number().optional(), blocks: z.number().int(), errors: z.array(z.string()).optional() }).nullable(),
  }),
  mempoolProjection: z.object({ feeRateSatVb: SatVb, competitive: z.boolean(), vsizeAhead: z.number(), derivation: z.string() }).nullable(),
});

export const BalanceResponse = z.object({
  success: Success,
  address: z.string(),
  type: AddressType,
  network: Network,
  source: AddressSourceKind,
  unit: z.literal('sat'),
  confirmedSat: Sat,
  /** Null when the source cannot see the mempool (`scantxoutset`). */
  unconfirmedSat: Sat.nullable(),
  totalSat: Sat,
  confirmedTxCount: z.number().int().nullable(),
  unconfirmedTxCount: z.number().int().nullable(),
  note: z.string(),
});

export const UtxosResponse = z.object({
  success: Success,
  address: z.string(),
  type: AddressType,
  source: AddressSourceKind,
  height: z.number().int(),
  count: z.number().int(),
  totalSat: Sat,
  truncated: z.boolean(),
  utxos: z.array(
    z.object({
      txid: Hash,
      vout: z.number().int(),
      valueSat: Sat,
      confirmed: z.boolean(),
      height: z.number().int().nullable(),
      confirmations: z.number().int().nonnegative(),
    }),
  ),
});

export const TxResponse = DecodedTransaction.extend({ success: Success });
