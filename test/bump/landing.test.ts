/**
 * The plan's landing block on a simulated mempool of about three blocks: a transaction projected
 * past block 1, bumped (RBF, and CPFP for another one) at the plan's fee for targetBlocks 1 (the
 * fee ladder's rate, block 1's cutoff), is at the next optimizer cycle between the earliest block
 * and the certain block the plan named; well above the cutoff, in block 1 exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { txProjectedPlacement } from '../../src/optimizer/cache/templateCache.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ seed: 13, initialTxs: 9000 });
  await refresh(world);
}, 240_000); // 9,000 signed arrivals, each signature verified by the node: about a minute alone, more beside other suites
afterAll(() => world?.close());

const post = (url: string, payload: unknown) => world.app.inject({ method: 'POST', url, payload: payload as object });

/** Lone transactions the simulator owns, projected after block 1. */
async function lateAndOwned(count: number): Promise<string[]> {
  const cache = world.app.optimizer.service.cache!;
  const pool = await world.node.getRawMempoolVerbose();
  const out: string[] = [];
  for (const [txid, e] of Object.entries(pool)) {
    if (e.ancestorcount !== 1 || e.descendantcount !== 1) continue;
    const placement = txProjectedPlacement(cache, txid);
    if (placement === undefined || placement.block < 2) continue;
    const owned = await world.simnet.control.createSpend({ fromTxid: txid, feeRateSatVb: 50 }).then(
      () => true,
      () => false,
    );
    if (owned) out.push(txid);
    if (out.length >= count) break;
  }
  expect(out.length).toBe(count);
  return out;
}

describe('landing', () => {
  it('behavior: RBF and CPFP bumps at the planned fee land in the projected block the plan named', async () => {
    expect(world.app.optimizer.service.cache!.projectedBlocks[0]!.weightWu).toBeGreaterThan(3_900_000);
    const [forRbf, forCpfp] = await lateAndOwned(2);
    const check = async (txid: string) => (await post('/v1/template/check', { txid })).json().projectedBlock as number | null;
    expect(await check(forRbf!)).toBeGreaterThan(1);

    const rbfPlan = (await post('/v1/template/bump-plan', { txid: forRbf, targetBlocks: 1 })).json();
    expect(rbfPlan.target.source).toBe('fee_ladder');
    expect(rbfPlan.landing.rbf.earliestBlock).toBe(1);
    const replacement = await world.simnet.control.createSpend({ fromTxid: forRbf!, feeRateSatVb: 1, feeSat: rbfPlan.rbf.feeSat });
    const relayed = await post('/v1/bitcoin/insight', {
      txid: forRbf,
      targetBlocks: 1,
      action: 'broadcast_signed_replacement',
      signedReplacementHex: replacement.hex,
    });
    expect(relayed.json().broadcast.accepted).toBe(true);

    const cpfpPlan = (await post('/v1/template/bump-plan', { txid: forCpfp, targetBlocks: 1 })).json();
    const best = cpfpPlan.cpfp.best;
    expect(cpfpPlan.landing.cpfp.earliestBlock).toBe(1);
    const child = await world.simnet.control.createSpend({ fromTxid: forCpfp!, kind: 'child', vout: best.vout, feeRateSatVb: 1, feeSat: best.childFeeSat });
    expect(
      (await post('/v1/bitcoin/insight', { txid: forCpfp, action: 'broadcast_signed_replacement', signedReplacementHex: child.hex })).json().broadcast.accepted,
    ).toBe(true);

    await refresh(world);
    const within = (block: number | null, landing: { block: number; earliestBlock: number }) => {
      expect(block).not.toBeNull();
      expect(block!).toBeGreaterThanOrEqual(landing.earliestBlock);
      expect(block!).toBeLessThanOrEqual(landing.block);
    };
    within(await check(replacement.txid), rbfPlan.landing.rbf);
    within(await check(forCpfp!), cpfpPlan.landing.cpfp);

    // Well above block 1's tail window, the place is certain: block 1.
    const [third] = (await lateAndOwned(3)).slice(2);
    const cutoff = world.app.optimizer.service.cache!.projectedBlocks[0]!.minFeeRateSatVb;
    const sure = (await post('/v1/template/bump-plan', { txid: third, targetSatVb: Math.ceil(cutoff * 1.2) })).json();
    expect(sure.landing.rbf).toMatchObject({ block: 1, earliestBlock: 1 });
    const fast = await world.simnet.control.createSpend({ fromTxid: third!, feeRateSatVb: 1, feeSat: sure.rbf.feeSat });
    await world.node.sendRawTransaction(fast.hex);
    await refresh(world);
    expect(await check(fast.txid)).toBe(1);
  });
});
