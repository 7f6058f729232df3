/**
 * Wrongly signed copies of a signed transaction, for relay tests on both nodes: the same
 * transaction (same txid for segwit inputs, same fee) whose signature no longer verifies, or with
 * its signatures removed. Works on any serialized transaction (@scure/btc-signer's `RawTx`).
 */
import { RawTx } from '@scure/btc-signer';

/**
 * Flips one bit of input `index`'s signature: the last byte of a 64-byte Schnorr signature, or the
 * byte before the sighash type of a DER one (still strict DER, still low S).
 */
export function withBadSignature(hex: string, index = 0): string {
  const tx = RawTx.decode(Buffer.from(hex, 'hex'));
  const input = tx.inputs[index];
  if (!input) throw new Error(`no input ${index}`);
  const witness = tx.witnesses?.[index];
  const flip = (sig: Uint8Array): Uint8Array => {
    const out = Uint8Array.from(sig);
    const at = sig.length === 64 ? 63 : sig.length - 2;
    out[at] = (out[at] ?? 0) ^ 1;
    return out;
  };
  if (witness && witness.length > 0 && witness[0]) {
    witness[0] = flip(witness[0]);
  } else {
    // P2PKH: <push sig> <push pubkey>
    const script = input.finalScriptSig;
    const sigLen = script[0] ?? 0;
    input.finalScriptSig = Uint8Array.from([sigLen, ...flip(script.subarray(1, 1 + sigLen)), ...script.subarray(1 + sigLen)]);
  }
  return Buffer.from(RawTx.encode(tx)).toString('hex');
}

/** The transaction with every scriptSig and witness removed (what an unsigned draft looks like). */
export function withoutSignatures(hex: string): string {
  const tx = RawTx.decode(Buffer.from(hex, 'hex'));
  for (const input of tx.inputs) input.finalScriptSig = new Uint8Array(0);
  return Buffer.from(RawTx.encode({ ...tx, segwitFlag: false, witnesses: undefined })).toString('hex');
}
