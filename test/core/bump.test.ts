/**
 * The bump plan against real Bitcoin Core (regtest, v31.99): for transactions the node's wallet
 * made (plain, with a descendant, TRUC), the replacement built and signed by Core's wallet at the
 * planned minimum passes `testmempoolaccept` and 1 sat less is refused (`insufficient fee`); the
 * planned replacement and the planned CPFP child are mined by Core in the block the plan named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, refreshFromCore, startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';
import { withBadSignature, withoutSignatures } from '../helpers/tamperTx.js';

const available = coreAvailability();
const btc = (sat: number) => (sat / 1e8).toFixed(8);

interface Coin {
  txid: string;
  vout: number;
  sat: number;
}
interface Built {
  hex: string;
  txid: string;
  vsize: number;
  feeSat: number;
}

describe.runIf(available.run)('bump plans on real Bitcoin Core', () => {
  let core: Regtest;
  let world: CoreWorld;
  let coins: Coin[];
  let payee: string;
  let change: string;

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path, { blocks: 110 });
    world = await startServiceOnCore(core);
    const unspent = await core.rpc<Array<{ txid: string; vout: number; amount: number }>>('listunspent', 1);
    coins = unspent.map((u) => ({ txid: u.txid, vout: u.vout, sat: Math.round(u.amount * 1e8) }));
    payee = await core.rpc<string>('getnewaddress', '', 'bech32');
    change = await core.rpc<string>('getrawchangeaddress', 'bech32');
  }, 300_000);
  afterAll(async () => {
    await world?.close();
    await core?.close();
  });

  const coin = (): Coin => {
    const c = coins.pop();
    if (!c) throw new Error('out of coins');
    return c;
  };

  /**
   * Pays 0.1 BTC from `input` with the rest, less `fee(vsize)`, to change; signed by Core's wallet.
   * The size settles in two builds, unless the signature's length flips with the fee (71/72-byte
   * DER): then the lock time moves to another past height, which gives another signature (amounts
   * stay as they are), until it settles.
   */
  async function build(input: Coin, fee: (vsize: number) => number, version = 2, pay = 10_000_000): Promise<Built> {
    let feeSat = fee(150);
    for (let i = 0; i < 16; i++) {
      const lockTime = Math.floor(i / 3);
      const raw = await core.rpc<string>(
        'createrawtransaction',
        [{ txid: input.txid, vout: input.vout }],
        [{ [payee]: btc(pay) }, { [change]: btc(input.sat - pay - feeSat) }],
        lockTime,
        true,
        version,
      );
      const { hex } = await core.rpc<{ hex: string }>('signrawtransactionwithwallet', raw);
      const decoded = await core.rpc<{ txid: string; vsize: number }>('decoderawtransaction', hex);
      if (fee(decoded.vsize) === feeSat) return { hex, txid: decoded.txid, vsize: decoded.vsize, feeSat };
      feeSat = fee(decoded.vsize);
    }
    throw new Error('size did not settle');
  }

  /** A child spending output `vout` of `parent` (value `valueSat`) into one output, paying `feeSat`. */
  async function child(parent: string, vout: number, valueSat: number, feeSat: number, version = 2): Promise<Built> {
    const raw = await core.rpc<string>('createrawtransaction', [{ txid: parent, vout }], [{ [change]: btc(valueSat - feeSat) }], 0, true, version);
    const { hex } = await core.rpc<{ hex: string }>('signrawtransactionwithwallet', raw);
    const decoded = await core.rpc<{ txid: string; vsize: number }>('decoderawtransaction', hex);
    return { hex, txid: decoded.txid, vsize: decoded.vsize, feeSat };
  }

  const send = (b: Built) => core.rpc<string>('sendrawtransaction', b.hex);
  const accept = async (b: Built) => (await core.rpc<Array<{ allowed: boolean; 'reject-reason'?: string }>>('testmempoolaccept', [b.hex]))[0];

  async function plan(txid: string, targetSatVb: number) {
    await refreshFromCore(world);
    const { status, body } = await ask(world, 'POST', '/v1/template/bump-plan', { txid, targetSatVb });
    expect(status).toBe(200);
    return body;
  }

  /** The node's own minimum for a replacement of `vsize`, from the plan's numbers. */
  const nodeFee = (p: any) => (vsize: number) =>
    vsize === p.rbf.vsize
      ? p.rbf.nodeMinimumFeeSat
      : p.rbf.requiredFeeSat.thisNode.baseSat + Math.ceil((Math.round(p.rbf.requiredFeeSat.thisNode.perVbSat * 1000) * vsize) / 1000);

  async function tight(original: Coin, p: any, version = 2): Promise<void> {
    const exact = await build(original, nodeFee(p), version);
    const short = await build(original, (v) => nodeFee(p)(v) - 1, version);
    expect(await accept(exact)).toMatchObject({ allowed: true });
    expect(await accept(short)).toMatchObject({ allowed: false, 'reject-reason': 'insufficient fee' });
  }

  it('default: a plain wallet transaction: the planned minimum passes testmempoolaccept, 1 sat less is refused', async () => {
    const input = coin();
    const original = await build(input, (v) => v); // 1 sat/vB
    await send(original);
    const p = await plan(original.txid, 10);
    expect(p.rbf.evicted.map((e: { txid: string }) => e.txid)).toEqual([original.txid]);
    await tight(input, p);
  });

  it('default: with a descendant, the replacement pays for both, and is tight', async () => {
    const input = coin();
    const original = await build(input, (v) => v);
    await send(original);
    const changeValue = input.sat - 10_000_000 - original.feeSat;
    const kid = await child(original.txid, 1, changeValue, 400);
    await send(kid);
    const p = await plan(original.txid, 10);
    expect(new Set(p.rbf.evicted.map((e: { txid: string }) => e.txid))).toEqual(new Set([original.txid, kid.txid]));
    expect(p.rbf.evictedFeeSat).toBe(original.feeSat + 400);
    await tight(input, p);
  });

  it('default: a TRUC (v3) transaction: tight replacement, its planned v3 child, and a second child by sibling eviction are accepted', async () => {
    const input = coin();
    const original = await build(input, (v) => v, 3);
    await send(original);
    const p = await plan(original.txid, 10);
    expect(p.cpfp.truc).toBe(true);
    await tight(input, p, 3);
    const best = p.cpfp.best;
    expect(best.childVersion).toBe(3);
    const kid = await child(original.txid, best.vout, best.valueSat, best.childFeeSat, 3);
    expect(await accept(kid)).toMatchObject({ allowed: true });
    // A second child of the v3 parent evicts the first (sibling eviction): the plan's fee passes.
    await send(kid);
    const again = await plan(original.txid, 10);
    const other = again.cpfp.options.find((o: { vout: number }) => o.vout !== best.vout);
    expect(other.minimumFeeSat.siblingEviction).toBe(kid.feeSat + Math.ceil(other.childVsize / 10));
    const second = await child(original.txid, other.vout, other.valueSat, other.childFeeSat, 3);
    expect(await accept(second)).toMatchObject({ allowed: true });
    if (other.minimumFeeSat.siblingDiagram > other.minimumFeeSat.siblingEviction) {
      // Rules 3 and 4 alone: Core refuses by rule 6, as the plan said.
      const rules34 = await child(original.txid, other.vout, other.valueSat, kid.feeSat + Math.ceil(second.vsize / 10), 3);
      expect((await accept(rules34))?.allowed).toBe(false);
    }
  });

  it('error: a replacement paying the plan but wrongly signed (or unsigned), relayed through insight, is refused by Core; nothing replaced', async () => {
    const input = coin();
    const original = await build(input, (v) => v);
    await send(original);
    const p = await plan(original.txid, 10);
    const replacement = await build(input, (v) => Math.max(p.rbf.feeSat, Math.ceil(10 * v)));
    expect(await accept(replacement)).toMatchObject({ allowed: true }); // signed right, Core would take it
    const relay = (hex: string) =>
      ask(world, 'POST', '/v1/bitcoin/insight', { txid: original.txid, targetSatVb: 10, action: 'broadcast_signed_replacement', signedReplacementHex: hex });
    const bad = await relay(withBadSignature(replacement.hex));
    expect(bad.status).toBe(200);
    expect(bad.body.broadcast).toMatchObject({
      accepted: false,
      kind: 'replacement',
      replaced: [],
      rejectReason: 'mempool-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)',
    });
    expect(bad.body.broadcast.rejectDetails).toBe(
      `${bad.body.broadcast.rejectReason}, input 0 of ${replacement.txid} (wtxid ${bad.body.broadcast.wtxid}), spending ${input.txid}:${input.vout}`,
    );
    const unsigned = await relay(withoutSignatures(replacement.hex));
    expect(unsigned.body.broadcast).toMatchObject({
      accepted: false,
      replaced: [],
      rejectReason: 'mempool-script-verify-flag-failed (Witness program hash mismatch)',
    });
    const pool = await core.rpc<string[]>('getrawmempool');
    expect(pool).toContain(original.txid);
    expect(pool).not.toContain(replacement.txid);
  });

  it('behavior: the planned replacement and the planned child are mined in the block the plan named', async () => {
    const a = coin();
    const rbfOriginal = await build(a, (v) => v);
    await send(rbfOriginal);
    const b = coin();
    const cpfpOriginal = await build(b, (v) => v);
    await send(cpfpOriginal);
    const pr = await plan(rbfOriginal.txid, 20);
    const pc = await plan(cpfpOriginal.txid, 20);
    const replacement = await build(a, (v) => Math.max(pr.rbf.feeSat, Math.ceil(20 * v)));
    await send(replacement);
    const best = pc.cpfp.best;
    const kid = await child(cpfpOriginal.txid, best.vout, best.valueSat, best.childFeeSat);
    await send(kid);
    const entry = await core.rpc<{ fees: { chunk: number }; chunkweight: number }>('getmempoolentry', cpfpOriginal.txid);
    expect((Math.round(entry.fees.chunk * 1e8) * 4) / entry.chunkweight).toBeGreaterThanOrEqual(20);
    expect([pr.landing.rbf.block, pc.landing.cpfp.block]).toEqual([1, 1]);
    const [hash] = await core.mine(1);
    const block = await core.rpc<{ tx: string[] }>('getblock', hash, 1);
    expect(block.tx).toEqual(expect.arrayContaining([replacement.txid, cpfpOriginal.txid, kid.txid]));
  });
});
