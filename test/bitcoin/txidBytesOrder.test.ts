import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { txidRanks } from '../../src/bitcoin/txidOrder.js';
import { txidRanksFromBytes } from '../../src/bitcoin/txidBytesOrder.js';

/** Hex of each 32-byte txid held in `bytes`. */
const hexes = (bytes: Buffer) => Array.from({ length: bytes.length / 32 }, (_, i) => bytes.toString('hex', 32 * i, 32 * i + 32));

describe('txidRanksFromBytes', () => {
  it('default: the same ranks as txidRanks over the txids as hex (Core order: byte-reversed memcmp)', () => {
    const bytes = randomBytes(32 * 5000);
    expect(Array.from(txidRanksFromBytes(bytes, 5000))).toEqual(Array.from(txidRanks(hexes(bytes))));
  });

  it('edge: txids sharing their leading Core-order bytes are ordered by the rest, down to the first display byte', () => {
    const bytes = Buffer.alloc(32 * 6);
    for (let i = 0; i < 6; i++) bytes.fill(0xab, 32 * i + 4, 32 * i + 32); // same last 28 display bytes (Core's first 28)
    [9, 3, 7, 1, 5, 2].forEach((v, i) => (bytes[32 * i] = v)); // differ only in display byte 0 (Core's last)
    const ranks = Array.from(txidRanksFromBytes(bytes, 6));
    expect(ranks).toEqual([5, 2, 4, 0, 3, 1]);
    expect(ranks).toEqual(Array.from(txidRanks(hexes(bytes))));
  });

  it('edge: the last display byte decides before the first (Core compares the reversed bytes)', () => {
    const bytes = Buffer.alloc(64);
    bytes[0] = 1; // txid 0: 01 00 .. 00 09
    bytes[31] = 9;
    bytes[32] = 9; // txid 1: 09 00 .. 00 01
    bytes[63] = 1;
    expect(Array.from(txidRanksFromBytes(bytes, 2))).toEqual([1, 0]);
  });

  it('error: too few bytes for the count is a RangeError', () => {
    expect(() => txidRanksFromBytes(Buffer.alloc(63), 2)).toThrow(RangeError);
  });
});
