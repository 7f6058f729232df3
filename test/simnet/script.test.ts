/**
 * Script and descriptor helpers against known answers from Bitcoin Core (descriptor checksums from
 * its documentation and tests, asm and output types as `decodescript` prints them, dust thresholds
 * at the default 3 sat/vB) and the amount formats of Core's JSON and messages.
 */
import { describe, expect, it } from 'vitest';
import { descriptorChecksum, descriptorScript, inferDescriptor } from '../../src/simnet/tx/descriptor.js';
import { outputType, scriptAddress, scriptAsm } from '../../src/simnet/tx/script.js';
import { dustThresholdSat } from '../../src/simnet/mempool/standardness.js';
import { btcString, formatMoney } from '../../src/simnet/consensus/amount.js';
import { transactionSigOpCost } from '../../src/simnet/tx/sigops.js';

const hex = (h: string): Uint8Array => Buffer.from(h, 'hex');

describe('descriptors', () => {
  it('default: Core’s checksums', () => {
    expect(descriptorChecksum('addr(mkmZxiEcEd8ZqjQWVZuC6so5dFMKEFpN2j)')).toBe('02wpgw69');
    expect(descriptorChecksum('addr(1A1ywbX9rARomY2HWu4W1Xcsx79Dn3N5dG)')).toBe('m6gdl6sh');
    expect(descriptorChecksum('raw(76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac)')).toBe('fm24fxxy');
  });

  it('behavior: addr()/raw() round-trip through scripts; inferred descriptors carry checksums', () => {
    const p2wpkh = hex('0014751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(scriptAddress(p2wpkh)).toBe('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    expect(Buffer.from(descriptorScript('addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)')).toString('hex')).toBe(
      '0014751e76e8199196d454941c45d1b3a323f1433bd6',
    );
    expect(inferDescriptor(p2wpkh)).toBe(
      `addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)#${descriptorChecksum('addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)')}`,
    );
    expect(inferDescriptor(hex('6a0401020304'))).toMatch(/^raw\(6a0401020304\)#[a-z0-9]{8}$/);
  });

  it('error: wrong checksum, other networks and unsupported functions are refused with a reason', () => {
    expect(() => descriptorScript('addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)#aaaaaaaa')).toThrow(/does not match computed checksum/);
    expect(() => descriptorScript('addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)')).toThrow(/not valid/);
    expect(() => descriptorScript('wpkh(02aa)')).toThrow(/not supported/);
    expect(() => descriptorScript('nonsense')).toThrow(/not a valid descriptor function/);
  });
});

describe('scripts', () => {
  it('default: output types and asm as Core prints them', () => {
    const cases: Array<[string, string, string]> = [
      [
        '76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac',
        'pubkeyhash',
        'OP_DUP OP_HASH160 11b366edfc0a8b66feebae5c2e25a7b6a5d1cf31 OP_EQUALVERIFY OP_CHECKSIG',
      ],
      ['a9148b530b962725af3bb7c818f197c619db3f71495087', 'scripthash', 'OP_HASH160 8b530b962725af3bb7c818f197c619db3f714950 OP_EQUAL'],
      ['0014751e76e8199196d454941c45d1b3a323f1433bd6', 'witness_v0_keyhash', '0 751e76e8199196d454941c45d1b3a323f1433bd6'],
      ['5120' + '11'.repeat(32), 'witness_v1_taproot', `1 ${'11'.repeat(32)}`],
      ['51024e73', 'anchor', '1 29518'],
      ['6a0401020304', 'nulldata', 'OP_RETURN 67305985'],
      ['0015' + '00'.repeat(21), 'nonstandard', `0 ${'00'.repeat(21)}`],
    ];
    for (const [script, type, asm] of cases) {
      expect(outputType(hex(script))).toBe(type);
      expect(scriptAsm(hex(script))).toBe(asm);
    }
    expect(scriptAsm(hex('4c'))).toBe('[error]');
  });

  it('behavior: scriptSig asm shows the sighash type of strict-DER signatures', () => {
    const sig = '3044022015d9deea268c02721b20f1db4d6f997c66a1b8270ec7cdc3624fb59029f5a5e302202229e042f27b42c97b137d66242f8783693f87e48a19eb336aceff4c4fb49034';
    const key = '036dfd9df3fa861bd92a74c46d5031f21ced0feea3dcff9a17743cca26ccd2e299';
    const scriptSig = hex(`47${sig}0121${key}`);
    expect(scriptAsm(scriptSig, true)).toBe(`${sig}[ALL] ${key}`);
    expect(scriptAsm(scriptSig, false)).toBe(`${sig}01 ${key}`);
  });

  it('behavior: dust thresholds at 3 sat/vB and sigop costs of standard spends', () => {
    expect(dustThresholdSat(hex('76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac'))).toBe(546);
    expect(dustThresholdSat(hex('0014751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe(294);
    expect(dustThresholdSat(hex('5120' + '11'.repeat(32)))).toBe(330);
    expect(dustThresholdSat(hex('6a00'))).toBe(0);
    const p2pkhOut = { valueSat: 1000, script: hex('76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac') };
    const p2wpkhPrev = { valueSat: 5000, script: hex('0014751e76e8199196d454941c45d1b3a323f1433bd6') };
    const tx = {
      version: 2,
      lockTime: 0,
      inputs: [{ txid: '11'.repeat(32), vout: 0, scriptSig: new Uint8Array(), sequence: 0, witness: [new Uint8Array(72), new Uint8Array(33)] }],
      outputs: [p2pkhOut],
    };
    // 1 legacy sigop in the P2PKH output (× 4) + 1 witness sigop for the P2WPKH input.
    expect(transactionSigOpCost(tx, [p2wpkhPrev])).toBe(5);
  });
});

describe('amounts', () => {
  it('default: JSON amounts have 8 decimals; messages trim as FormatMoney', () => {
    expect(btcString(12_300)).toBe('0.00012300');
    expect(btcString(5_000_000_000)).toBe('50.00000000');
    expect(formatMoney(10_001)).toBe('0.00010001');
    expect(formatMoney(50_000)).toBe('0.0005');
    expect(formatMoney(0)).toBe('0.00');
    expect(formatMoney(100_000_000)).toBe('1.00');
  });
});
