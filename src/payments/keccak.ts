/**
 * keccak-256 for the payment hot path. js-sha3 is ~3× faster than @noble/hashes on the small
 * inputs hashed per payment (224 + 66 + 64 bytes: ~11 µs vs ~40 µs for 224 bytes on the CI machines);
 * the tests cross-check every digest with viem (which hashes with @noble/hashes).
 */
import jsSha3 from 'js-sha3';

export function keccak256(data: Uint8Array): Uint8Array {
  return new Uint8Array(jsSha3.keccak_256.arrayBuffer(data));
}
