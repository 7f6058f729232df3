/**
 * Relay and replacement on the simulated node: `sendrawtransaction` / `testmempoolaccept` decode
 * for real, resolve conflicts by Core v31's replacement rules and answer Core's error codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import type { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { bitcoinNode, coreClient, sats, TEST_SIM, type CoreClient } from './helpers.js';
import { withBadSignature, withoutSignatures } from '../helpers/tamperTx.js';

let sim: SimnetHandle;
let node: BitcoinNode;
let client: CoreClient;

beforeAll(async () => {
  sim = await startSimnet({ seed: 31, initialTxs: 600, ...TEST_SIM });
  node = bitcoinNode(sim.rpcUrl);
  client = coreClient(sim.rpcUrl);
});
afterAll(() => sim?.close());

/** A mempool transaction the simulator can replace, preferably one with descendants. */
async function replaceable(withDescendants: boolean): Promise<string> {
  const pool = await node.getRawMempoolVerbose();
  const candidates = Object.entries(pool)
    .filter(([, e]) => e.depends.length === 0 && (withDescendants ? e.descendantcount > 1 : e.descendantcount === 1))
    .map(([txid]) => txid);
  expect(candidates.length).toBeGreaterThan(0);
  return candidates[0]!;
}

describe('relay and replacement', () => {
  it('default: a replacement evicts the original and its descendants and pays by the rules', async () => {
    const original = await replaceable(true);
    const descendants = Object.keys(await node.getMempoolDescendants(original));
    const before = await node.getMempoolEntry(original);
    const evictedFees = sats(before.fees.descendant);
    const originalInputs = (await node.getRawTransaction(original)).vin.map((i) => `${i.txid}:${i.vout}`);
    const { replaced, replacement } = await sim.control.replaceTransaction(original);
    expect(new Set(replaced)).toEqual(new Set([original, ...descendants]));
    const pool = new Set(await node.getRawMempoolTxids());
    for (const t of replaced) expect(pool.has(t)).toBe(false);
    expect(pool.has(replacement)).toBe(true);
    const entry = await node.getMempoolEntry(replacement);
    expect(sats(entry.fees.base)).toBeGreaterThanOrEqual(evictedFees + Math.ceil(entry.vsize / 10)); // rules 3 and 4
    const tx = await node.getRawTransaction(replacement);
    expect(tx.vin.some((i) => originalInputs.includes(`${i.txid}:${i.vout}`))).toBe(true);
    await expect(node.getRawTransaction(original)).rejects.toMatchObject({ code: 'TX_NOT_FOUND' });
  });

  it('error: a too-cheap replacement is refused with Core’s -26 "insufficient fee", the original stays', async () => {
    const original = await replaceable(false);
    const entry = await node.getMempoolEntry(original);
    const cheap = await sim.control.createSpend({ fromTxid: original, feeRateSatVb: Math.max(0.2, (sats(entry.fees.base) / entry.vsize) * 0.5) });
    expect(cheap.conflictsWith).toEqual([original]);
    const test = await node.testMempoolAccept(cheap.hex);
    expect(test[0]).toMatchObject({ txid: cheap.txid, allowed: false, 'reject-reason': 'insufficient fee' });
    expect(test[0]!['reject-details']).toMatch(
      new RegExp(`^insufficient fee, rejecting replacement ${cheap.txid}, less fees than conflicting txs; [0-9.]+ < [0-9.]+$`),
    );
    const error = await client.command('sendrawtransaction', cheap.hex).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -26 });
    expect((error as Error).message).toMatch(/^insufficient fee, rejecting replacement/);
    expect(await node.getRawMempoolTxids()).toContain(original);
  });

  it('behavior: a replacement paying enough is accepted through sendrawtransaction', async () => {
    const original = await replaceable(false);
    const entry = await node.getMempoolEntry(original);
    const bump = await sim.control.createSpend({ fromTxid: original, feeRateSatVb: (sats(entry.fees.base) / entry.vsize) * 2 + 1 });
    const test = await node.testMempoolAccept(bump.hex);
    expect(test[0]).toMatchObject({ allowed: true, vsize: expect.any(Number) });
    expect(sats(test[0]!.fees!.base)).toBe(bump.feeSat);
    expect(await node.sendRawTransaction(bump.hex)).toBe(bump.txid);
    const pool = await node.getRawMempoolTxids();
    expect(pool).toContain(bump.txid);
    expect(pool).not.toContain(original);
    // Submitting it again is a no-op that returns the txid, as Core does.
    expect(await node.sendRawTransaction(bump.hex)).toBe(bump.txid);
  });

  it('error: a wrongly signed or unsigned replacement paying enough is refused with Core’s script error (-26), the original stays', async () => {
    const original = await replaceable(false);
    const entry = await node.getMempoolEntry(original);
    const bump = await sim.control.createSpend({ fromTxid: original, feeRateSatVb: (sats(entry.fees.base) / entry.vsize) * 2 + 1 });
    expect((await node.testMempoolAccept(bump.hex))[0]).toMatchObject({ allowed: true }); // the signed one would replace it
    const spent = (await node.decodeRawTransaction(bump.hex)).vin[0]!;
    const bad = withBadSignature(bump.hex);
    const [test] = await node.testMempoolAccept(bad);
    expect(test).toMatchObject({ allowed: false });
    expect([
      'mempool-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)',
      'mempool-script-verify-flag-failed (Invalid Schnorr signature)',
    ]).toContain(test!['reject-reason']);
    expect(test!['reject-details']).toBe(`${test!['reject-reason']}, input 0 of ${test!.txid} (wtxid ${test!.wtxid}), spending ${spent.txid}:${spent.vout}`);
    const error = await client.command('sendrawtransaction', bad).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -26, message: test!['reject-details'] });
    // Unsigned: a script error, or for a P2SH coin no redeem script (Core: a non-standard input).
    const [unsigned] = await node.testMempoolAccept(withoutSignatures(bump.hex));
    expect(unsigned).toMatchObject({
      allowed: false,
      'reject-reason': expect.stringMatching(/^(mempool-script-verify-flag-failed \(.+\)|bad-txns-nonstandard-inputs)$/),
    });
    expect(await node.getRawMempoolTxids()).toContain(original);
  });

  it('behavior: a child spending a mempool output (CPFP) is accepted and linked', async () => {
    const parent = await replaceable(false);
    const child = await sim.control.createSpend({ fromTxid: parent, feeRateSatVb: 50, kind: 'child' });
    expect(await node.sendRawTransaction(child.hex)).toBe(child.txid);
    const entry = await node.getMempoolEntry(child.txid);
    expect(entry.depends).toEqual([parent]);
    expect((await node.getMempoolEntry(parent)).spentby).toContain(child.txid);
  });

  it('error: undecodable hex -22, missing inputs -25, confirmed transaction -27', async () => {
    await expect(client.command('sendrawtransaction', 'zz')).rejects.toMatchObject({ code: -22 });
    await expect(client.command('decoderawtransaction', '0200')).rejects.toMatchObject({ code: -22, message: 'TX decode failed' });
    const original = await replaceable(false);
    const spend = await sim.control.createSpend({ fromTxid: original, feeRateSatVb: 5, kind: 'child' });
    // Point the child's input at an output that does not exist (vout 4000).
    const decoded = await node.decodeRawTransaction(spend.hex);
    const outpoint = Buffer.from(decoded.vin[0]!.txid!, 'hex').reverse().toString('hex') + Buffer.from([decoded.vin[0]!.vout!, 0, 0, 0]).toString('hex');
    const broken = spend.hex.replace(outpoint, outpoint.slice(0, 64) + 'a00f0000');
    expect(broken).not.toBe(spend.hex);
    await expect(client.command('sendrawtransaction', broken)).rejects.toMatchObject({ code: -25, message: 'bad-txns-inputs-missingorspent' });
    expect((await node.testMempoolAccept(broken))[0]).toMatchObject({ allowed: false, 'reject-reason': 'missing-inputs' });
    const [hash] = await sim.control.mineBlocks(1);
    const block = await node.getBlock(hash!, 1);
    const confirmedHex = await node.getRawTransactionHex(block.tx[1]!);
    await expect(client.command('sendrawtransaction', confirmedHex)).rejects.toMatchObject({ code: -27, message: 'Transaction outputs already in utxo set' });
  });

  it('error: below the relay minimum fee and above maxfeerate', async () => {
    await sim.control.addTransactions(20);
    const original = await replaceable(false);
    const zero = await sim.control.createSpend({ fromTxid: original, feeRateSatVb: 0.01, kind: 'child' });
    const r = (await node.testMempoolAccept(zero.hex))[0]!;
    expect(r).toMatchObject({ allowed: false, 'reject-reason': 'min relay fee not met' });
    const rich = await sim.control.createSpend({ fromTxid: original, feeRateSatVb: 20, kind: 'child' });
    await expect(client.command('sendrawtransaction', rich.hex, 0.00001)).rejects.toMatchObject({
      code: -25,
      message: 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)',
    });
    expect((await client.command('testmempoolaccept', [rich.hex], 0.00001)) as unknown[]).toMatchObject([
      { allowed: false, 'reject-reason': 'max-fee-exceeded' },
    ]);
  });
});
