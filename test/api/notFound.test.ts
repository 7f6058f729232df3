/**
 * Not found is 404 and never charged (issue 21 item 3, DESIGN §5): a txid the node does not know is
 * `404 TX_NOT_FOUND` on every route and JSON-RPC `-32001` (`data.code: TX_NOT_FOUND`) on every
 * method taking one, decided before payment (a paid world: the answer is 404, not the 402
 * challenge). A confirmed transaction and a batch with at least one known txid stay real answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first } from '../helpers/first.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';
const UNKNOWN = 'ab'.repeat(32);
const UNKNOWN_2 = 'cd'.repeat(32);
let paid: TestWorld;
let free: TestWorld;
beforeAll(async () => {
  [paid, free] = await Promise.all([
    startTestWorld({ seed: 9, initialTxs: 60, env: { PAYMENTS_ENABLED: 'true', PAY_TO, X402_NETWORKS: 'eip155:84532' } }),
    startTestWorld({ seed: 9, initialTxs: 60 }),
  ]);
  await Promise.all([refresh(paid), refresh(free)]);
});
afterAll(async () => {
  await paid?.close();
  await free?.close();
});

const known = (w: TestWorld) => first([...w.app.mempool.mirror.txs.keys()]);
const rpc = (w: TestWorld, method: string, params: unknown[]) =>
  w.app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method, params } });

const rest: Array<[string, 'GET' | 'POST', (txid: string) => string, (txid: string) => object | undefined]> = [
  ['POST /v1/bitcoin/insight', 'POST', () => '/v1/bitcoin/insight', (txid) => ({ txid })],
  ['POST /v1/template/check', 'POST', () => '/v1/template/check', (txid) => ({ txid })],
  ['POST /v1/template/batch-check', 'POST', () => '/v1/template/batch-check', (txid) => ({ txids: [txid, UNKNOWN_2] })],
  ['POST /v1/template/bump-plan', 'POST', () => '/v1/template/bump-plan', (txid) => ({ txid })],
  ['GET /v1/tx/:txid', 'GET', (txid) => `/v1/tx/${txid}`, () => undefined],
  ['GET /v1/mempool/tx/:txid', 'GET', (txid) => `/v1/mempool/tx/${txid}`, () => undefined],
  ['GET /v1/mempool/tx/:txid/replacements', 'GET', (txid) => `/v1/mempool/tx/${txid}/replacements`, () => undefined],
];

describe('REST: an unknown txid is 404 TX_NOT_FOUND before payment; a known one asks for payment', () => {
  it.each(rest)('%s', async (_name, method, url, body) => {
    const payload = body(UNKNOWN);
    const res = await paid.app.inject({ method, url: url(UNKNOWN), ...(payload ? { payload } : {}) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('TX_NOT_FOUND');
    expect(res.headers['payment-required']).toBeUndefined();
    const knownPayload = body(known(paid));
    const ok = await paid.app.inject({ method, url: url(known(paid)), ...(knownPayload ? { payload: knownPayload } : {}) });
    expect(ok.statusCode).toBe(402);
  });
});

describe('JSON-RPC: an unknown txid is -32001 TX_NOT_FOUND, priced at nothing', () => {
  it.each([
    ['svc_bitcoinInsight', (txid: string) => [{ txid }]],
    ['svc_templateCheck', (txid: string) => [{ txid }]],
    ['svc_templateBatchCheck', (txid: string) => [{ txids: [txid] }]],
    ['svc_bumpPlan', (txid: string) => [{ txid }]],
  ])('%s', async (method, params) => {
    const res = await rpc(paid, method, params(UNKNOWN));
    expect(res.statusCode).toBe(200);
    expect(res.json().error).toMatchObject({ code: -32001, data: { code: 'TX_NOT_FOUND' } });
    expect((await rpc(paid, method, params(known(paid)))).statusCode).toBe(402);
  });
});

describe('real answers stay real', () => {
  it('a batch with one known txid answers, the unknown one outside the snapshot', async () => {
    const txid = known(free);
    const res = await free.app.inject({ method: 'POST', url: '/v1/template/batch-check', payload: { txids: [txid, UNKNOWN] } });
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Array<{ txid: string; inMempoolSnapshot: boolean }>;
    expect(results.find((r) => r.txid === UNKNOWN)?.inMempoolSnapshot).toBe(false);
    expect(results.find((r) => r.txid === txid)?.inMempoolSnapshot).toBe(true);
  });

  it('a confirmed transaction is a charged answer (402 when unpaid), with verdict confirmed when answered', async () => {
    const before = new Set(free.app.mempool.mirror.txs.keys());
    const paidBefore = new Set(paid.app.mempool.mirror.txs.keys());
    await Promise.all([free.simnet.control.mineBlocks(1), paid.simnet.control.mineBlocks(1)]);
    await Promise.all([refresh(free), refresh(paid)]);
    const txid = first([...before].filter((t) => !free.app.mempool.mirror.txs.has(t)));
    const paidTxid = first([...paidBefore].filter((t) => !paid.app.mempool.mirror.txs.has(t)));
    const confirmed = await free.app.inject({ method: 'POST', url: '/v1/bitcoin/insight', payload: { txid } });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().verdict).toBe('confirmed');
    const unpaid = await paid.app.inject({ method: 'POST', url: '/v1/bitcoin/insight', payload: { txid: paidTxid } });
    expect(unpaid.statusCode).toBe(402);
  });
});
