/**
 * The simulator's transaction record and its wire encoding. Serialization and parsing go through
 * @scure/btc-signer's `RawTx`; txid = double SHA-256 of the serialization without witness, wtxid =
 * double SHA-256 of the full serialization, weight = 3 × base size + total size (BIP141).
 */
import { RawTx } from '@scure/btc-signer';
import { MAX_MONEY_SAT, WITNESS_SCALE_FACTOR } from '../consensus/params.js';
import { displayHex, sha256d } from './hash.js';

export interface TxInput {
  /** Spent txid, display hex (all zeros for a coinbase). */
  txid: string;
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
  /** Witness stack; empty when the input has none. */
  witness: Uint8Array[];
}

export interface TxOutput {
  valueSat: number;
  script: Uint8Array;
}

export interface TxFields {
  version: number;
  lockTime: number;
  inputs: TxInput[];
  outputs: TxOutput[];
}

/** A fully serialized transaction with its hashes and sizes. Immutable once built. */
export interface SimTx extends TxFields {
  txid: string;
  wtxid: string;
  /** Full serialization (with witness when any input has one). */
  raw: Uint8Array;
  /** Bytes of `raw`. */
  size: number;
  /** Bytes without witness. */
  baseSize: number;
  weight: number;
  /** BIP141 virtual size, ⌈weight / 4⌉. */
  vsize: number;
  hasWitness: boolean;
}

export const NULL_TXID = '0'.repeat(64);

export function isCoinbaseTx(tx: TxFields): boolean {
  const [first] = tx.inputs;
  return tx.inputs.length === 1 && first?.txid === NULL_TXID && first.vout === 0xffffffff;
}

/** Serializes, hashes and measures `fields`. Complexity: O(size). */
export function buildTx(fields: TxFields): SimTx {
  const hasWitness = fields.inputs.some((i) => i.witness.length > 0);
  const inputs = fields.inputs.map((i) => ({
    txid: Buffer.from(i.txid, 'hex'), // RawTx takes display order and writes it reversed
    index: i.vout,
    finalScriptSig: i.scriptSig,
    sequence: i.sequence,
  }));
  const outputs = fields.outputs.map((o) => ({ amount: BigInt(o.valueSat), script: o.script }));
  const base = RawTx.encode({ version: fields.version, segwitFlag: false, inputs, outputs, witnesses: undefined, lockTime: fields.lockTime });
  const raw = hasWitness
    ? RawTx.encode({ version: fields.version, segwitFlag: true, inputs, outputs, witnesses: fields.inputs.map((i) => i.witness), lockTime: fields.lockTime })
    : base;
  const txid = displayHex(sha256d(base));
  const wtxid = hasWitness ? displayHex(sha256d(raw)) : txid;
  const weight = base.length * (WITNESS_SCALE_FACTOR - 1) + raw.length;
  return {
    ...fields,
    txid,
    wtxid,
    raw,
    size: raw.length,
    baseSize: base.length,
    weight,
    vsize: Math.ceil(weight / WITNESS_SCALE_FACTOR),
    hasWitness,
  };
}

/** Decoded input and output as btc-signer's `RawInput`/`RawOutput` give them (its `RawTx` declaration elides these fields to `any`). */
interface DecodedInput {
  txid: Uint8Array;
  index: number;
  finalScriptSig: Uint8Array;
  sequence: number;
}
interface DecodedOutput {
  amount: bigint;
  script: Uint8Array;
}

/** Why bytes are not a transaction (Core answers these with -22 "TX decode failed"). */
export class TxDecodeError extends Error {}

/**
 * Parses a serialized transaction (with or without witness). Rejects trailing bytes and a witness
 * flag with only empty witnesses ("superfluous witness record"), as Core's decoder does.
 * @throws TxDecodeError
 */
export function decodeTx(raw: Uint8Array): SimTx {
  let decoded: ReturnType<typeof RawTx.decode>;
  try {
    decoded = RawTx.decode(raw);
  } catch (error) {
    throw new TxDecodeError(error instanceof Error ? error.message : String(error));
  }
  const witnesses = decoded.witnesses ?? [];
  if (decoded.segwitFlag && witnesses.every((w) => w.length === 0)) throw new TxDecodeError('superfluous witness record');
  const fields: TxFields = {
    version: decoded.version,
    lockTime: decoded.lockTime,
    inputs: (decoded.inputs as DecodedInput[]).map((i, n) => ({
      txid: Buffer.from(i.txid).toString('hex'),
      vout: i.index,
      scriptSig: i.finalScriptSig,
      sequence: i.sequence,
      witness: witnesses[n] ?? [],
    })),
    // Amounts above MAX_MONEY cannot be represented exactly; they are clamped above it so that
    // the consensus check still refuses them.
    outputs: (decoded.outputs as DecodedOutput[]).map((o) => ({
      valueSat: o.amount > BigInt(MAX_MONEY_SAT) ? MAX_MONEY_SAT + 1 : Number(o.amount),
      script: o.script,
    })),
  };
  const tx = buildTx(fields);
  if (tx.size !== raw.length) throw new TxDecodeError('non-canonical encoding');
  return tx;
}

/** Hex of the serialization. */
export function txHex(tx: SimTx): string {
  return Buffer.from(tx.raw.buffer, tx.raw.byteOffset, tx.raw.byteLength).toString('hex');
}

/** Outpoint key used by every index: `txid:vout`. */
export function outpointKey(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}
