/**
 * Signature hashes for the input types the simulator signs, with the per-transaction parts
 * computed once (a 30-input consolidation costs 30 preimages, not 30 × 30 hashes):
 * - legacy SIGHASH_ALL (P2PKH), `SignatureHash` with SIGVERSION_BASE;
 * - BIP143 SIGHASH_ALL (P2WPKH, P2SH-P2WPKH, P2WSH);
 * - BIP341 SIGHASH_DEFAULT key-path spends (P2TR), no annex.
 * Checked against @scure/btc-signer's own preimages in test/simnet/signing.test.ts.
 */
import { ByteWriter } from './byteWriter.js';
import { fromDisplayHex, sha256, sha256d, taggedHash } from './hash.js';
import type { TxFields, TxOutput } from './txCodec.js';
import { at } from '../../util/at.js';

export const SIGHASH_ALL = 0x01;
export const SIGHASH_DEFAULT = 0x00;

export class SighashCache {
  private readonly outpoints: Uint8Array[];
  private bip143Parts: { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } | undefined;
  private bip341Parts: Uint8Array | undefined;

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

  /** Legacy SIGHASH_ALL digest of input `index` with `scriptCode` (the spent script). Complexity: O(tx size). */
  legacy(index: number, scriptCode: Uint8Array): Uint8Array {
    const w = new ByteWriter(256).u32(this.tx.version).varint(this.tx.inputs.length);
    for (const [i, input] of this.tx.inputs.entries()) {
      w.bytes(at(this.outpoints, i));
      w.varBytes(i === index ? scriptCode : new Uint8Array(0));
      w.u32(input.sequence);
    }
    w.varint(this.tx.outputs.length);
    for (const o of this.tx.outputs) w.u64(o.valueSat).varBytes(o.script);
    w.u32(this.tx.lockTime).u32(SIGHASH_ALL);
    return sha256d(w.finish());
  }

  /**
   * BIP143 SIGHASH_ALL digest of input `index`. `scriptCode` is the raw script code (P2WPKH: the
   * P2PKH script of the key hash; P2WSH: the witness script). Complexity: O(1) after the first call.
   */
  bip143(index: number, scriptCode: Uint8Array): Uint8Array {
    const parts = this.bip143Parts ?? (this.bip143Parts = this.computeBip143Parts());
    const input = at(this.tx.inputs, index);
    const w = new ByteWriter(160 + scriptCode.length)
      .u32(this.tx.version)
      .bytes(parts.prevouts)
      .bytes(parts.sequences)
      .bytes(at(this.outpoints, index))
      .varBytes(scriptCode)
      .u64(at(this.prevouts, index).valueSat)
      .u32(input.sequence)
      .bytes(parts.outputs)
      .u32(this.tx.lockTime)
      .u32(SIGHASH_ALL);
    return sha256d(w.finish());
  }

  /** BIP341 SIGHASH_DEFAULT digest of key-path input `index`. Complexity: O(1) after the first call. */
  bip341(index: number): Uint8Array {
    const common = this.bip341Parts ?? (this.bip341Parts = this.computeBip341Parts());
    const w = new ByteWriter(common.length + 8).bytes(common).u8(0x00 /* spend_type: key path, no annex */).u32(index);
    return taggedHash('TapSighash', w.finish());
  }

  private computeBip143Parts(): { prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array } {
    const prevouts = new ByteWriter(36 * this.outpoints.length);
    for (const o of this.outpoints) prevouts.bytes(o);
    const sequences = new ByteWriter(4 * this.tx.inputs.length);
    for (const i of this.tx.inputs) sequences.u32(i.sequence);
    return { prevouts: sha256d(prevouts.finish()), sequences: sha256d(sequences.finish()), outputs: sha256d(serializeOutputs(this.tx.outputs)) };
  }

  private computeBip341Parts(): Uint8Array {
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
    return new ByteWriter(1 + 1 + 8 + 5 * 32)
      .u8(0x00) // epoch
      .u8(SIGHASH_DEFAULT)
      .u32(this.tx.version)
      .u32(this.tx.lockTime)
      .bytes(sha256(prevouts.finish()))
      .bytes(sha256(amounts.finish()))
      .bytes(sha256(scripts.finish()))
      .bytes(sha256(sequences.finish()))
      .bytes(sha256(serializeOutputs(this.tx.outputs)))
      .finish();
  }
}

function serializeOutputs(outputs: readonly TxOutput[]): Uint8Array {
  const w = new ByteWriter(43 * outputs.length);
  for (const o of outputs) w.u64(o.valueSat).varBytes(o.script);
  return w.finish();
}
