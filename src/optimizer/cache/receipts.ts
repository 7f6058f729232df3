/**
 * Signed receipts of optimizer cycles (`bench-receipt/1`): the canonical JSON (RFC 8785, via
 * `canonicalize`) of the cycle summary, signed with Ed25519 (node:crypto; tweetnacl verifies). Anyone holding the public
 * key from capabilities can check that a txid list and its totals came from this service.
 *
 * The key comes from `RECEIPT_SECRET_KEY` (hex: 32-byte seed or 64-byte secret key) or from
 * `DATA_DIR/receipt-key`, created on first start with mode 0600. It is never logged or returned.
 */
import canonicalize from 'canonicalize';
import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import nacl from 'tweetnacl';
import { ensurePrivateDir } from '../../storage/privateDir.js';
import { packStrings } from '../../util/packedStrings.js';

export const RECEIPT_SCHEMA = 'bench-receipt/1';
export const RECEIPT_ALG = 'Ed25519';
export const RECEIPT_KEY_FILE = 'receipt-key';

export interface TemplateDigest {
  /** SHA-256 (hex) of the txids in block order, each as 64 lower-case hex characters joined by '\n'. */
  txidsSha256: string;
  txCount: number;
  feeSat: number;
  weightWu: number;
}

export interface ReceiptPayload {
  schema: typeof RECEIPT_SCHEMA;
  alg: typeof RECEIPT_ALG;
  keyId: string;
  cycle: number;
  height: number;
  previousBlockHash: string;
  cachedAt: string;
  optimized: TemplateDigest;
  baseline: TemplateDigest & { source: string };
  upperBound: { feeSat: number; exact: boolean };
}

export interface SignedReceipt {
  payload: ReceiptPayload;
  /** Base64 Ed25519 signature over `canonicalize(payload)` (UTF-8). */
  signature: string;
  /** Base64 public key (also in capabilities). */
  publicKey: string;
}

export interface ReceiptSigner {
  readonly keyId: string;
  readonly publicKeyBase64: string;
  sign(payload: Omit<ReceiptPayload, 'schema' | 'alg' | 'keyId'>): SignedReceipt;
}

/** SHA-256 of a txid list as the receipt defines it. */
export function txidsDigest(txids: readonly string[]): string {
  return createHash('sha256').update(packStrings(txids, '\n')).digest('hex');
}

/** `ed25519:` + the first 16 hex characters of SHA-256(public key). */
export function keyIdOf(publicKey: Uint8Array): string {
  return `ed25519:${createHash('sha256').update(publicKey).digest('hex').slice(0, 16)}`;
}

/** Checks a receipt against a public key (base64). */
export function verifyReceipt(receipt: SignedReceipt, publicKeyBase64: string): boolean {
  const message = new TextEncoder().encode(canonicalize(receipt.payload) ?? '');
  try {
    return nacl.sign.detached.verify(message, Buffer.from(receipt.signature, 'base64'), Buffer.from(publicKeyBase64, 'base64'));
  } catch {
    return false;
  }
}

/** DER of a PKCS#8 Ed25519 private key, up to the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function keyPairFromHex(hex: string): nacl.SignKeyPair {
  const bytes = Buffer.from(hex.replace(/^0x/, ''), 'hex');
  return bytes.length === 32 ? nacl.sign.keyPair.fromSeed(bytes) : nacl.sign.keyPair.fromSecretKey(bytes);
}

/**
 * Loads (or creates) the signing key.
 * @param secretHex `RECEIPT_SECRET_KEY`, already validated by the config schema
 * @param dataDir where `receipt-key` lives when no secret is configured
 */
export function loadReceiptSigner(secretHex: string | undefined, dataDir: string): ReceiptSigner {
  let pair: nacl.SignKeyPair;
  if (secretHex) pair = keyPairFromHex(secretHex);
  else {
    const file = join(dataDir, RECEIPT_KEY_FILE);
    if (existsSync(file)) pair = keyPairFromHex(readFileSync(file, 'utf8').trim());
    else {
      ensurePrivateDir(dirname(file));
      const seed = nacl.randomBytes(32);
      writeFileSync(file, `${Buffer.from(seed).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      pair = nacl.sign.keyPair.fromSeed(seed);
    }
  }
  const keyId = keyIdOf(pair.publicKey);
  const publicKeyBase64 = Buffer.from(pair.publicKey).toString('base64');
  // Signing runs on every publish (every incremental cycle): OpenSSL's Ed25519 takes tens of µs
  // where tweetnacl's takes milliseconds on the event loop. Ed25519 is deterministic (RFC 8032),
  // so the signature is the same bytes either way.
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, pair.secretKey.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
  return {
    keyId,
    publicKeyBase64,
    sign(body) {
      const payload: ReceiptPayload = { schema: RECEIPT_SCHEMA, alg: RECEIPT_ALG, keyId, ...body };
      const message = Buffer.from(canonicalize(payload) ?? '', 'utf8');
      const signature = cryptoSign(null, message, privateKey).toString('base64');
      return { payload, signature, publicKey: publicKeyBase64 };
    },
  };
}
