/**
 * Hashes the simulator uses, on Node's native OpenSSL (SHA-256 runs tens of thousands of times per
 * second here: txids, sighashes, merkle roots, proof of work). Bitcoin shows hashes byte-reversed;
 * `displayHex`/`fromDisplayHex` convert between the internal byte order and that display order.
 */
import { createHash } from 'node:crypto';

export function sha256(data: Uint8Array): Uint8Array {
  return createHash('sha256').update(data).digest();
}

/** Double SHA-256: txids, block hashes, legacy and segwit v0 sighashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** RIPEMD-160 of SHA-256: P2PKH / P2WPKH key hashes and P2SH script hashes. */
export function hash160(data: Uint8Array): Uint8Array {
  return createHash('ripemd160').update(sha256(data)).digest();
}

const tagPrefixes = new Map<string, Uint8Array>();

/** BIP340 tagged hash: SHA-256(SHA-256(tag) ‖ SHA-256(tag) ‖ parts…). */
export function taggedHash(tag: string, ...parts: Uint8Array[]): Uint8Array {
  let prefix = tagPrefixes.get(tag);
  if (!prefix) {
    const t = sha256(new TextEncoder().encode(tag));
    prefix = Buffer.concat([t, t]);
    tagPrefixes.set(tag, prefix);
  }
  const h = createHash('sha256').update(prefix);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Hex of `bytes` in Bitcoin's display order (reversed), e.g. a txid. */
export function displayHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).reverse().toString('hex');
}

/** Internal byte order of a display-order hex hash. Precondition: 64 hex chars. */
export function fromDisplayHex(hex: string): Uint8Array {
  return Buffer.from(hex, 'hex').reverse();
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const scriptHexCache = new WeakMap<Uint8Array, string>();

/**
 * Hex of a script, cached per array: the simulator's outputs reuse each address's script array,
 * and indexes look scripts up by hex on every transaction.
 */
export function scriptHex(script: Uint8Array): string {
  let hex = scriptHexCache.get(script);
  if (hex === undefined) {
    hex = toHex(script);
    scriptHexCache.set(script, hex);
  }
  return hex;
}

export function fromHex(hex: string): Uint8Array {
  return Buffer.from(hex, 'hex');
}
