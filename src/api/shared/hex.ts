/** Ethereum's JSON-RPC encodings of numbers and hashes. */

/** `0x`-prefixed hex quantity, as Ethereum encodes numbers (no leading zeros). */
export function hexQuantity(n: number | bigint): `0x${string}` {
  return `0x${n.toString(16)}`;
}

/** `0x`-prefixed 32-byte hash from a Bitcoin hash in display order. */
export function hexHash(hash: string): `0x${string}` {
  return `0x${hash}`;
}
