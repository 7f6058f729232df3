/**
 * Insight and the bump methods over REST and JSON-RPC on the simulated node: verdicts, the same
 * plan from `svc_bumpPlan`, the address picture, and refusals answered before any payment is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
let world: TestWorld;
let paid: TestWorld;

beforeAll(async () => {
  [world, paid] = await Promise.all([
    startTestWorld({ seed: 5, initialTxs: 150 }),
    startTestWorld({ seed: 5, initialTxs: 150, env: { PAYMENTS_ENABLED: 'true', PAY_TO, X402_NETWORKS: 'eip155:84532' } }),
  ]);
  await Promise.all([refresh(world), refresh(paid)]);
});
afterAll(async () => {
  await world?.close();
  await paid?.close();
});

const post = (w: TestWorld, url: string, payload: unknown) => w.app.inject({ method: 'POST', url, payload: payload as object });
const rpc = async (w: TestWorld, method: string, params: unknown[]) => (await post(w, '/v1/rpc', { jsonrpc: '2.0', id: 1, method, params })).json();

async function highestRateTx(w: TestWorld): Promise<string> {
  const pool = await w.node.getRawMempoolVerbose();
  const [best] = Object.entries(pool).sort((a, b) => b[1].fees.modified / b[1].vsize - a[1].fees.modified / a[1].vsize);
  return best![0];
}

describe('insight', () => {
  it('default: a well-paying tx is healthy, needs no bump, and the service signs nothing', async () => {
    const txid = await highestRateTx(world);
    const res = await post(world, '/v1/bitcoin/insight', { txid, targetSatVb: 1 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      verdict: 'healthy_for_target',
      bump: { available: false, method: 'none_needed', signsOrCustodiesFunds: false },
    });
    expect(body.templateCheck).toMatchObject({ mode: 'live_cached', source: 'core_v31_optimizer_cache', inOptimizedTemplate: true, targetFeeRate: 1 });
    expect(body.summary).toMatch(/no bump needed/);
  });

  it('behavior: a tx far below the target is told to bump, with the plan’s fee in the sentence', async () => {
    const pool = await world.node.getRawMempoolVerbose();
    const [low] = Object.entries(pool)
      .filter(([, e]) => e.ancestorcount === 1)
      .sort((a, b) => a[1].fees.modified / a[1].vsize - b[1].fees.modified / b[1].vsize);
    const body = (await post(world, '/v1/bitcoin/insight', { txid: low![0], targetSatVb: 500 })).json();
    expect(['at_risk_for_target', 'below_target_bump_recommended']).toContain(body.verdict);
    expect(body.bump.available).toBe(true);
    expect(body.bump.additionalFeeSats).toBe(body.bump.plan.additionalFeeSats);
    expect(body.summary).toContain(`${body.bump.additionalFeeSats} sat more`);
  });

  it('behavior: an unknown txid is 404 TX_NOT_FOUND, not a verdict to pay for', async () => {
    const res = await post(world, '/v1/bitcoin/insight', { txid: 'ab'.repeat(32), targetSatVb: 1 });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('TX_NOT_FOUND');
  });

  it('default: svc_bumpPlan and svc_bitcoinInsight answer what REST answers', async () => {
    const txid = await highestRateTx(world);
    const rest = (await post(world, '/v1/template/bump-plan', { txid, targetSatVb: 3 })).json();
    const viaRpc = await rpc(world, 'svc_bumpPlan', [{ txid, targetSatVb: 3 }]);
    expect(viaRpc.result.rbf).toEqual(rest.rbf);
    expect(viaRpc.result.recommended).toBe(rest.recommended);
    const insight = await rpc(world, 'svc_bitcoinInsight', [{ txid, targetSatVb: 3 }]);
    expect(insight.result.verdict).toBe('healthy_for_target');
  });

  it('default: svc_addressInsight shows balances, the unconfirmed txs paying the address, and its CPFP-able outputs', async () => {
    const address = (await world.simnet.control.walletAddresses()).find((a) => a.unconfirmedSat > 0)!;
    const { result } = await rpc(world, 'svc_addressInsight', [{ address: address.address }]);
    expect(result.balance).toMatchObject({ confirmedSat: address.confirmedSat, unconfirmedSat: address.unconfirmedSat });
    expect(result.unconfirmedTransactions.length).toBeGreaterThan(0);
    for (const t of result.unconfirmedTransactions) expect(t.verdict).not.toBe('not_found');
    expect(result.cpfpCandidates.length).toBe(result.utxos.unconfirmedCount);
    const insight = (await post(world, '/v1/bitcoin/insight', { txid: result.unconfirmedTransactions[0].txid, address: address.address })).json();
    expect(insight.address.address).toBe(address.address);
  });
});

describe('address insight of a sender', () => {
  it('behavior: a payment the address sent (the stuck one a person asks about) is listed with its verdict', async () => {
    const pool = await world.node.getRawMempoolVerbose();
    for (const txid of Object.keys(pool).slice(0, 20)) {
      const input = (await world.node.getRawTransaction(txid)).vin[0];
      if (input?.txid === undefined) continue;
      const from = (await world.node.getRawTransaction(input.txid)).vout[input.vout ?? 0]?.scriptPubKey.address;
      if (!from) continue;
      const { result } = await rpc(world, 'svc_addressInsight', [{ address: from }]);
      const row = result.unconfirmedTransactions.find((t: { txid: string }) => t.txid === txid);
      expect(row).toBeDefined();
      expect(row.verdict).not.toBe('not_found');
      return;
    }
    throw new Error('no mempool transaction with a prevout address');
  });
});

describe('refusals come before payment', () => {
  it('error: malformed hex is 400 and an unrelated transaction 422, unpaid; a valid request is 402', async () => {
    const txid = await highestRateTx(paid);
    expect((await post(paid, '/v1/bitcoin/insight', { txid })).statusCode).toBe(402);
    const garbage = await post(paid, '/v1/bitcoin/insight', { txid, action: 'broadcast_signed_replacement', signedReplacementHex: 'deadbeef' });
    expect(garbage.statusCode).toBe(400);
    const missing = await post(paid, '/v1/bitcoin/insight', { txid, action: 'broadcast_signed_replacement' });
    expect(missing.statusCode).toBe(400);
    const pool = await paid.node.getRawMempoolVerbose();
    const other = Object.keys(pool).find((t) => t !== txid && pool[t]!.ancestorcount === 1 && !pool[txid]!.spentby.includes(t))!;
    const unrelated = await paid.node.getRawTransactionHex(other);
    const res = await post(paid, '/v1/bitcoin/insight', { txid, action: 'broadcast_signed_replacement', signedReplacementHex: unrelated });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('REPLACEMENT_NOT_CONFLICTING');
    const viaRpc = await rpc(paid, 'svc_bitcoinInsight', [{ txid, action: 'broadcast_signed_replacement', signedReplacementHex: unrelated }]);
    expect(viaRpc.error).toBeDefined();
    expect((await post(paid, '/v1/template/bump-plan', { txid: 'xyz' })).statusCode).toBe(400);
  });
});
