import { mkdtempSync, statSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadReceiptSigner, RECEIPT_KEY_FILE, txidsDigest, verifyReceipt, type SignedReceipt } from '../../src/optimizer/cache/receipts.js';

const body = {
  cycle: 7,
  height: 100,
  previousBlockHash: 'ab'.repeat(32),
  cachedAt: '2026-11-22T00:00:00.000Z',
  optimized: { txidsSha256: txidsDigest(['11'.repeat(32), '22'.repeat(32)]), txCount: 2, feeSat: 1234, weightWu: 1000 },
  baseline: { txidsSha256: txidsDigest(['11'.repeat(32)]), txCount: 1, feeSat: 1000, weightWu: 600, source: 'node_getblocktemplate' },
  upperBound: { feeSat: 1300, exact: true },
};

describe('receipts', () => {
  it('default: a receipt verifies with the published public key', () => {
    const signer = loadReceiptSigner('01'.repeat(32), mkdtempSync(join(tmpdir(), 'rcpt-')));
    const receipt = signer.sign(body);
    expect(receipt.payload).toMatchObject({ schema: 'bench-receipt/1', alg: 'Ed25519', keyId: signer.keyId });
    expect(signer.keyId).toMatch(/^ed25519:[0-9a-f]{16}$/);
    expect(verifyReceipt(receipt, signer.publicKeyBase64)).toBe(true);
  });

  it('behavior: a changed byte anywhere fails verification', () => {
    const signer = loadReceiptSigner(undefined, mkdtempSync(join(tmpdir(), 'rcpt-')));
    const receipt = signer.sign(body);
    const tampered: SignedReceipt = structuredClone(receipt);
    tampered.payload.optimized.feeSat += 1;
    expect(verifyReceipt(tampered, signer.publicKeyBase64)).toBe(false);
    const sig = Buffer.from(receipt.signature, 'base64');
    sig.writeUInt8(sig.readUInt8(10) ^ 1, 10);
    expect(verifyReceipt({ ...receipt, signature: sig.toString('base64') }, signer.publicKeyBase64)).toBe(false);
    const other = loadReceiptSigner('02'.repeat(32), mkdtempSync(join(tmpdir(), 'rcpt-')));
    expect(verifyReceipt(receipt, other.publicKeyBase64)).toBe(false);
  });

  it('behavior: the key file is created once with mode 0600 and reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rcpt-'));
    const first = loadReceiptSigner(undefined, dir);
    const file = join(dir, RECEIPT_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(loadReceiptSigner(undefined, dir).keyId).toBe(first.keyId);
  });

  it('default: the txid digest is SHA-256 over newline-joined txids', () => {
    expect(txidsDigest([])).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
    const many = Array.from({ length: 4_000 }, (_, i) => sha(`t${i}`));
    // A long list, then a short one (written over the same kept buffer), then the long one again.
    for (const list of [many, ['11'.repeat(32)], many.slice(0, 3), many]) expect(txidsDigest(list)).toBe(sha(list.join('\n')));
  });
});
