import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { domainSeparator, TRANSFER_WITH_AUTHORIZATION_TYPES, transferWithAuthorizationDigest } from '../../src/payments/eip712.js';
import { recoverAddress, RECOVERY_BACKEND } from '../../src/payments/recover.js';
import { Eip3009AuthorizationSchema } from '../../src/payments/schemas.js';
import { newAccount, randomNonce } from './helpers.js';

const TYPES = TRANSFER_WITH_AUTHORIZATION_TYPES;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('EIP-712 TransferWithAuthorization', () => {
  it('default: our digest equals viem hashTypedData on random authorizations and domains', async () => {
    for (let i = 0; i < 25; i++) {
      const domain = {
        name: i % 2 ? 'USD Coin' : 'USDC',
        version: String(1 + (i % 3)),
        chainId: [8453, 137, 42161, 84532, 480][i % 5]!,
        verifyingContract: newAccount().address,
      };
      const message = {
        from: newAccount().address,
        to: newAccount().address,
        value: BigInt(Math.floor(Math.random() * 1e12)) * (i === 3 ? 2n ** 200n : 1n),
        validAfter: BigInt(i),
        validBefore: 1_900_000_000n + BigInt(i),
        nonce: randomNonce(),
      };
      const ours = transferWithAuthorizationDigest(domainSeparator(domain), {
        ...message,
        value: String(message.value),
        validAfter: String(message.validAfter),
        validBefore: String(message.validBefore),
      });
      expect(`0x${Buffer.from(ours).toString('hex')}`).toBe(hashTypedData({ domain, types: TYPES, primaryType: 'TransferWithAuthorization', message }));
    }
  });

  it(`default: recovery (${RECOVERY_BACKEND}) agrees with viem recoverTypedDataAddress`, async () => {
    const account = newAccount();
    const domain = { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' } as const;
    for (let i = 0; i < 10; i++) {
      const message = { from: account.address, to: newAccount().address, value: 1000n, validAfter: 0n, validBefore: 1_900_000_000n, nonce: randomNonce() };
      const signature = await account.signTypedData({ domain, types: TYPES, primaryType: 'TransferWithAuthorization', message });
      const digest = transferWithAuthorizationDigest(domainSeparator(domain), { ...message, value: '1000', validAfter: '0', validBefore: '1900000000' });
      const viemSigner = await recoverTypedDataAddress({ domain, types: TYPES, primaryType: 'TransferWithAuthorization', message, signature });
      expect(recoverAddress(digest, signature)).toBe(viemSigner.toLowerCase());
      expect(recoverAddress(digest, signature, '@noble/curves')).toBe(viemSigner.toLowerCase());
      // v as 0/1 (yParity) is the same signature.
      const v = parseInt(signature.slice(130), 16);
      expect(recoverAddress(digest, `${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, '0')}`)).toBe(account.address.toLowerCase());
    }
  });

  it('error: a high-s (malleated) signature is refused, as USDC ecrecover does', async () => {
    const account = newAccount();
    const domain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' } as const;
    const message = { from: account.address, to: account.address, value: 1n, validAfter: 0n, validBefore: 1_900_000_000n, nonce: randomNonce() };
    const signature = await account.signTypedData({ domain, types: TYPES, primaryType: 'TransferWithAuthorization', message });
    const digest = transferWithAuthorizationDigest(domainSeparator(domain), { ...message, value: '1', validAfter: '0', validBefore: '1900000000' });
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = parseInt(signature.slice(130), 16);
    const malleated = `${signature.slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(recoverAddress(digest, malleated)).toBeNull();
    expect(recoverAddress(digest, malleated, '@noble/curves')).toBeNull();
    expect(recoverAddress(digest, `${signature.slice(0, 130)}1d`)).toBeNull(); // v = 29
    expect(recoverAddress(digest, signature.slice(0, 100))).toBeNull();
  });

  it('error: r and s out of range are refused on their bytes (r = 0, r = n, s = 0, s = n/2 + 1), by both backends', async () => {
    const account = newAccount();
    const domain = { name: 'USDC', version: '2', chainId: 8453, verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' } as const;
    const message = { from: account.address, to: account.address, value: 1n, validAfter: 0n, validBefore: 1_900_000_000n, nonce: randomNonce() };
    const signature = await account.signTypedData({ domain, types: TYPES, primaryType: 'TransferWithAuthorization', message });
    const digest = transferWithAuthorizationDigest(domainSeparator(domain), { ...message, value: '1', validAfter: '0', validBefore: '1900000000' });
    const hex = (x: bigint) => x.toString(16).padStart(64, '0');
    const r = signature.slice(2, 66);
    const s = signature.slice(66, 130);
    const v = signature.slice(130);
    expect(recoverAddress(digest, signature)).toBe(account.address.toLowerCase());
    for (const bad of [
      `0x${hex(0n)}${s}${v}`,
      `0x${hex(N)}${s}${v}`,
      `0x${r}${hex(0n)}${v}`,
      `0x${r}${hex((N >> 1n) + 1n)}${v}`,
      `0x${r}${'f'.repeat(64)}${v}`,
    ]) {
      expect(recoverAddress(digest, bad)).toBeNull();
      expect(recoverAddress(digest, bad, '@noble/curves')).toBeNull();
    }
  });
});

describe('uint256 fields of an authorization', () => {
  it('boundary: 2^256 - 1 and 77-digit values are accepted, 2^256 and more digits refused', () => {
    const auth = { from: newAccount().address, to: newAccount().address, validAfter: '0', validBefore: '1', nonce: randomNonce() };
    const ok = (value: string) => Eip3009AuthorizationSchema.safeParse({ ...auth, value }).success;
    expect(ok(String(2n ** 256n - 1n))).toBe(true);
    expect(ok('9'.repeat(77))).toBe(true);
    expect(ok(String(2n ** 256n))).toBe(false);
    expect(ok('9'.repeat(78))).toBe(false);
    expect(ok('1'.repeat(79))).toBe(false);
  });
});
