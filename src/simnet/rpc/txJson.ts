/**
 * Core's JSON form of a transaction (`TxToUniv` in src/core_write.cpp), as `decoderawtransaction`,
 * verbose `getrawtransaction` and `getblock 2/3` answer it: field names, order and units
 * (amounts in BTC with 8 decimals) as Core writes them.
 */
import { Btc } from '../consensus/amount.js';
import type { Coin } from '../chain/coin.js';
import { inferDescriptor } from '../tx/descriptor.js';
import { toHex } from '../tx/hash.js';
import { outputType, scriptAddress, scriptAsm } from '../tx/script.js';
import { isCoinbaseTx, txHex, type SimTx } from '../tx/txCodec.js';

export interface TxJsonOptions {
  /** Coins spent, in input order (undo data): adds `fee`, and `prevout` when `prevouts` is set. */
  spent?: readonly Coin[];
  prevouts?: boolean;
  includeHex?: boolean;
}

/** Core's `ScriptToUniv` with hex and address. */
export function scriptPubKeyJson(script: Uint8Array): Record<string, unknown> {
  const address = scriptAddress(script);
  return {
    asm: scriptAsm(script),
    desc: inferDescriptor(script),
    hex: toHex(script),
    ...(address ? { address } : {}),
    type: outputType(script),
  };
}

export function txJson(tx: SimTx, options: TxJsonOptions = {}): Record<string, unknown> {
  const coinbase = isCoinbaseTx(tx);
  const spent = coinbase ? undefined : options.spent;
  const vin = tx.inputs.map((input, i) => {
    const witness = input.witness.length ? { txinwitness: input.witness.map((w) => toHex(w)) } : {};
    if (coinbase) return { coinbase: toHex(input.scriptSig), ...witness, sequence: input.sequence };
    const coin = spent?.[i];
    return {
      txid: input.txid,
      vout: input.vout,
      scriptSig: { asm: scriptAsm(input.scriptSig, true), hex: toHex(input.scriptSig) },
      ...witness,
      ...(options.prevouts && coin
        ? { prevout: { generated: coin.coinbase, height: coin.height, value: new Btc(coin.valueSat), scriptPubKey: scriptPubKeyJson(coin.script) } }
        : {}),
      sequence: input.sequence,
    };
  });
  const vout = tx.outputs.map((o, n) => ({ value: new Btc(o.valueSat), n, scriptPubKey: scriptPubKeyJson(o.script) }));
  const json: Record<string, unknown> = {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.lockTime,
    vin,
    vout,
  };
  if (spent) {
    const inSat = spent.reduce((s, c) => s + c.valueSat, 0);
    json.fee = new Btc(inSat - tx.outputs.reduce((s, o) => s + o.valueSat, 0));
  }
  if (options.includeHex) json.hex = txHex(tx);
  return json;
}
