/**
 * The decoded-transaction answer of `GET /v1/tx/:txid`: Core's verbose transaction reshaped with
 * amounts in satoshis, addresses per output, prevouts per input (where the node knows them), the
 * fee and fee rate, RBF signalling and the confirmation status.
 */
import { btcToSats, type BitcoinNode } from '../node/bitcoinNode.js';
import type { DecodedTx, MempoolEntry, RawTransaction } from '../node/schemas.js';
import { round } from '../util/round.js';
import { isoFromUnix } from './schemas.js';

/** Most distinct parent transactions fetched to fill missing prevouts. */
export const MAX_PREVOUT_PARENTS = 100;

/**
 * Core gives `prevout` only for confirmed transactions (from undo data); for a mempool tx we look
 * its parents up (one batched `getrawtransaction`), as Esplora does. Parents the node no longer
 * knows, and txs with more than `MAX_PREVOUT_PARENTS` parents, keep `prevout: null`.
 */
export async function fillPrevouts(node: BitcoinNode, tx: RawTransaction): Promise<RawTransaction> {
  const missing = [...new Set(tx.vin.filter((v) => !v.prevout && v.txid).map((v) => v.txid!))];
  if (missing.length === 0 || missing.length > MAX_PREVOUT_PARENTS) return tx;
  const parents = await node.getRawTransactionsVerbose(missing).catch(() => new Map<string, RawTransaction>());
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

/** BIP125: an input with nSequence below this signals replaceability. */
const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;

/** @param blockHeight height of the tx's block when confirmed (null if unknown or unconfirmed) */
export function decodedTransaction(tx: RawTransaction, blockHeight: number | null, entry: MempoolEntry | null) {
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
