/**
 * ECDSA public-key recovery on secp256k1 → Ethereum address, as `ecrecover` does on chain.
 *
 * Uses libsecp256k1 through the `secp256k1` package's prebuilt N-API binding (~9k recoveries/s per
 * core on the CI machines) and falls back to @noble/curves (pure JS, correct, ~300-450/s) when the
 * binding cannot load. Both reject what USDC's `ECRecover.recover` rejects: high-s signatures and
 * `v` other than 27/28 (0/1 accepted and normalized, as viem's `parseSignature` does).
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

function loadNative(): NativeSecp256k1 | null {
  try {
    // The bindings entry only (not the package index, which silently falls back to `elliptic`).
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return null;
  }
}

const native = loadNative();

/** Which implementation recovers signatures (reported by the benchmark). */
export const RECOVERY_BACKEND: 'libsecp256k1' | '@noble/curves' = native ? 'libsecp256k1' : '@noble/curves';

const N = secp256k1.Point.CURVE().n;
const HALF_N = N >> 1n;

/**
 * Lower-case address that signed `digest`, or null when the signature is malformed, non-canonical (high s) or
 * does not recover. `signature` is 65 bytes of hex, `r ‖ s ‖ v`.
 * Complexity: one EC recovery (dominates), one keccak.
 */
export function recoverAddress(digest: Uint8Array, signature: string): string | null {
  if (signature.length !== 2 + 130) return null;
  const sig = Buffer.from(signature.slice(2), 'hex');
  const v = sig[64]!;
  const recid = v >= 27 ? v - 27 : v;
  if (recid !== 0 && recid !== 1) return null;
  const r = bytesToBigInt(sig.subarray(0, 32));
  const s = bytesToBigInt(sig.subarray(32, 64));
  if (r === 0n || r >= N || s === 0n || s > HALF_N) return null;
  let publicKey: Uint8Array;
  try {
    publicKey = native
      ? native.ecdsaRecover(sig.subarray(0, 64), recid, digest, false)
      : new secp256k1.Signature(r, s, recid).recoverPublicKey(digest).toBytes(false);
  } catch {
    return null;
  }
  const hash = keccak_256(publicKey.subarray(1));
  return `0x${Buffer.from(hash.subarray(12)).toString('hex')}`;
}

function bytesToBigInt(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}
