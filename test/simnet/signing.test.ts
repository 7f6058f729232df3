/**
 * The simulator's signing path against independent implementations: @scure/btc-signer computes the
 * sighashes of the same transaction and signs it; its signatures must verify against our digests,
 * and ours must verify (with @noble/curves) against the keys the outputs commit to.
 */
import { describe, expect, it } from 'vitest';
import { p2pk, p2pkh, p2sh, p2tr, p2wpkh, p2wsh, RawTx, SigHash, Transaction } from '@scure/btc-signer';
import { REGTEST_NETWORK } from '../../src/simnet/consensus/params.js';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { ADDRESS_TYPES, deriveAddresses, type SimAddress } from '../../src/simnet/wallet/keys.js';
import { Rng } from '../../src/simnet/util/random.js';
import { SighashCache } from '../../src/simnet/tx/sighash.js';
import { signSpend, estimateWeight, type SpendInput } from '../../src/simnet/wallet/txSigner.js';
import { decodeTx, buildTx } from '../../src/simnet/tx/txCodec.js';
import { displayHex, sha256d } from '../../src/simnet/tx/hash.js';
import { SIGNING_BACKEND } from '../../src/simnet/tx/signer.js';

const addresses = deriveAddresses(7, 5, new Rng(7, 'keys'));
const byType = (t: SimAddress['type']): SimAddress => addresses.find((a) => a.type === t)!;

function spendAllTypes(): { inputs: SpendInput[]; tx: ReturnType<typeof signSpend> } {
  const inputs: SpendInput[] = ADDRESS_TYPES.map((type, i) => ({
    txid: displayHex(sha256d(new Uint8Array([i]))),
    vout: i,
    sequence: 0xfffffffd,
    prevout: { valueSat: 100_000 + i, script: byType(type).script },
    owner: byType(type),
  }));
  const outputs = [
    { valueSat: 250_000, script: byType('p2tr').script },
    { valueSat: 240_000, script: byType('p2pkh').script },
  ];
  return { inputs, tx: signSpend({ version: 2, lockTime: 150, inputs, outputs }) };
}

describe('signing', () => {
  it('default: one address of every standard type with regtest encodings', () => {
    expect(addresses.map((a) => a.type)).toEqual([...ADDRESS_TYPES]);
    expect(byType('p2wpkh').address).toMatch(/^bcrt1q[a-z0-9]{38}$/);
    expect(byType('p2wsh').address).toMatch(/^bcrt1q[a-z0-9]{58}$/);
    expect(byType('p2tr').address).toMatch(/^bcrt1p[a-z0-9]{58}$/);
    expect(byType('p2sh-p2wpkh').address).toMatch(/^2/);
    expect(byType('p2pkh').address).toMatch(/^[mn]/);
    expect(['libsecp256k1', '@noble/curves']).toContain(SIGNING_BACKEND);
  });

  it('behavior: scripts and addresses equal @scure/btc-signer’s payments of the same keys', () => {
    const net = REGTEST_NETWORK;
    const expected: Record<SimAddress['type'], (pub: Uint8Array) => { script: Uint8Array; address?: string }> = {
      p2wpkh: (pub) => p2wpkh(pub, net),
      'p2sh-p2wpkh': (pub) => p2sh(p2wpkh(pub, net), net),
      p2pkh: (pub) => p2pkh(pub, net),
      p2wsh: (pub) => p2wsh(p2pk(pub, net), net),
      p2tr: (pub) => p2tr(pub.subarray(1), undefined, net),
    };
    for (const a of addresses) {
      const payment = expected[a.type](a.publicKey);
      expect(a.address).toBe(payment.address);
      expect(Buffer.from(a.script).toString('hex')).toBe(Buffer.from(payment.script).toString('hex'));
    }
  });

  it('behavior: txid and wtxid are double SHA-256 of the serializations; decoding round-trips', () => {
    const { tx } = spendAllTypes();
    const base = RawTx.encode({ ...RawTx.decode(tx.raw), segwitFlag: false, witnesses: undefined });
    expect(tx.txid).toBe(displayHex(sha256d(base)));
    expect(tx.wtxid).toBe(displayHex(sha256d(tx.raw)));
    expect(tx.weight).toBe(base.length * 3 + tx.raw.length);
    const again = decodeTx(tx.raw);
    expect(again.txid).toBe(tx.txid);
    expect(again.inputs.map((i) => `${i.txid}:${i.vout}`)).toEqual(tx.inputs.map((i) => `${i.txid}:${i.vout}`));
    expect(Transaction.fromRaw(tx.raw, { allowUnknownOutputs: true }).id).toBe(tx.txid);
  });

  it('behavior: our signatures verify against our digests and the committed keys', () => {
    const { inputs, tx } = spendAllTypes();
    const cache = new SighashCache(
      tx,
      inputs.map((i) => i.prevout),
    );
    inputs.forEach((input, index) => {
      const owner = input.owner;
      const txin = tx.inputs[index]!;
      if (owner.type === 'p2tr') {
        const sig = txin.witness[0]!;
        expect(sig.length).toBe(64);
        expect(schnorr.verify(sig, cache.bip341(index)!, owner.script.subarray(2))).toBe(true);
        return;
      }
      const sigWithType = owner.type === 'p2pkh' ? txin.scriptSig.subarray(1, 1 + txin.scriptSig[0]!) : txin.witness[0]!;
      expect(sigWithType[sigWithType.length - 1]).toBe(SigHash.ALL);
      const der = sigWithType.subarray(0, -1);
      const digest = owner.type === 'p2pkh' ? cache.legacy(index, owner.scriptCode) : cache.bip143(index, owner.scriptCode);
      expect(secp256k1.verify(der, digest, owner.publicKey, { prehash: false, format: 'der' })).toBe(true);
    });
  });

  it('behavior: digests equal @scure/btc-signer’s (its signatures verify against them)', () => {
    const { inputs, tx } = spendAllTypes();
    const cache = new SighashCache(
      tx,
      inputs.map((i) => i.prevout),
    );
    const other = new Transaction({ version: 2, lockTime: 150, allowLegacyWitnessUtxo: true, allowUnknownOutputs: true });
    for (const input of inputs) {
      other.addInput({
        txid: input.txid,
        index: input.vout,
        sequence: input.sequence,
        witnessUtxo: { script: input.prevout.script, amount: BigInt(input.prevout.valueSat) },
        ...('redeemScript' in input.owner ? { redeemScript: input.owner.redeemScript } : {}),
        ...('witnessScript' in input.owner ? { witnessScript: input.owner.witnessScript } : {}),
        ...(input.owner.type === 'p2tr' ? { tapInternalKey: input.owner.publicKey.subarray(1) } : {}),
      });
    }
    for (const o of tx.outputs) other.addOutput({ script: o.script, amount: BigInt(o.valueSat) });
    for (const input of inputs) other.sign(input.owner.secret, undefined, new Uint8Array(32));
    other.finalize();
    const theirs = decodeTx(other.extract());
    expect(theirs.txid).toBe(tx.txid); // same unsigned transaction
    inputs.forEach((input, index) => {
      const owner = input.owner;
      const txin = theirs.inputs[index]!;
      if (owner.type === 'p2tr') {
        expect(schnorr.verify(txin.witness[0]!, cache.bip341(index)!, owner.script.subarray(2))).toBe(true);
        return;
      }
      const sig = owner.type === 'p2pkh' ? txin.scriptSig.subarray(1, 1 + txin.scriptSig[0]!) : txin.witness[0]!;
      const digest = owner.type === 'p2pkh' ? cache.legacy(index, owner.scriptCode) : cache.bip143(index, owner.scriptCode);
      expect(secp256k1.verify(sig.subarray(0, -1), digest, owner.publicKey, { prehash: false, format: 'der' })).toBe(true);
    });
  });

  it('behavior: signing is deterministic and the size estimate is an upper bound', () => {
    const a = spendAllTypes().tx;
    const b = spendAllTypes().tx;
    expect(a.wtxid).toBe(b.wtxid);
    const estimate = estimateWeight(ADDRESS_TYPES, a.outputs);
    expect(estimate).toBeGreaterThanOrEqual(a.weight);
    expect(estimate - a.weight).toBeLessThan(4 * 12);
  });

  it('error: decoding rejects garbage, trailing bytes and empty witness records', () => {
    const { tx } = spendAllTypes();
    expect(() => decodeTx(new Uint8Array([1, 2, 3]))).toThrow();
    expect(() => decodeTx(Buffer.concat([tx.raw, Buffer.from([0])]))).toThrow();
    const stripped = buildTx({ ...tx, inputs: tx.inputs.map((i) => ({ ...i, witness: [] })) });
    // version ‖ marker 00 flag 01 ‖ inputs and outputs ‖ one empty stack per input ‖ locktime
    const raw = Buffer.from(stripped.raw);
    const flagged = Buffer.concat([raw.subarray(0, 4), Buffer.from([0, 1]), raw.subarray(4, -4), Buffer.alloc(tx.inputs.length), raw.subarray(-4)]);
    expect(() => decodeTx(flagged)).toThrow(/superfluous|empty witness/i);
  });
});
