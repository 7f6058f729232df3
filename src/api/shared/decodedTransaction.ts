/**
 * The decoded-transaction answer of `GET /v1/tx/:txid`: Core's verbose transaction reshaped with
 * amounts in satoshis, addresses per output, prevouts per input (where the node knows them), the
 * fee and fee rate, RBF signalling and the confirmation status.
 */
import { z } from 'zod';
import { MAX_BIP125_RBF_SEQUENCE } from '../../bitcoin/consensus.js';
import { btcToSats, isoFromUnix } from '../../bitcoin/units.js';
import type { BitcoinNode } from '../../node/bitcoinNode.js';
import type { DecodedTx, MempoolEntry, RawTransaction } from '../../node/schemas.js';
import { round } from '../../util/round.js';
import { Hash, IsoTime, Sat, SatVb } from '../schemas.js';

/** Most distinct parent transactions fetched to fill missing prevouts. */
export const MAX_PREVOUT_PARENTS = 100;

/**
 * Core gives `prevout` only for confirmed transactions (from undo data); for a mempool tx we look
 * its parents up (one batched `getrawtransaction`), as Esplora does. Parents the node no longer
 * knows, and txs with more than `MAX_PREVOUT_PARENTS` parents, keep `prevout: null`; a node that
 * fails to answer fails the call (503), it does not blank the prevouts.
 */
export async function fillPrevouts(node: BitcoinNode, tx: RawTransaction): Promise<RawTransaction> {
  const missing = new Set<string>();
  for (const v of tx.vin) if (!v.prevout && v.txid) missing.add(v.txid);
  if (missing.size === 0 || missing.size > MAX_PREVOUT_PARENTS) return tx;
  const parents = await node.getRawTransactionsVerbose([...missing]);
  const vin = tx.vin.map((v) => {
    if (v.prevout || !v.txid || v.vout === undefined) return v;
    const parent = parents.get(v.txid);
    const out = parent?.vout.find((o) => o.n === v.vout);
    if (!parent || !out) return v;
    // Height unknown here (-1, reported as null): the parent may be unconfirmed.
    return { ...v, prevout: { generated: parent.vin.some((i) => i.coinbase !== undefined), height: -1, value: out.value, scriptPubKey: out.scriptPubKey } };
  });
  return { ...tx, vin };
}

export const TransactionBasics = z.object({
  txid: Hash,
  wtxid: Hash,
  version: z.number().int(),
  locktime: z.number().int(),
  size: z.number().int(),
  vsize: z.number().int(),
  weight: z.number().int(),
  feeSat: Sat.nullable(),
  feeRateSatVb: SatVb.nullable(),
});

/** Identity, sizes and fee of a decoded transaction, as every answer that shows one names them. */
export function transactionBasics(tx: DecodedTx, feeSat: number | null) {
  return {
    txid: tx.txid,
    wtxid: tx.hash,
    version: tx.version,
    locktime: tx.locktime,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    feeSat,
    feeRateSatVb: feeSat === null ? null : round(feeSat / tx.vsize),
  };
}

export const DecodedTransaction = TransactionBasics.extend({
  rbfSignaling: z.boolean(),
  coinbase: z.boolean(),
  status: z.object({
    confirmed: z.boolean(),
    inMempool: z.boolean(),
    confirmations: z.number().int().nonnegative(),
    blockHash: Hash.nullable(),
    blockHeight: z.number().int().nullable(),
    blockTime: IsoTime.nullable(),
    firstSeen: IsoTime.nullable(),
  }),
  totalInputSat: Sat.nullable(),
  totalOutputSat: Sat,
  inputs: z.array(
    z.object({
      txid: Hash.nullable(),
      vout: z.number().int().nullable(),
      coinbase: z.boolean(),
      sequence: z.number().int(),
      witnessItems: z.number().int(),
      prevout: z.object({ valueSat: Sat, address: z.string().nullable(), scriptType: z.string(), height: z.number().int().nullable() }).nullable(),
    }),
  ),
  outputs: z.array(z.object({ n: z.number().int(), valueSat: Sat, address: z.string().nullable(), scriptType: z.string(), scriptPubKeyHex: z.string() })),
});

/** @param blockHeight height of the tx's block when confirmed (null if unknown or unconfirmed) */
export function decodedTransaction(tx: RawTransaction, blockHeight: number | null, entry: MempoolEntry | null): z.input<typeof DecodedTransaction> {
  const inputs = tx.vin.map((vin) => ({
    txid: vin.txid ?? null,
    vout: vin.vout ?? null,
    coinbase: vin.coinbase !== undefined,
    sequence: vin.sequence,
    witnessItems: vin.txinwitness?.length ?? 0,
    prevout: vin.prevout
      ? {
          valueSat: btcToSats(vin.prevout.value),
          address: vin.prevout.scriptPubKey.address ?? null,
          scriptType: vin.prevout.scriptPubKey.type,
          height: vin.prevout.height >= 0 ? vin.prevout.height : null,
        }
      : null,
  }));
  const outputs = tx.vout.map((out) => ({
    n: out.n,
    valueSat: btcToSats(out.value),
    address: out.scriptPubKey.address ?? null,
    scriptType: out.scriptPubKey.type,
    scriptPubKeyHex: out.scriptPubKey.hex,
  }));
  const totalOutputSat = outputs.reduce((sum, o) => sum + o.valueSat, 0);
  const isCoinbase = inputs.some((i) => i.coinbase);
  const allPrevouts = !isCoinbase && inputs.every((i) => i.prevout !== null);
  const totalInputSat = allPrevouts ? inputs.reduce((sum, i) => sum + (i.prevout?.valueSat ?? 0), 0) : null;
  const feeSat = isCoinbase
    ? 0
    : tx.fee !== undefined
      ? btcToSats(tx.fee)
      : entry
        ? btcToSats(entry.fees.base)
        : totalInputSat !== null
          ? totalInputSat - totalOutputSat
          : null;
  const confirmations = tx.confirmations ?? 0;
  return {
    ...transactionBasics(tx, feeSat),
    rbfSignaling: !isCoinbase && inputs.some((i) => i.sequence <= MAX_BIP125_RBF_SEQUENCE),
    coinbase: isCoinbase,
    status: {
      confirmed: confirmations > 0,
      inMempool: entry !== null,
      confirmations,
      blockHash: tx.blockhash ?? null,
      blockHeight: confirmations > 0 ? blockHeight : null,
      blockTime: tx.blocktime !== undefined ? isoFromUnix(tx.blocktime) : null,
      firstSeen: entry ? isoFromUnix(entry.time) : null,
    },
    totalInputSat,
    totalOutputSat,
    inputs,
    outputs,
  };
}
