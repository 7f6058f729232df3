/**
 * The simulated node's input script checks (`src/simnet/mempool/scriptCheck.ts`): a spend of every
 * wallet address type signed by the simulator passes; a broken signature, a signature of another
 * transaction, another key, or a missing witness is refused with the reject reason and script error
 * Core v31 gives for the same spend (the strings were read from real bitcoind: `test/core/` proves
 * the relayed case end to end). Digests for every sighash type equal @scure/btc-signer's.
 */
import { describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { ADDRESS_TYPES, deriveAddresses, type SimAddress } from '../../src/simnet/wallet/keys.js';
import { Rng } from '../../src/simnet/util/random.js';
import { signSpend, type SpendInput } from '../../src/simnet/wallet/txSigner.js';
import { buildTx, type SimTx, type TxInput } from '../../src/simnet/tx/txCodec.js';
import { displayHex, sha256d } from '../../src/simnet/tx/hash.js';
import { checkInputScripts, checkSpendsVerifiable, ScriptCache } from '../../src/simnet/mempool/scriptCheck.js';
import { SighashCache } from '../../src/simnet/tx/sighash.js';
import { signEcdsaDer, signSchnorr } from '../../src/simnet/tx/signer.js';

const addresses = deriveAddresses(9, 10, new Rng(9, 'keys'));
const ofType = (t: SimAddress['type']): SimAddress => addresses.find((a) => a.type === t)!;
/** A second key of each type (the first five addresses cover every type; later ones are drawn). */
const otherOfType = (t: SimAddress['type']): SimAddress => {
  const same = addresses.filter((a) => a.type === t);
  if (same.length > 1) return same[1]!;
  return deriveAddresses(10, 5, new Rng(10, 'keys')).find((a) => a.type === t)!;
};

function inputsFor(owners: SimAddress[], scripts?: Uint8Array[]): SpendInput[] {
  return owners.map((owner, i) => ({
    txid: displayHex(sha256d(new Uint8Array([i, 9]))),
    vout: i,
    sequence: 0xfffffffd,
    prevout: { valueSat: 100_000 + i, script: scripts?.[i] ?? owner.script },
    owner,
  }));
}

const OUTPUTS = [
  { valueSat: 250_000, script: ofType('p2tr').script },
  { valueSat: 240_000, script: ofType('p2pkh').script },
];

function spend(
  owners: SimAddress[],
  outputs = OUTPUTS,
  scripts?: Uint8Array[],
): { tx: SimTx; prevouts: Array<SpendInput['prevout'] & { txid: string; vout: number }> } {
  const inputs = inputsFor(owners, scripts);
  const tx = signSpend({ version: 2, lockTime: 150, inputs, outputs });
  return { tx, prevouts: inputs.map((i) => ({ ...i.prevout, txid: i.txid, vout: i.vout })) };
}

const allTypes = () => ADDRESS_TYPES.map((t) => ofType(t));

/** `tx` with input `index` changed by `change` (txid and wtxid recomputed). */
function withInput(tx: SimTx, index: number, change: (input: TxInput) => Partial<TxInput>): SimTx {
  return buildTx({ ...tx, inputs: tx.inputs.map((input, i) => (i === index ? { ...input, ...change(input) } : input)) });
}

/** Flips the lowest bit of the signature's last value byte (still strict DER, still low S). */
function flipSig(sig: Uint8Array, schnorr: boolean): Uint8Array {
  const out = Uint8Array.from(sig);
  const at = schnorr ? out.length - 1 : out.length - 2; // ECDSA: the byte before the sighash type
  out[at] = out[at]! ^ 1;
  return out;
}

/** The signature-carrying item of an input of `type`, replaced by `f(sig)`. */
function mapSig(type: SimAddress['type'], input: TxInput, f: (sig: Uint8Array) => Uint8Array): Partial<TxInput> {
  if (type === 'p2pkh') {
    const sigLen = input.scriptSig[0]!;
    const sig = f(input.scriptSig.subarray(1, 1 + sigLen));
    return { scriptSig: Uint8Array.from([sig.length, ...sig, ...input.scriptSig.subarray(1 + sigLen)]) };
  }
  return { witness: [f(input.witness[0]!), ...input.witness.slice(1)] };
}

const refusal = (error: string, tx: SimTx, index: number, prev: { txid: string; vout: number }) => ({
  reason: `mempool-script-verify-flag-failed (${error})`,
  details: `input ${index} of ${tx.txid} (wtxid ${tx.wtxid}), spending ${prev.txid}:${prev.vout}`,
});

const NULLFAIL = 'Signature must be zero for failed CHECK(MULTI)SIG operation';
const BAD_SCHNORR = 'Invalid Schnorr signature';

describe('input script checks', () => {
  it('default: a spend of every wallet type signed by the simulator passes, and is remembered by wtxid', () => {
    const { tx, prevouts } = spend(allTypes());
    expect(checkSpendsVerifiable(tx, prevouts)).toBeUndefined();
    const cache = new ScriptCache();
    expect(checkInputScripts(tx, prevouts, cache)).toBeUndefined();
    expect(cache.has(tx.wtxid)).toBe(true);
  });

  it('error: a bad signature on any input is refused naming that input, with Core’s script error', () => {
    const { tx, prevouts } = spend(allTypes());
    ADDRESS_TYPES.forEach((type, index) => {
      const bad = withInput(tx, index, (input) => mapSig(type, input, (sig) => flipSig(sig, type === 'p2tr')));
      expect(checkSpendsVerifiable(bad, prevouts)).toBeUndefined();
      expect(checkInputScripts(bad, prevouts), type).toEqual(refusal(type === 'p2tr' ? BAD_SCHNORR : NULLFAIL, bad, index, prevouts[index]!));
    });
  });

  it('error: signatures made for another transaction (another output amount) are refused', () => {
    const { tx, prevouts } = spend(allTypes());
    const other = spend(allTypes(), [{ ...OUTPUTS[0]!, valueSat: 249_000 }, OUTPUTS[1]!]).tx;
    const transplanted = buildTx({ ...other, outputs: tx.outputs, inputs: other.inputs });
    expect(transplanted.wtxid).not.toBe(tx.wtxid);
    // The first input (P2WPKH) fails first, as Core checks inputs in order.
    expect(checkInputScripts(transplanted, prevouts)).toEqual(refusal(NULLFAIL, transplanted, 0, prevouts[0]!));
    ADDRESS_TYPES.forEach((type, index) => {
      const one = withInput(tx, index, () => ({ scriptSig: other.inputs[index]!.scriptSig, witness: other.inputs[index]!.witness }));
      expect(checkInputScripts(one, prevouts), type).toEqual(refusal(type === 'p2tr' ? BAD_SCHNORR : NULLFAIL, one, index, prevouts[index]!));
    });
  });

  it('error: a spend signed with another key is refused as Core refuses it', () => {
    const expected: Record<SimAddress['type'], string> = {
      p2wpkh: 'Script failed an OP_EQUALVERIFY operation',
      p2pkh: 'Script failed an OP_EQUALVERIFY operation',
      'p2sh-p2wpkh': 'Script evaluated without error but finished with a false/empty top stack element',
      p2wsh: 'Witness program hash mismatch',
      p2tr: BAD_SCHNORR,
    };
    for (const type of ADDRESS_TYPES) {
      // The coin belongs to one key; the spend is signed (and its key shown) by another.
      const { tx, prevouts } = spend([otherOfType(type)], OUTPUTS, [ofType(type).script]);
      expect(checkInputScripts(tx, prevouts), type).toEqual(refusal(expected[type], tx, 0, prevouts[0]!));
    }
    // The right key shown with another key's signature: the signature check itself fails.
    const { tx, prevouts } = spend([ofType('p2wpkh')]);
    const thief = spend([otherOfType('p2wpkh')], OUTPUTS, [ofType('p2wpkh').script]).tx;
    const forged = withInput(tx, 0, (input) => ({ witness: [thief.inputs[0]!.witness[0]!, input.witness[1]!] }));
    expect(checkInputScripts(forged, prevouts)).toEqual(refusal(NULLFAIL, forged, 0, prevouts[0]!));
  });

  it('error: a missing signature is refused with Core’s error for each type', () => {
    const { tx, prevouts } = spend(allTypes());
    const expected: Record<SimAddress['type'], string> = {
      p2wpkh: 'Witness program hash mismatch',
      p2tr: 'Witness program was passed an empty witness',
      p2wsh: 'Witness program was passed an empty witness',
      p2pkh: 'Operation not valid with the current stack size',
      'p2sh-p2wpkh': 'Witness program hash mismatch',
    };
    ADDRESS_TYPES.forEach((type, index) => {
      const bare = withInput(tx, index, () => (type === 'p2pkh' ? { scriptSig: new Uint8Array(0) } : { witness: [] }));
      expect(checkInputScripts(bare, prevouts), type).toEqual(refusal(expected[type], bare, index, prevouts[index]!));
    });
    // Without its redeem script a P2SH coin is not even a standard spend (Core: AreInputsStandard).
    const noRedeem = withInput(tx, 2, () => ({ scriptSig: new Uint8Array(0), witness: [] }));
    expect(checkSpendsVerifiable(noRedeem, prevouts)).toEqual({ reason: 'bad-txns-nonstandard-inputs', details: 'input 2 P2SH redeemscript missing' });
  });

  it('error: spends the node cannot verify are refused as non-standard, not accepted unverified', () => {
    const { tx, prevouts } = spend([ofType('p2tr')]);
    // A Taproot script-path shape (two witness items) and an annex.
    const scriptPath = withInput(tx, 0, (input) => ({ witness: [input.witness[0]!, Uint8Array.of(0x51), Uint8Array.of(0xc0, ...new Uint8Array(32))] }));
    expect(checkSpendsVerifiable(scriptPath, prevouts)).toMatchObject({
      reason: 'bad-txns-nonstandard-inputs',
      details: expect.stringMatching(/^input 0: a Taproot script-path spend/),
    });
    const annex = withInput(tx, 0, (input) => ({ witness: [input.witness[0]!, Uint8Array.of(0x50, 1)] }));
    expect(checkSpendsVerifiable(annex, prevouts)).toEqual({ reason: 'bad-witness-nonstandard', details: 'input 0: annex' });
    // A witness on a legacy spend.
    const legacy = spend([ofType('p2pkh')]);
    const witnessed = withInput(legacy.tx, 0, () => ({ witness: [Uint8Array.of(1)] }));
    expect(checkSpendsVerifiable(witnessed, legacy.prevouts)).toMatchObject({ reason: 'bad-witness-nonstandard' });
  });

  it('behavior: every sighash type Core accepts: digests equal @scure/btc-signer’s, and signatures with them verify', () => {
    const owners = allTypes();
    const { tx, prevouts } = spend(owners);
    const cache = new SighashCache(tx, prevouts);
    const theirs = new Transaction({ version: 2, lockTime: 150, allowLegacyWitnessUtxo: true, allowUnknownOutputs: true });
    for (const [i, input] of tx.inputs.entries()) {
      theirs.addInput({
        txid: input.txid,
        index: input.vout,
        sequence: input.sequence,
        witnessUtxo: { script: prevouts[i]!.script, amount: BigInt(prevouts[i]!.valueSat) },
      });
    }
    for (const o of tx.outputs) theirs.addOutput({ script: o.script, amount: BigInt(o.valueSat) });
    const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('hex');
    const scure = theirs as unknown as {
      preimageLegacy(i: number, script: Uint8Array, ht: number): Uint8Array;
      preimageWitnessV0(i: number, script: Uint8Array, ht: number, amount: bigint): Uint8Array;
      preimageWitnessV1(i: number, scripts: Uint8Array[], ht: number, amounts: bigint[]): Uint8Array;
    };
    const types = [0x01, 0x02, 0x03, 0x81, 0x82, 0x83];
    for (const ht of types) {
      for (const i of [0, 1, 4]) {
        expect(hex(cache.legacy(i, ofType('p2pkh').script, ht)), `legacy ${ht} ${i}`).toBe(hex(scure.preimageLegacy(i, ofType('p2pkh').script, ht)));
        const code = (owners[0] as { scriptCode: Uint8Array }).scriptCode;
        expect(hex(cache.bip143(i, code, ht)), `bip143 ${ht} ${i}`).toBe(hex(scure.preimageWitnessV0(i, code, ht, BigInt(prevouts[i]!.valueSat))));
      }
      const scripts = prevouts.map((p) => p.script);
      const amounts = prevouts.map((p) => BigInt(p.valueSat));
      expect(hex(cache.bip341(1, ht)), `bip341 ${ht}`).toBe(hex(scure.preimageWitnessV1(1, scripts, ht, amounts)));
    }
    expect(hex(cache.bip341(1, 0x00))).toBe(
      hex(
        scure.preimageWitnessV1(
          1,
          prevouts.map((p) => p.script),
          0x00,
          prevouts.map((p) => BigInt(p.valueSat)),
        ),
      ),
    );
    expect(cache.bip341(4, 0x03)).toBeUndefined(); // SIGHASH_SINGLE without output 4
    expect(cache.bip341(1, 0x04)).toBeUndefined(); // not a hash type

    // Re-sign each input with SIGHASH_SINGLE|ANYONECANPAY (input 4 has no output 4: legacy signs 1).
    const ht = 0x83;
    let resigned = tx;
    owners.forEach((owner, index) => {
      resigned = withInput(resigned, index, (input) => {
        if (owner.type === 'p2tr') return { witness: [Uint8Array.from([...signSchnorr(cache.bip341(index, ht)!, owner.taprootKey), ht])] };
        const digest = owner.type === 'p2pkh' ? cache.legacy(index, owner.scriptCode, ht) : cache.bip143(index, owner.scriptCode, ht);
        return mapSig(owner.type, input, () => Uint8Array.from([...signEcdsaDer(digest, owner.secret), ht]));
      });
    });
    expect(checkInputScripts(resigned, prevouts)).toBeUndefined();
    // A 65-byte Schnorr signature whose type byte is 0 is refused, as in Core.
    const zeroType = withInput(resigned, 1, (input) => ({ witness: [Uint8Array.from([...input.witness[0]!.subarray(0, 64), 0])] }));
    expect(checkInputScripts(zeroType, prevouts)).toEqual(refusal('Invalid Schnorr signature hash type', zeroType, 1, prevouts[1]!));
  });
});
