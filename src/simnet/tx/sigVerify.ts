/**
 * Signature verification for the simulated node's script checks, on libsecp256k1 (the `secp256k1`
 * package's binding) when it loads, else @noble/curves; both answer the same:
 * - ECDSA as Core's `CPubKey::Verify`: lax-DER parse, S normalized, then verify (strict DER and
 *   low S are policy checks made before, by the caller);
 * - BIP340 Schnorr. The binding has no Schnorr verify, so it is computed from its point operations:
 *   R = s·G − e·P must have even Y and x = r (two point multiplications in C, ~0.1 ms, against
 *   ~1 ms for pure JS). Any case the binding refuses (s = 0, e = 0, R at infinity) is decided by
 *   @noble/curves, which implements BIP340 verbatim.
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { taggedHash } from './hash.js';
import { bigIntToBytes, bytesToBigInt } from './signer.js';
import { secp256k1Binding } from '../../util/secp256k1Native.js';

const native = secp256k1Binding;
const N = secp256k1.Point.CURVE().n;
const P = secp256k1.Point.CURVE().p;

/** ECDSA signature (DER, without the sighash byte) of `msg32` by `publicKey` (33 or 65 bytes). */
export function verifyEcdsa(der: Uint8Array, msg32: Uint8Array, publicKey: Uint8Array): boolean {
  if (native) {
    try {
      const compact = native.signatureNormalize(native.signatureImport(der));
      return native.ecdsaVerify(compact, msg32, publicKey);
    } catch {
      return false; // unparsable signature or key: Core's Verify is false too
    }
  }
  try {
    return secp256k1.verify(der, msg32, publicKey, { prehash: false, lowS: false, format: 'der' });
  } catch {
    return false;
  }
}

/** BIP340 signature (64 bytes) of `msg32` by the x-only key `xOnly` (32 bytes). */
export function verifySchnorr(sig: Uint8Array, msg32: Uint8Array, xOnly: Uint8Array): boolean {
  if (sig.length !== 64 || xOnly.length !== 32) return false;
  if (native) {
    const r = sig.subarray(0, 32);
    const s = sig.subarray(32, 64);
    if (bytesToBigInt(r) >= P || bytesToBigInt(s) >= N) return false;
    const lifted = new Uint8Array(33);
    lifted[0] = 0x02;
    lifted.set(xOnly, 1);
    if (!native.publicKeyVerify(lifted)) return false; // x is not on the curve
    const e = bytesToBigInt(taggedHash('BIP0340/challenge', r, xOnly, msg32)) % N;
    try {
      const sG = native.publicKeyCreate(s, true);
      const minusEP = native.publicKeyNegate(native.publicKeyTweakMul(lifted, bigIntToBytes(e), true), true);
      const point = native.publicKeyCombine([sG, minusEP], true);
      return point[0] === 0x02 && Buffer.compare(point.subarray(1), r) === 0;
    } catch {
      // s = 0, e = 0 or R at infinity: rare enough for the pure-JS path
    }
  }
  try {
    return schnorr.verify(sig, msg32, xOnly);
  } catch {
    return false;
  }
}
