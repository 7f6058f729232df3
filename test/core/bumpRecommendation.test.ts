/**
 * Issue 21 item 6 on a real Bitcoin Core: in a mempool fuller than one block, a low-fee wallet
 * transaction asks for a bump to the next block (`targetBlocks: 1`); the `recommended` plan, carried
 * out with Core's wallet, is in Core's next `getblocktemplate`. A `not_possible` answer must say
 * `target_unreachable` and no method may reach block 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ask, refreshFromCore, startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { fillMempool, fundCoins } from './filler.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();
const btc = (sat: number) => (sat / 1e8).toFixed(8);
const PAY = 10_000_000;

interface Built {
  hex: string;
  txid: string;
  vsize: number;
}

describe.runIf(available.run)('a recommended bump to block 1, carried out on real Core', () => {
  let core: Regtest;
  let world: CoreWorld;
  let input: { txid: string; vout: number; sat: number };
  let payee: string;
  let change: string;

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    await fundCoins(core, 7000);
    const unspent = await core.rpc<Array<{ txid: string; vout: number; amount: number }>>('listunspent', 1);
    const big = unspent.find((u) => u.amount >= 1);
    if (!big) throw new Error('no coin of 1 BTC');
    input = { txid: big.txid, vout: big.vout, sat: Math.round(big.amount * 1e8) };
    payee = await core.rpc<string>('getnewaddress', '', 'bech32');
    change = await core.rpc<string>('getrawchangeaddress', 'bech32');
    world = await startServiceOnCore(core, { OPTIMIZER_MAX_TX_COUNT: '100000', OPTIMIZER_MIN_FEE_RATE_SAT_VB: '0.001' });
  }, 300_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
  });

  /** Pays 0.1 BTC from the input, the rest less `feeSat` to change; signed by Core's wallet. */
  async function build(feeSat: number): Promise<Built> {
    const raw = await core.rpc<string>(
      'createrawtransaction',
      [{ txid: input.txid, vout: input.vout }],
      [{ [payee]: btc(PAY) }, { [change]: btc(input.sat - PAY - feeSat) }],
      0,
      true,
    );
    const { hex } = await core.rpc<{ hex: string }>('signrawtransactionwithwallet', raw);
    const decoded = await core.rpc<{ txid: string; vsize: number }>('decoderawtransaction', hex);
    return { hex, txid: decoded.txid, vsize: decoded.vsize };
  }

  /** The txids of Core's next block template. */
  async function template(): Promise<Set<string>> {
    const gbt = await core.rpc<{ transactions: Array<{ txid: string }> }>('getblocktemplate', { rules: ['segwit'] });
    return new Set(gbt.transactions.map((t) => t.txid));
  }

  it('behavior: the recommended plan for targetBlocks 1 puts the transaction in Core’s next getblocktemplate', async () => {
    const original = await build(150); // about 1 sat/vB: below a full block's cutoff
    await core.rpc('sendrawtransaction', original.hex);
    await fillMempool(core, { seed: 7 });
    const info = await core.rpc<{ bytes: number }>('getmempoolinfo');
    expect(info.bytes).toBeGreaterThan(1_000_000);
    expect(await template()).not.toContain(original.txid);

    await refreshFromCore(world);
    const { status, body: plan } = await ask(world, 'POST', '/v1/template/bump-plan', { txid: original.txid, targetBlocks: 1 });
    expect(status).toBe(200);
    console.log(
      `recommended ${plan.recommended} (${plan.reason}); effect block ${plan.effect?.projectedBlockAfter}; landing rbf ${plan.landing.rbf?.block} cpfp ${plan.landing.cpfp?.block}`,
    );
    expect(plan.state.status).toBe('mempool');
    expect(plan.state.projectedBlock).toBeGreaterThan(1);

    if (plan.recommended === 'not_possible') {
      expect(plan.reason).toBe('target_unreachable');
      for (const l of [plan.landing.rbf, plan.landing.cpfp]) if (l) expect(l.block).toBeGreaterThan(1);
      return;
    }
    expect(['rbf_signed_replacement', 'cpfp_child']).toContain(plan.recommended);
    // The plan keeps its own promise.
    expect(plan.effect.projectedBlockAfter).toBe(1);

    let inTemplate: string[];
    if (plan.recommended === 'rbf_signed_replacement') {
      // Same inputs and outputs: the same vsize; pays at least the plan's fee.
      const replacement = await build(Math.max(plan.rbf.feeSat, Math.ceil(plan.effect.feeRateSatVb * original.vsize)));
      expect(replacement.vsize).toBe(original.vsize);
      await core.rpc('sendrawtransaction', replacement.hex);
      inTemplate = [replacement.txid];
    } else {
      const best = plan.cpfp.best;
      const raw = await core.rpc<string>(
        'createrawtransaction',
        [{ txid: original.txid, vout: best.vout }],
        [{ [change]: btc(best.valueSat - best.childFeeSat) }],
        0,
        true,
      );
      const { hex } = await core.rpc<{ hex: string }>('signrawtransactionwithwallet', raw);
      const kid = await core.rpc<string>('sendrawtransaction', hex);
      inTemplate = [original.txid, kid];
    }
    // Core rebuilds a cached template once the mempool changed and 5 s passed: wait that out, then ask.
    await new Promise((r) => setTimeout(r, 6000));
    const next = await template();
    for (const txid of inTemplate) expect(next).toContain(txid);
  }, 600_000);
});
