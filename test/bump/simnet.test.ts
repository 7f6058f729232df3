/**
 * The plan against the embedded simulated node (which enforces Core v31's rules 3-6 and cluster
 * limits): replacements and children are built and signed in the test with the simulator's own
 * keys (the service has none) at exactly the planned fee, and relayed through the insight route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { BumpPlanAnswer } from '../../src/api/shared/bumpPlan.js';
import { btcToSats } from '../../src/bitcoin/units.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';
import { withBadSignature, withoutSignatures } from '../helpers/tamperTx.js';

type Plan = z.output<typeof BumpPlanAnswer>;
let world: TestWorld;

beforeAll(async () => {
  world = await startTestWorld({ seed: 11, initialTxs: 300 });
  await refresh(world);
});
afterAll(() => world?.close());

async function plan(txid: string, targetSatVb: number): Promise<Plan> {
  const res = await world.app.inject({ method: 'POST', url: '/v1/template/bump-plan', payload: { txid, targetSatVb } });
  expect(res.statusCode).toBe(200);
  return res.json<Plan>();
}

async function relay(txid: string, hex: string) {
  return world.app.inject({
    method: 'POST',
    url: '/v1/bitcoin/insight',
    payload: { txid, targetSatVb: 5, action: 'broadcast_signed_replacement', signedReplacementHex: hex },
  });
}

/** Mempool transactions the simulator can replace (it owns their inputs), lowest rate first. */
async function replaceable(filter: (descendants: number, ancestors: number) => boolean): Promise<string[]> {
  const pool = await world.node.getRawMempoolVerbose();
  const candidates = Object.entries(pool)
    .filter(([, e]) => filter(e.descendantcount, e.ancestorcount))
    .sort((a, b) => a[1].fees.modified / a[1].vsize - b[1].fees.modified / b[1].vsize)
    .map(([t]) => t);
  const out: string[] = [];
  for (const t of candidates) {
    const ok = await world.simnet.control.createSpend({ fromTxid: t, feeRateSatVb: 50 }).then(
      () => true,
      () => false,
    );
    if (ok) out.push(t);
    if (out.length >= 3) break;
  }
  expect(out.length).toBeGreaterThan(0);
  return out;
}

/** A replacement of `txid` paying exactly `fee(vsize)`, signed by the simulator (the size settles in two builds). */
async function replacementAt(txid: string, fee: (vsize: number) => number, version?: number) {
  const v = version === undefined ? {} : { version };
  let built = await world.simnet.control.createSpend({ fromTxid: txid, feeRateSatVb: 1, feeSat: fee(200), ...v });
  for (let i = 0; i < 3; i++) {
    const want = fee(built.vsize);
    if (built.feeSat === want) return built;
    built = await world.simnet.control.createSpend({ fromTxid: txid, feeRateSatVb: 1, feeSat: want, ...v });
  }
  return built;
}

const nodeFee = (p: Plan) => (vsize: number) => {
  const f = p.rbf!.requiredFeeSat.thisNode;
  return vsize === p.rbf!.vsize
    ? p.rbf!.nodeMinimumFeeSat
    : Math.max(f.baseSat + Math.ceil((Math.round(f.perVbSat * 1000) * vsize) / 1000), Math.ceil((Math.round(f.minFeeRateSatVb * 1000) * vsize) / 1000));
};

describe('RBF plan on the simulated node', () => {
  it('default: the node accepts the replacement at exactly the planned minimum and refuses it 1 sat lower', async () => {
    for (const txid of await replaceable((d, a) => d === 1 && a === 1)) {
      const p = await plan(txid, 0.1);
      const exact = await replacementAt(txid, nodeFee(p));
      // ECDSA signatures vary by a byte: the short one is 1 sat below what its own size needs.
      const short = await replacementAt(txid, (v) => nodeFee(p)(v) - 1);
      const [ok] = await world.node.testMempoolAccept(exact.hex);
      const [no] = await world.node.testMempoolAccept(short.hex);
      expect(ok).toMatchObject({ allowed: true });
      expect(no).toMatchObject({ allowed: false, 'reject-reason': 'insufficient fee' });
    }
  });

  it('default: with descendants, the plan pays for every evicted tx and is still tight', async () => {
    const [txid] = await replaceable((d, a) => d > 1 && a === 1);
    const p = await plan(txid!, 0.1);
    const descendants = Object.keys(await world.node.getMempoolDescendants(txid!));
    expect(new Set(p.rbf!.evicted.map((e) => e.txid))).toEqual(new Set([txid, ...descendants]));
    const entry = await world.node.getMempoolEntry(txid!);
    expect(p.rbf!.evictedFeeSat).toBe(btcToSats(entry.fees.descendant));
    const exact = await replacementAt(txid!, nodeFee(p));
    const short = await replacementAt(txid!, (v) => nodeFee(p)(v) - 1);
    expect((await world.node.testMempoolAccept(exact.hex))[0]).toMatchObject({ allowed: true });
    expect((await world.node.testMempoolAccept(short.hex))[0]).toMatchObject({ allowed: false });
  });

  it('behavior: the planned replacement relayed through insight is accepted, recorded as the replacement, and lands where the plan said', async () => {
    const [txid] = await replaceable((d, a) => d === 1 && a === 1);
    const p = await plan(txid!, 5);
    expect(p.recommended).not.toBe('not_possible');
    expect(p.signsOrCustodiesFunds).toBe(false);
    const signed = await replacementAt(txid!, (v) => Math.max(p.rbf!.feeSat, Math.ceil(5 * v), nodeFee(p)(v)));
    const res = await relay(txid!, signed.hex);
    expect(res.statusCode).toBe(200);
    expect(res.json().broadcast).toMatchObject({ accepted: true, txid: signed.txid, kind: 'replacement', replaced: [txid], rejectReason: null });
    // The same hex again: already in the mempool, reported accepted.
    expect((await relay(txid!, signed.hex)).json().broadcast).toMatchObject({ accepted: true, alreadyInMempool: true });
    await refresh(world);
    expect(world.app.mempool.tracker.history(txid!).replacedBy?.txid).toBe(signed.txid);
    const check = (await world.app.inject({ method: 'POST', url: '/v1/template/check', payload: { txid: signed.txid } })).json();
    expect(check.projectedBlock).toBe(p.landing.rbf!.block);
    const after = await plan(txid!, 5);
    expect(after.state).toMatchObject({ status: 'replaced', replacedBy: signed.txid });
    expect(after.recommended).toBe('not_possible');
  });
});

describe('a wrongly signed replacement on the simulated node', () => {
  it('error: relayed through insight, a replacement paying the plan but wrongly signed (or unsigned) is refused by the node, nothing replaced', async () => {
    const [txid] = await replaceable((d, a) => d === 1 && a === 1);
    const p = await plan(txid!, 5);
    const signed = await replacementAt(txid!, (v) => Math.max(p.rbf!.feeSat, Math.ceil(5 * v), nodeFee(p)(v)));
    expect((await world.node.testMempoolAccept(signed.hex))[0]).toMatchObject({ allowed: true }); // signed right, it would replace
    const bad = await relay(txid!, withBadSignature(signed.hex));
    expect(bad.statusCode).toBe(200);
    expect(bad.json().broadcast).toMatchObject({ accepted: false, kind: 'replacement', replaced: [] });
    expect(bad.json().broadcast.rejectReason).toMatch(
      /^mempool-script-verify-flag-failed \((Signature must be zero for failed CHECK\(MULTI\)SIG operation|Invalid Schnorr signature)\)$/,
    );
    expect(bad.json().summary).toContain('rejected by the node');
    const unsigned = await relay(txid!, withoutSignatures(signed.hex));
    expect(unsigned.json().broadcast).toMatchObject({ accepted: false, replaced: [] });
    expect(unsigned.json().broadcast.rejectReason).toMatch(/^(mempool-script-verify-flag-failed \(.+\)|bad-txns-nonstandard-inputs)$/);
    const pool = await world.node.getRawMempoolTxids();
    expect(pool).toContain(txid);
    expect(pool).not.toContain(signed.txid);
  });
});

describe('CPFP plan on the simulated node', () => {
  it('default: the child at the planned fee lifts the chunk to the target, and 1 sat less would not', async () => {
    const [txid] = await replaceable((d, a) => d === 1 && a === 1);
    const target = 8;
    const p = await plan(txid!, target);
    const best = p.cpfp!.best!;
    expect(best.usable).toBe(true);
    // Built with the plan's formula for the child's real size (the plan's size is an upper bound).
    const probe = await world.simnet.control.createSpend({ fromTxid: txid!, kind: 'child', vout: best.vout, feeRateSatVb: 1, feeSat: best.childFeeSat! });
    expect(probe.vsize).toBeLessThanOrEqual(best.childVsize!);
    const res = await relay(txid!, probe.hex);
    expect(res.json().broadcast).toMatchObject({ accepted: true, kind: 'cpfp_child', replaced: [] });
    const entry = await world.node.getMempoolEntry(txid!);
    const chunkFee = btcToSats(entry.fees.chunk!);
    const rate = (fee: number) => (fee * 4) / entry.chunkweight!;
    expect(rate(chunkFee)).toBeGreaterThanOrEqual(target);
    // Tight up to the upper bound on the child's size: the planned fee is at most what the real size needs plus a few sat.
    const exactNeed = Math.ceil((target * entry.chunkweight!) / 4) - (chunkFee - best.childFeeSat!);
    expect(best.childFeeSat! - exactNeed).toBeLessThanOrEqual(Math.ceil(target * (best.childVsize! - probe.vsize)) + 1);
    expect(rate(chunkFee - (best.childFeeSat! - exactNeed) - 1)).toBeLessThan(target);
  });
});

describe('TRUC on the simulated node', () => {
  it('default: v3 topology is enforced, the planned v3 child is accepted, and a second child pays sibling eviction to the satoshi', async () => {
    const [txid] = await replaceable((d, a) => d === 1 && a === 1);
    const p0 = await plan(txid!, 0.1);
    const parent = await replacementAt(txid!, (v) => nodeFee(p0)(v) + 50, 3);
    await world.node.sendRawTransaction(parent.hex);
    await refresh(world);
    const p = await plan(parent.txid, 8);
    expect(p.cpfp!.truc).toBe(true);
    const owned = [];
    for (const o of p.cpfp!.options.filter((x) => x.usable)) {
      const ok = await world.simnet.control.createSpend({ fromTxid: parent.txid, kind: 'child', vout: o.vout, feeRateSatVb: 5, version: 3 }).then(
        () => true,
        () => false,
      );
      if (ok) owned.push(o);
    }
    expect(owned.length).toBeGreaterThanOrEqual(2);
    const [first, second] = owned;
    const v2 = await world.simnet.control.createSpend({ fromTxid: parent.txid, kind: 'child', vout: first!.vout, feeRateSatVb: 5, version: 2 });
    expect((await world.node.testMempoolAccept(v2.hex))[0]).toMatchObject({ allowed: false, 'reject-reason': 'TRUC-violation' });
    const kid = await world.simnet.control.createSpend({
      fromTxid: parent.txid,
      kind: 'child',
      vout: first!.vout,
      feeRateSatVb: 1,
      feeSat: first!.childFeeSat!,
      version: 3,
    });
    expect((await relay(parent.txid, kid.hex)).json().broadcast).toMatchObject({ accepted: true, kind: 'cpfp_child' });
    await refresh(world);
    const again = await plan(parent.txid, 8);
    const option = again.cpfp!.options.find((o) => o.vout === second!.vout)!;
    // Rules 3+4 over the sibling, and rule 6 (the new child replaces it in the parent's chunk).
    expect(option.minimumFeeSat!.siblingEviction).toBe(kid.feeSat + Math.ceil(option.childVsize! / 10));
    expect(option.childFeeSat).toBe(Math.max(option.minimumFeeSat!.siblingEviction, option.minimumFeeSat!.siblingDiagram, option.minimumFeeSat!.v30));
    const childAt = (fee: number) =>
      world.simnet.control.createSpend({ fromTxid: parent.txid, kind: 'child', vout: second!.vout, feeRateSatVb: 1, feeSat: fee, version: 3 });
    const planned = await childAt(option.childFeeSat!);
    expect((await world.node.testMempoolAccept(planned.hex))[0]).toMatchObject({ allowed: true });
    // Rules 3 and 4 alone are not enough when the new child is larger than the sibling: rule 6 refuses.
    if (option.minimumFeeSat!.siblingDiagram > option.minimumFeeSat!.siblingEviction) {
      const rules34 = await childAt(kid.feeSat + Math.ceil(planned.vsize / 10));
      expect((await world.node.testMempoolAccept(rules34.hex))[0]).toMatchObject({ allowed: false, 'reject-reason': 'replacement-failed' });
    }
  });
});

describe('relay refusals (before payment, nothing relayed)', () => {
  it('error: garbage hex is 400, an oversize body 413 (refused before it is read), an unrelated valid transaction 422', async () => {
    const [txid, other] = await replaceable((d, a) => d === 1 && a === 1);
    const before = (await world.node.getRawMempoolTxids()).length;
    expect((await relay(txid!, 'zz')).statusCode).toBe(400);
    expect((await relay(txid!, '0200000001')).statusCode).toBe(400);
    const oversize = await relay(txid!, '00'.repeat(150_000));
    expect(oversize.statusCode).toBe(413);
    expect(oversize.json().error.code).toBe('BODY_TOO_LARGE');
    // Just under the body limit, over the relay's hex limit: a clear 400.
    expect((await relay(txid!, '00'.repeat(100_001))).statusCode).toBe(400);
    const unrelated = await world.simnet.control.createSpend({ fromTxid: other ?? txid!, feeRateSatVb: 50 });
    if (other) {
      const res = await relay(txid!, unrelated.hex);
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('REPLACEMENT_NOT_CONFLICTING');
    }
    expect((await world.node.getRawMempoolTxids()).length).toBe(before);
  });
});
