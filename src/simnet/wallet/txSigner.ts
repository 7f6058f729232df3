/**
 * Signs a transaction whose inputs all belong to simulator addresses, and estimates signed sizes
 * before signing (so fees can be set from a fee rate). Input scripts by type:
 * - P2WPKH: witness `[sig, pubkey]`;      P2SH-P2WPKH: scriptSig `<0014…>` + the same witness;
 * - P2PKH: scriptSig `<sig> <pubkey>`;    P2WSH: witness `[sig, <pubkey> OP_CHECKSIG]`;
 * - P2TR: witness `[schnorr sig]` (key path, SIGHASH_DEFAULT).
 */
import { ByteWriter, varintSize } from '../tx/byteWriter.js';
import type { AddressType, SimAddress } from './keys.js';
import { SIGHASH_ALL, SighashCache } from '../tx/sighash.js';
import { signEcdsaDer, signSchnorr } from '../tx/signer.js';
import { buildTx, type SimTx, type TxFields, type TxOutput } from '../tx/txCodec.js';
import { at } from '../../util/at.js';

export interface SpendInput {
  txid: string;
  vout: number;
  sequence: number;
  /** The spent output. */
  prevout: TxOutput;
  /** The simulator address that owns `prevout`. */
  owner: SimAddress;
}

export interface UnsignedSpend {
  version: number;
  lockTime: number;
  inputs: SpendInput[];
  outputs: TxOutput[];
}

/** Signs every input. Complexity: one signature per input plus O(tx size) hashing. */
export function signSpend(spend: UnsignedSpend): SimTx {
  const fields: TxFields = {
    version: spend.version,
    lockTime: spend.lockTime,
    inputs: spend.inputs.map((i) => ({ txid: i.txid, vout: i.vout, sequence: i.sequence, scriptSig: EMPTY, witness: [] })),
    outputs: spend.outputs,
  };
  const cache = new SighashCache(
    fields,
    spend.inputs.map((i) => i.prevout),
  );
  for (const [index, { owner }] of spend.inputs.entries()) {
    const target = at(fields.inputs, index);
    switch (owner.type) {
      case 'p2wpkh':
        target.witness = [ecdsa(cache.bip143(index, owner.scriptCode), owner), owner.publicKey];
        break;
      case 'p2sh-p2wpkh':
        target.scriptSig = pushData(owner.redeemScript);
        target.witness = [ecdsa(cache.bip143(index, owner.scriptCode), owner), owner.publicKey];
        break;
      case 'p2pkh': {
        const sig = ecdsa(cache.legacy(index, owner.scriptCode), owner);
        target.scriptSig = new ByteWriter(sig.length + owner.publicKey.length + 2).bytes(pushData(sig)).bytes(pushData(owner.publicKey)).finish();
        break;
      }
      case 'p2wsh':
        target.witness = [ecdsa(cache.bip143(index, owner.scriptCode), owner), owner.witnessScript];
        break;
      case 'p2tr': {
        const digest = cache.bip341(index);
        if (!digest) throw new Error('SIGHASH_DEFAULT always has a BIP341 digest');
        target.witness = [signSchnorr(digest, owner.taprootKey)];
        break;
      }
    }
  }
  return buildTx(fields);
}

const EMPTY = new Uint8Array(0);

function ecdsa(sighash: Uint8Array, owner: SimAddress): Uint8Array {
  const der = signEcdsaDer(sighash, owner.secret);
  const sig = new Uint8Array(der.length + 1);
  sig.set(der, 0);
  sig[der.length] = SIGHASH_ALL;
  return sig;
}

/** Minimal push of up to 75 bytes (all our pushes are signatures, keys and a 22-byte redeem script). */
function pushData(data: Uint8Array): Uint8Array {
  if (data.length > 75) throw new Error('push too large for a direct push');
  const out = new Uint8Array(data.length + 1);
  out[0] = data.length;
  out.set(data, 1);
  return out;
}

/** Signed input sizes by type, assuming 72-byte DER signatures (the maximum with low S): [scriptSig bytes, witness bytes]. */
const INPUT_SIZES: Record<AddressType, [number, number]> = {
  p2wpkh: [0, 1 + 1 + 73 + 1 + 33],
  'p2sh-p2wpkh': [23, 1 + 1 + 73 + 1 + 33],
  p2pkh: [1 + 73 + 1 + 33, 0],
  p2wsh: [0, 1 + 1 + 73 + 1 + 35],
  p2tr: [0, 1 + 1 + 64],
};

/**
 * Upper bound of the signed weight of a transaction with inputs of `inputTypes` and `outputs`
 * (actual DER signatures are 0–2 bytes shorter). Complexity: O(inputs + outputs).
 */
export function estimateWeight(inputTypes: readonly AddressType[], outputs: readonly TxOutput[]): number {
  let base = 4 + 4 + varintSize(inputTypes.length) + varintSize(outputs.length);
  for (const o of outputs) base += 8 + varintSize(o.script.length) + o.script.length;
  let witness = 0;
  for (const t of inputTypes) {
    const [scriptSig, wit] = INPUT_SIZES[t];
    base += 32 + 4 + 4 + varintSize(scriptSig) + scriptSig;
    witness += wit;
  }
  if (witness > 0) witness += 2 + inputTypes.filter((t) => INPUT_SIZES[t][1] === 0).length; // marker, flag, empty stacks
  return base * 4 + witness;
}
