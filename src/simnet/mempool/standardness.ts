/**
 * Context-free checks of a loose transaction, with Core's reject reasons: consensus
 * `CheckTransaction` (src/consensus/tx_check.cpp), policy `IsStandardTx` (src/policy/policy.cpp)
 * including dust (`GetDustThreshold` at 3 sat/vB), and `IsFinalTx`.
 */
import {
  DUST_RELAY_FEE_SAT_KVB,
  LOCKTIME_THRESHOLD,
  MAX_BLOCK_WEIGHT_WU,
  MAX_DATACARRIER_BYTES,
  MAX_MONEY_SAT,
  MAX_STANDARD_SCRIPTSIG_SIZE,
  MAX_STANDARD_TX_WEIGHT_WU,
  MIN_STANDARD_TX_NONWITNESS_SIZE,
  SEQUENCE_FINAL,
} from '../consensus/params.js';
import { isPushOnly, outputType, witnessProgram } from '../tx/script.js';
import { isCoinbaseTx, outpointKey, type SimTx } from '../tx/txCodec.js';
import { varintSize } from '../tx/byteWriter.js';

/** A failed check: Core's reject reason and optional detail. */
export interface Rejection {
  reason: string;
  details?: string;
}

/** Smallest value an output of `script` may carry (`GetDustThreshold`); 0 for unspendable outputs. */
export function dustThresholdSat(script: Uint8Array): number {
  if (script.length > 0 && script[0] === 0x6a) return 0;
  let size = 8 + varintSize(script.length) + script.length;
  // Spending input: outpoint 36 + sequence 4 + scriptSig length 1, plus a signature+key of 107
  // bytes, witness-discounted for witness programs.
  size += witnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return Math.ceil((DUST_RELAY_FEE_SAT_KVB * size) / 1000);
}

/** `CheckTransaction`: structure and amounts. */
export function checkTransaction(tx: SimTx): Rejection | undefined {
  if (tx.inputs.length === 0) return { reason: 'bad-txns-vin-empty' };
  if (tx.outputs.length === 0) return { reason: 'bad-txns-vout-empty' };
  if (tx.baseSize * 4 > MAX_BLOCK_WEIGHT_WU) return { reason: 'bad-txns-oversize' };
  let total = 0;
  for (const o of tx.outputs) {
    if (o.valueSat < 0) return { reason: 'bad-txns-vout-negative' };
    if (o.valueSat > MAX_MONEY_SAT) return { reason: 'bad-txns-vout-toolarge' };
    total += o.valueSat;
    if (total > MAX_MONEY_SAT) return { reason: 'bad-txns-txouttotal-toolarge' };
  }
  const seen = new Set<string>();
  for (const i of tx.inputs) {
    const key = outpointKey(i.txid, i.vout);
    if (seen.has(key)) return { reason: 'bad-txns-inputs-duplicate' };
    seen.add(key);
  }
  const [first] = tx.inputs;
  if (first && isCoinbaseTx(tx)) {
    const n = first.scriptSig.length;
    if (n < 2 || n > 100) return { reason: 'bad-cb-length' };
  } else if (tx.inputs.some((i) => i.txid === '0'.repeat(64) && i.vout === 0xffffffff)) {
    return { reason: 'bad-txns-prevout-null' };
  }
  return undefined;
}

/** `IsStandardTx` (v30+ defaults: datacarrier 100 kB total, bare multisig permitted, one dust output not allowed). */
export function checkStandard(tx: SimTx): Rejection | undefined {
  if (tx.version < 1 || tx.version > 3) return { reason: 'version' };
  if (tx.weight > MAX_STANDARD_TX_WEIGHT_WU) return { reason: 'tx-size' };
  for (const i of tx.inputs) {
    if (i.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return { reason: 'scriptsig-size' };
    if (!isPushOnly(i.scriptSig)) return { reason: 'scriptsig-not-pushonly' };
  }
  let dataBytes = 0;
  for (const o of tx.outputs) {
    const type = outputType(o.script);
    if (type === 'nonstandard') return { reason: 'scriptpubkey' };
    if (type === 'nulldata') {
      dataBytes += o.script.length;
      continue;
    }
    if (o.valueSat < dustThresholdSat(o.script) && type !== 'anchor') return { reason: 'dust' };
  }
  if (dataBytes > MAX_DATACARRIER_BYTES) return { reason: 'datacarrier' };
  if (tx.baseSize < MIN_STANDARD_TX_NONWITNESS_SIZE) return { reason: 'tx-size-small' };
  return undefined;
}

/**
 * `IsFinalTx` for inclusion in the next block: `nextHeight` is tip + 1 and `medianTimePast` the
 * tip's (BIP113).
 */
export function isFinal(tx: SimTx, nextHeight: number, medianTimePast: number): boolean {
  if (tx.lockTime === 0) return true;
  const limit = tx.lockTime < LOCKTIME_THRESHOLD ? nextHeight : medianTimePast;
  if (tx.lockTime < limit) return true;
  return tx.inputs.every((i) => i.sequence === SEQUENCE_FINAL);
}
