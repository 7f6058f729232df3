/**
 * ECDSA and BIP340 Schnorr signatures for the simulator's own keys, as fast as this machine allows:
 * the point multiplication (the only expensive step) runs in libsecp256k1 through the `secp256k1`
 * package's prebuilt binding (~80 µs per signature here, against ~750 µs for pure JS); when the binding
 * cannot load, @noble/curves does the same computation. Both paths give identical bytes:
 * - ECDSA: RFC6979 deterministic nonce, low-S, DER-encoded (what Core's signer produces, minus low-R grinding);
 * - Schnorr: BIP340 with an all-zero `aux_rand`, so signatures are deterministic (BIP340 allows any aux).
 * Signatures are deterministic so that a seed reproduces wtxids, witness commitments and block hashes.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { taggedHash } from './hash.js';
import { secp256k1Binding } from '../../util/secp256k1Native.js';

const native = secp256k1Binding;

/** Which implementation multiplies points (reported in the simulator's stats and bench). */
export const SIGNING_BACKEND: 'libsecp256k1' | '@noble/curves' = native ? 'libsecp256k1' : '@noble/curves';

const N = secp256k1.Point.CURVE().n;
const AUX_HASH = taggedHash('BIP0340/aux', new Uint8Array(32));

/** Compressed public key (33 bytes) of a 32-byte secret. */
export function publicKey33(secret: Uint8Array): Uint8Array {
  return native ? native.publicKeyCreate(secret, true) : secp256k1.getPublicKey(secret, true);
}

/**
 * DER ECDSA signature of a 32-byte sighash (without the sighash-type byte). Low-S, RFC6979.
 * Complexity: one fixed-base point multiplication.
 */
export function signEcdsaDer(msg32: Uint8Array, secret: Uint8Array): Uint8Array {
  if (native) return native.signatureExport(native.ecdsaSign(msg32, secret).signature);
  return secp256k1.sign(msg32, secret, { prehash: false, lowS: true, format: 'der' });
}

/** A Schnorr signing key in BIP340 form: secret negated so its point has even Y, and that point's x. */
export interface SchnorrKey {
  d: bigint;
  px: Uint8Array;
}

/** BIP340 key of a 32-byte secret (for P2TR: the already tweaked secret). */
export function schnorrKey(secret: Uint8Array): SchnorrKey {
  const p = publicKey33(secret);
  const d0 = bytesToBigInt(secret);
  return { d: p[0] === 0x02 ? d0 : N - d0, px: p.slice(1) };
}

/**
 * BIP340 signature (64 bytes) of a 32-byte message with an all-zero `aux_rand`.
 * Complexity: one fixed-base point multiplication and three tagged hashes.
 */
export function signSchnorr(msg32: Uint8Array, key: SchnorrKey): Uint8Array {
  const t = bigIntToBytes(key.d ^ bytesToBigInt(AUX_HASH));
  const rand = taggedHash('BIP0340/nonce', t, key.px, msg32);
  const k0 = bytesToBigInt(rand) % N;
  if (k0 === 0n) throw new Error('BIP340 nonce is zero'); // probability ~2^-256
  const r = publicKey33(bigIntToBytes(k0));
  const k = r[0] === 0x02 ? k0 : N - k0;
  const rx = r.slice(1);
  const e = bytesToBigInt(taggedHash('BIP0340/challenge', rx, key.px, msg32)) % N;
  const sig = new Uint8Array(64);
  sig.set(rx, 0);
  sig.set(bigIntToBytes((k + e * key.d) % N), 32);
  return sig;
}

export function bytesToBigInt(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
}

export function bigIntToBytes(n: bigint): Uint8Array {
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}
