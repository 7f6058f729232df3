/**
 * Signature hashes, with the per-transaction parts computed once (a 30-input consolidation costs
 * 30 preimages, not 30 × 30 hashes), for every hash type Core accepts:
 * - legacy `SignatureHash` with SIGVERSION_BASE (P2PKH, P2PK), including the SIGHASH_SINGLE bug;
 * - BIP143 (P2WPKH, P2SH-P2WPKH, P2WSH);
 * - BIP341 key-path spends (P2TR), no annex.
 * The simulator signs with SIGHASH_ALL / SIGHASH_DEFAULT; the other types serve the verifier (a
 * transaction relayed to the simulated node may use them). Checked against @scure/btc-signer's own
 * preimages in test/simnet/signing.test.ts.
 */
import { ByteWriter } from './byteWriter.js';
import { fromDisplayHex, sha256, sha256d, taggedHash } from './hash.js';
import type { TxFields, TxOutput } from './txCodec.js';
import { at } from '../../util/at.js';

export const SIGHASH_DEFAULT = 0x00;
export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;

/** Legacy SIGHASH_SINGLE with no matching output signs the number 1 (Core's `uint256::ONE`). */
const ONE = (() => {
  const one = new Uint8Array(32);
  one[0] = 1;
  return one;
})();
const ZERO32 = new Uint8Array(32);
const NULL_OUTPUT = new ByteWriter(9).bytes(new Uint8Array(8).fill(0xff)).u8(0).finish(); // value -1, empty script

/** BIP341 hash types (`SIGHASH_DEFAULT`, ALL, NONE, SINGLE, each but DEFAULT with ANYONECANPAY). */
export function isValidTaprootHashType(hashType: number): boolean {
  return (
    hashType === SIGHASH_DEFAULT ||
    (hashType & ~SIGHASH_ANYONECANPAY) === SIGHASH_ALL ||
    (hashType & ~SIGHASH_ANYONECANPAY) === SIGHASH_NONE ||
    (hashType & ~SIGHASH_ANYONECANPAY) === SIGHASH_SINGLE
  );
}

export class SighashCache {
  private readonly outpoints: Uint8Array[];
  private bip143Parts: { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } | undefined;
  private bip341Parts: { prevouts: Uint8Array; amounts: Uint8Array; scripts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } | undefined;

  /**
   * @param tx the unsigned transaction (scriptSigs and witnesses are ignored)
   * @param prevouts the outputs the inputs spend, in input order (BIP341 commits to all of them)
   */
  constructor(
    private readonly tx: TxFields,
    private readonly prevouts: readonly TxOutput[],
  ) {
    this.outpoints = tx.inputs.map((i) => new ByteWriter(36).bytes(fromDisplayHex(i.txid)).u32(i.vout).finish());
  }

  /**
   * Legacy digest of input `index` with `scriptCode` (the spent script; ours never holds
   * OP_CODESEPARATOR or the signature, so nothing is deleted from it). `hashType` is the signature's
   * last byte, committed to in full. Complexity: O(tx size).
   */
  legacy(index: number, scriptCode: Uint8Array, hashType = SIGHASH_ALL): Uint8Array {
    const base = hashType & 0x1f;
    const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
    if (base === SIGHASH_SINGLE && index >= this.tx.outputs.length) return ONE;
    const w = new ByteWriter(256).u32(this.tx.version).varint(anyoneCanPay ? 1 : this.tx.inputs.length);
    for (const [i, input] of this.tx.inputs.entries()) {
      if (anyoneCanPay && i !== index) continue;
      w.bytes(at(this.outpoints, i));
      w.varBytes(i === index ? scriptCode : new Uint8Array(0));
      w.u32(i !== index && (base === SIGHASH_NONE || base === SIGHASH_SINGLE) ? 0 : input.sequence);
    }
    const outputCount = base === SIGHASH_NONE ? 0 : base === SIGHASH_SINGLE ? index + 1 : this.tx.outputs.length;
    w.varint(outputCount);
    for (let o = 0; o < outputCount; o++) {
      const output = at(this.tx.outputs, o);
      if (base === SIGHASH_SINGLE && o !== index) w.bytes(NULL_OUTPUT);
      else w.u64(output.valueSat).varBytes(output.script);
    }
    w.u32(this.tx.lockTime).u32(hashType);
    return sha256d(w.finish());
  }

  /**
   * BIP143 digest of input `index`. `scriptCode` is the raw script code (P2WPKH: the P2PKH script
   * of the key hash; P2WSH: the witness script). Complexity: O(1) after the first call (O(1) output
   * hash for SIGHASH_SINGLE).
   */
  bip143(index: number, scriptCode: Uint8Array, hashType = SIGHASH_ALL): Uint8Array {
    const parts = this.bip143Parts ?? (this.bip143Parts = this.computeBip143Parts());
    const base = hashType & 0x1f;
    const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
    const single = base === SIGHASH_SINGLE;
    const none = base === SIGHASH_NONE;
    const input = at(this.tx.inputs, index);
    let outputs: Uint8Array = ZERO32;
    if (!single && !none) outputs = parts.outputs;
    else if (single && index < this.tx.outputs.length) outputs = sha256d(serializeOutputs([at(this.tx.outputs, index)]));
    const w = new ByteWriter(160 + scriptCode.length)
      .u32(this.tx.version)
      .bytes(anyoneCanPay ? ZERO32 : parts.prevouts)
      .bytes(anyoneCanPay || single || none ? ZERO32 : parts.sequences)
      .bytes(at(this.outpoints, index))
      .varBytes(scriptCode)
      .u64(at(this.prevouts, index).valueSat)
      .u32(input.sequence)
      .bytes(outputs)
      .u32(this.tx.lockTime)
      .u32(hashType);
    return sha256d(w.finish());
  }

  /**
   * BIP341 digest of key-path input `index` (no annex), or undefined when `hashType` is not a
   * valid Taproot hash type or is SIGHASH_SINGLE without a matching output (Core then fails the
   * signature with "Invalid Schnorr signature hash type"). Complexity: O(1) after the first call.
   */
  bip341(index: number, hashType = SIGHASH_DEFAULT): Uint8Array | undefined {
    if (!isValidTaprootHashType(hashType)) return undefined;
    const parts = this.bip341Parts ?? (this.bip341Parts = this.computeBip341Parts());
    const base = hashType & 0x03;
    const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
    if (base === SIGHASH_SINGLE && index >= this.tx.outputs.length) return undefined;
    const w = new ByteWriter(256).u8(0x00 /* epoch */).u8(hashType).u32(this.tx.version).u32(this.tx.lockTime);
    if (!anyoneCanPay) w.bytes(parts.prevouts).bytes(parts.amounts).bytes(parts.scripts).bytes(parts.sequences);
    if (base !== SIGHASH_NONE && base !== SIGHASH_SINGLE) w.bytes(parts.outputs);
    w.u8(0x00); // spend_type: key path, no annex
    if (anyoneCanPay) {
      const prevout = at(this.prevouts, index);
      w.bytes(at(this.outpoints, index)).u64(prevout.valueSat).varBytes(prevout.script).u32(at(this.tx.inputs, index).sequence);
    } else {
      w.u32(index);
    }
    if (base === SIGHASH_SINGLE) w.bytes(sha256(serializeOutputs([at(this.tx.outputs, index)])));
    return taggedHash('TapSighash', w.finish());
  }

  private computeBip143Parts(): { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } {
    const prevouts = new ByteWriter(36 * this.outpoints.length);
    for (const o of this.outpoints) prevouts.bytes(o);
    const sequences = new ByteWriter(4 * this.tx.inputs.length);
    for (const i of this.tx.inputs) sequences.u32(i.sequence);
    return { prevouts: sha256d(prevouts.finish()), sequences: sha256d(sequences.finish()), outputs: sha256d(serializeOutputs(this.tx.outputs)) };
  }

  private computeBip341Parts(): { prevouts: Uint8Array; amounts: Uint8Array; scripts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } {
    const prevouts = new ByteWriter(36 * this.outpoints.length);
    for (const o of this.outpoints) prevouts.bytes(o);
    const amounts = new ByteWriter(8 * this.prevouts.length);
    const scripts = new ByteWriter(35 * this.prevouts.length);
    for (const p of this.prevouts) {
      amounts.u64(p.valueSat);
      scripts.varBytes(p.script);
    }
    const sequences = new ByteWriter(4 * this.tx.inputs.length);
    for (const i of this.tx.inputs) sequences.u32(i.sequence);
    return {
      prevouts: sha256(prevouts.finish()),
      amounts: sha256(amounts.finish()),
      scripts: sha256(scripts.finish()),
      sequences: sha256(sequences.finish()),
      outputs: sha256(serializeOutputs(this.tx.outputs)),
    };
  }
}

function serializeOutputs(outputs: readonly TxOutput[]): Uint8Array {
  const w = new ByteWriter(43 * outputs.length);
  for (const o of outputs) w.u64(o.valueSat).varBytes(o.script);
  return w.finish();
}
