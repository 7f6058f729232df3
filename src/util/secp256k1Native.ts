/**
 * The `secp256k1` package's libsecp256k1 binding (prebuilt N-API, no compile), loaded once.
 * Only its bindings entry: the package index silently falls back to the slow `elliptic`, while our
 * callers fall back to @noble/curves themselves. Null when the binding cannot load.
 */
import { createRequire } from 'node:module';

export interface Secp256k1Binding {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  signatureExport(signature: Uint8Array): Uint8Array;
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array;
  /** Lax-DER to 64-byte compact; throws when it cannot be parsed. */
  signatureImport(der: Uint8Array): Uint8Array;
  /** Lowers S in place (libsecp256k1 verifies low-S signatures only). */
  signatureNormalize(signature: Uint8Array): Uint8Array;
  /** Throws when the public key cannot be parsed. */
  ecdsaVerify(signature: Uint8Array, msg32: Uint8Array, publicKey: Uint8Array): boolean;
  publicKeyVerify(publicKey: Uint8Array): boolean;
  publicKeyNegate(publicKey: Uint8Array, compressed: boolean): Uint8Array;
  /** Throws when the sum is the point at infinity. */
  publicKeyCombine(publicKeys: Uint8Array[], compressed: boolean): Uint8Array;
  /** Throws when the tweak is zero or not below the group order. */
  publicKeyTweakMul(publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
}

function load(): Secp256k1Binding | null {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as Secp256k1Binding;
  } catch {
    return null;
  }
}

export const secp256k1Binding: Secp256k1Binding | null = load();
