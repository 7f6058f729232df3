import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { decodeInputs } from '../../src/mempool/decodeInputs.js';
import { mulberry32 } from '../../src/util/mulberry32.js';

const u32 = (n: number) => Buffer.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255]).toString('hex');
const bytes = (rng: () => number, n: number) =>
  Array.from({ length: n }, () =>
    Math.floor(rng() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');

/** A random legacy or segwit transaction (scripts are random bytes: only the structure matters). */
function randomTx(rng: () => number): string {
  const segwit = rng() < 0.6;
  const nIn = 1 + Math.floor(rng() * 4);
  const nOut = 1 + Math.floor(rng() * 3);
  let tx = u32(1 + Math.floor(rng() * 3)) + (segwit ? '0001' : '') + nIn.toString(16).padStart(2, '0');
  for (let i = 0; i < nIn; i++) {
    const script = segwit ? '' : bytes(rng, 20);
    tx += bytes(rng, 32) + u32(Math.floor(rng() * 5)) + (script.length / 2).toString(16).padStart(2, '0') + script + u32(0xfffffffd);
  }
  tx += nOut.toString(16).padStart(2, '0');
  for (let i = 0; i < nOut; i++) tx += bytes(rng, 4) + '00000000' + '16' + '0014' + bytes(rng, 20);
  if (segwit) for (let i = 0; i < nIn; i++) tx += '02' + '47' + bytes(rng, 71) + '21' + bytes(rng, 33);
  return tx + u32(0);
}

describe('decodeInputs', () => {
  it('behavior: the same outpoints as a full decode, for legacy and segwit transactions', () => {
    const rng = mulberry32(3);
    for (let k = 0; k < 200; k++) {
      const raw = randomTx(rng);
      const tx = Transaction.fromRaw(hex.decode(raw), {
        allowUnknownOutputs: true,
        allowUnknownInputs: true,
        disableScriptCheck: true,
        allowLegacyWitnessUtxo: true,
      });
      const expected = Array.from({ length: tx.inputsLength }, (_, i) => `${hex.encode(tx.getInput(i).txid!)}:${tx.getInput(i).index}`);
      expect(decodeInputs(raw)).toEqual(expected);
    }
  });

  it('error: INVALID_RAW_TRANSACTION for bytes that are not a transaction', () => {
    expect(() => decodeInputs('0200000001')).toThrow(expect.objectContaining({ code: 'INVALID_RAW_TRANSACTION' }));
  });
});
