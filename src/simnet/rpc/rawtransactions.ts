/**
 * Raw transaction RPCs of the simulated node (a `txindex=1` node): `getrawtransaction` (verbosity
 * 0/1/2, mempool first, then the index; `fee` and `prevout` only for confirmed transactions, as
 * Core, which takes them from undo data), `decoderawtransaction`, `sendrawtransaction` and
 * `testmempoolaccept`, with Core's error codes: -5 unknown transaction, -22 undecodable hex,
 * -25 missing inputs / max fee, -26 policy rejection (`reason, details`), -27 already confirmed.
 */
import type { AcceptOutcome } from '../mempool/acceptance.js';
import { Btc } from '../consensus/amount.js';
import { DEFAULT_MAX_RAW_TX_FEE_RATE_SAT_KVB } from '../consensus/params.js';
import { RPC_ERROR, RpcError } from './errors.js';
import { parseAmountSat, parseFeeRateSatKvb, parseHash, parseVerbosity } from './params.js';
import type { Simulator } from '../node/simulator.js';
import { decodeTx, outpointKey, txHex, type SimTx } from '../tx/txCodec.js';
import { txJson } from './txJson.js';
import type { MethodTable } from './rpcMethod.js';

const DECODE_HINT = 'Make sure the tx has at least one input.';
const GENESIS_COINBASE = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

/** Parses hex into a transaction, or undefined (Core's `DecodeHexTx`). */
function decodeHex(value: unknown): SimTx | undefined {
  const hex = String(value);
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  try {
    return decodeTx(Buffer.from(hex, 'hex'));
  } catch {
    return undefined;
  }
}

function getRawTransaction(sim: Simulator, txidParam: unknown, verbosityParam: unknown, blockhashParam: unknown): unknown {
  const txid = parseHash(txidParam, 'parameter 1');
  const verbosity = parseVerbosity(verbosityParam, 0);
  if (txid === GENESIS_COINBASE) {
    throw new RpcError(RPC_ERROR.INVALID_ADDRESS_OR_KEY, 'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved');
  }
  const inBlock = blockhashParam === undefined ? undefined : parseHash(blockhashParam, 'parameter 3');
  if (inBlock !== undefined && !sim.chain.blockByHash(inBlock)) {
    throw new RpcError(RPC_ERROR.INVALID_ADDRESS_OR_KEY, 'Block hash not found');
  }
  const entry = inBlock === undefined ? sim.mempool.get(txid) : undefined;
  const located = entry ? undefined : sim.chain.locate(txid);
  const tx = entry?.tx ?? (located && (inBlock === undefined || located.block.hash === inBlock) ? located.tx : undefined);
  if (!tx) {
    throw new RpcError(
      RPC_ERROR.INVALID_ADDRESS_OR_KEY,
      inBlock !== undefined
        ? 'No such transaction found in the provided block. Use gettransaction for wallet transactions.'
        : 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.',
    );
  }
  if (verbosity <= 0) return txHex(tx);
  // As Core: fee and prevouts (verbosity 2) come from block undo data, so only confirmed
  // non-coinbase transactions get them; mempool transactions answer as with verbosity 1.
  const spent = verbosity >= 2 && located && located.index > 0 ? located.block.spent[located.index] : undefined;
  const json = txJson(tx, { spent, prevouts: spent !== undefined, includeHex: true });
  if (located) {
    const block = located.block;
    if (inBlock !== undefined) json.in_active_chain = true;
    json.blockhash = block.hash;
    json.confirmations = sim.chain.height - block.height + 1;
    json.time = block.time;
    json.blocktime = block.time;
  }
  return json;
}

/** Core's testmempoolaccept result object of one transaction. */
function acceptResult(outcome: AcceptOutcome): Record<string, unknown> {
  const base = { txid: outcome.tx.txid, wtxid: outcome.tx.wtxid };
  if (outcome.ok) {
    return {
      ...base,
      allowed: true,
      vsize_adjusted: outcome.vsizeAdjusted,
      vsize: outcome.vsizeAdjusted,
      vsize_bip141: outcome.tx.vsize,
      fees: {
        base: new Btc(outcome.feeSat),
        'effective-feerate': new Btc(Math.round((outcome.feeSat * 1000) / outcome.vsizeAdjusted)),
        'effective-includes': [outcome.tx.wtxid],
      },
    };
  }
  if (outcome.kind === 'missing-inputs') return { ...base, allowed: false, 'reject-reason': 'missing-inputs' };
  if (outcome.kind === 'max-fee') return { ...base, allowed: false, 'reject-reason': 'max-fee-exceeded' };
  return { ...base, allowed: false, 'reject-reason': outcome.reason, 'reject-details': outcome.message };
}

export const rawTransactionMethods: MethodTable = {
  getrawtransaction: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'verbosity', type: 'verbosity' },
      { name: 'blockhash', type: 'string' },
    ],
    description: 'Return the raw transaction data (hex for verbosity 0, an object for 1, with fee and prevouts for 2).',
    run: ([txid, verbosity, blockhash], sim) => getRawTransaction(sim, txid, verbosity, blockhash),
  },
  decoderawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'iswitness', type: 'bool' },
    ],
    description: 'Return a JSON object representing the serialized, hex-encoded transaction.',
    run: ([hex]) => {
      const tx = decodeHex(hex);
      if (!tx) throw new RpcError(RPC_ERROR.DESERIALIZATION_ERROR, 'TX decode failed');
      return txJson(tx);
    },
  },
  sendrawtransaction: {
    params: [
      { name: 'hexstring', type: 'string', required: true },
      { name: 'maxfeerate', type: 'amount' },
      { name: 'maxburnamount', type: 'amount' },
    ],
    description: 'Submit a raw transaction (serialized, hex-encoded) to the local node and network.',
    run: ([hex, maxFeeRate, maxBurn], sim) => {
      const maxBurnSat = maxBurn === undefined ? 0 : parseAmountSat(maxBurn);
      const tx = decodeHex(hex);
      if (!tx) throw new RpcError(RPC_ERROR.DESERIALIZATION_ERROR, `TX decode failed. ${DECODE_HINT}`);
      if (tx.outputs.some((o) => o.script.length > 0 && o.script[0] === 0x6a && o.valueSat > maxBurnSat)) {
        throw new RpcError(RPC_ERROR.VERIFY_ERROR, 'Unspendable output exceeds maximum configured by user (maxburnamount)');
      }
      const maxFeeRateSatKvb = maxFeeRate === undefined ? DEFAULT_MAX_RAW_TX_FEE_RATE_SAT_KVB : parseFeeRateSatKvb(maxFeeRate);
      if (tx.outputs.some((_, vout) => sim.chain.coin(outpointKey(tx.txid, vout)))) {
        throw new RpcError(RPC_ERROR.VERIFY_ALREADY_IN_UTXO_SET, 'Transaction outputs already in utxo set');
      }
      const outcome = sim.submit(tx, { testOnly: false, maxFeeRateSatKvb });
      if (outcome.ok || outcome.kind === 'already-in-mempool') return tx.txid;
      if (outcome.kind === 'missing-inputs') throw new RpcError(RPC_ERROR.VERIFY_ERROR, outcome.reason);
      if (outcome.kind === 'max-fee') throw new RpcError(RPC_ERROR.VERIFY_ERROR, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)');
      throw new RpcError(RPC_ERROR.VERIFY_REJECTED, outcome.message);
    },
  },
  testmempoolaccept: {
    params: [
      { name: 'rawtxs', type: 'array', required: true },
      { name: 'maxfeerate', type: 'amount' },
    ],
    description: 'Returns result of mempool acceptance tests indicating if raw transaction(s) would be accepted by mempool.',
    run: ([rawtxs, maxFeeRate], sim) => {
      const list = rawtxs as unknown[];
      if (list.length < 1 || list.length > 25) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Array must contain between 1 and 25 transactions.');
      const maxFeeRateSatKvb = maxFeeRate === undefined ? DEFAULT_MAX_RAW_TX_FEE_RATE_SAT_KVB : parseFeeRateSatKvb(maxFeeRate);
      const txs = list.map((raw, i) => {
        const tx = typeof raw === 'string' ? decodeHex(raw) : undefined;
        if (!tx) throw new RpcError(RPC_ERROR.DESERIALIZATION_ERROR, `TX decode failed for tx ${i}. ${DECODE_HINT}`);
        return tx;
      });
      // Package members that spend an earlier member cannot be judged without adding it: they are
      // reported unvalidated (no "allowed" key), as Core does for transactions it did not finish.
      const inPackage = new Set(txs.map((t) => t.txid));
      return txs.map((tx) => {
        if (tx.inputs.some((i) => inPackage.has(i.txid))) return { txid: tx.txid, wtxid: tx.wtxid };
        return acceptResult(sim.submit(tx, { testOnly: true, maxFeeRateSatKvb }));
      });
    },
  },
};
