/**
 * ECDSA public-key recovery on secp256k1 → Ethereum address, as `ecrecover` does on chain.
 *
 * Uses libsecp256k1 through the `secp256k1` package's prebuilt N-API binding (~9k recoveries/s per
 * core on the CI machines) and falls back to @noble/curves (pure JS, correct, ~300-450/s) when the
 * binding cannot load. Both reject what USDC's `ECRecover.recover` rejects: high-s signatures and
 * `v` other than 27/28 (0/1 accepted and normalized, as viem's `parseSignature` does).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak256 as keccak_256 } from './keccak.js';
import { secp256k1Binding, type Secp256k1Binding } from '../util/secp256k1Native.js';

const native = secp256k1Binding;

/** Which implementation recovers signatures (reported by the benchmark). */
export const RECOVERY_BACKEND: 'libsecp256k1' | '@noble/curves' = native ? 'libsecp256k1' : '@noble/curves';

const N = secp256k1.Point.CURVE().n;
const HALF_N = N >> 1n;
/** N and N/2 as 32 big-endian bytes: r and s are range-checked on the signature's bytes, without BigInts. */
const N_BYTES = Buffer.from(N.toString(16).padStart(64, '0'), 'hex');
const HALF_N_BYTES = Buffer.from(HALF_N.toString(16).padStart(64, '0'), 'hex');
const ZERO_32 = Buffer.alloc(32);

/**
 * Public keys already proven to hash to an address, by address: a payer seen before is checked by
 * comparing the recovered key, skipping the keccak of the key. Bounded; cleared when full.
 */
const KNOWN_KEYS_MAX = 10_000;
const knownKeys = new Map<string, Buffer>();

/**
 * True when `signature` over `digest` was made by `address` (lower-case hex). Same rules as
 * `recoverAddress`; faster for returning payers.
 */
export function signedBy(digest: Uint8Array, signature: string, address: string): boolean {
  const publicKey = recoverPublicKey(digest, signature);
  if (publicKey === null) return false;
  const known = knownKeys.get(address);
  if (known) return known.equals(publicKey);
  if (addressOf(publicKey) !== address) return false;
  if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.clear();
  knownKeys.set(address, Buffer.from(publicKey));
  return true;
}

/**
 * Lower-case address that signed `digest`, or null when the signature is malformed, non-canonical (high s) or
 * does not recover. `signature` is 65 bytes of hex, `r ‖ s ‖ v`.
 * Complexity: one EC recovery (dominates), one keccak.
 */
export function recoverAddress(digest: Uint8Array, signature: string, backend: typeof RECOVERY_BACKEND = RECOVERY_BACKEND): string | null {
  const publicKey = recoverPublicKey(digest, signature, backend === 'libsecp256k1' ? native : null);
  return publicKey === null ? null : addressOf(publicKey);
}

function addressOf(publicKey: Uint8Array): string {
  return `0x${Buffer.from(keccak_256(publicKey.subarray(1)).subarray(12)).toString('hex')}`;
}

/** Uncompressed 65-byte public key, or null (malformed, high s, bad v, no recovery). */
function recoverPublicKey(digest: Uint8Array, signature: string, lib: Secp256k1Binding | null = native): Uint8Array | null {
  if (signature.length !== 2 + 130) return null;
  const sig = Buffer.from(signature.slice(2), 'hex');
  if (sig.length !== 65) return null;
  const v = sig.readUInt8(64);
  const recid = v >= 27 ? v - 27 : v;
  if (recid !== 0 && recid !== 1) return null;
  const r = sig.subarray(0, 32);
  const s = sig.subarray(32, 64);
  if (r.equals(ZERO_32) || r.compare(N_BYTES) >= 0 || s.equals(ZERO_32) || s.compare(HALF_N_BYTES) > 0) return null;
  try {
    return lib
      ? lib.ecdsaRecover(sig.subarray(0, 64), recid, digest, false)
      : new secp256k1.Signature(BigInt(`0x${r.toString('hex')}`), BigInt(`0x${s.toString('hex')}`), recid).recoverPublicKey(digest).toBytes(false);
  } catch {
    return null;
  }
}
