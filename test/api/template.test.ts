import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { txidsDigest, verifyReceipt } from '../../src/optimizer/cache/receipts.js';
import { buildCoinbase, witnessCommitmentHex } from '../../src/simnet/chain/block.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 500, seed: 5 });
});
afterAll(() => world?.close());

const post = (url: string, payload?: unknown) => world.app.inject({ method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }) });
const get = (url: string) => world.app.inject({ method: 'GET', url });

describe('before the first cycle', () => {
  it('behavior: paid template routes answer 503 with Retry-After, free ones say not ready', async () => {
    const res = await post('/v1/template/check', { txid: 'ab'.repeat(32) });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.json().error.code).toBe('TEMPLATE_NOT_READY');
    expect((await get('/v1/template/health')).json()).toMatchObject({ ready: false });
    expect((await get('/v1/template/capabilities')).json().optimizerCache.ready).toBe(false);
  });
});

describe('after a cycle', () => {
  beforeAll(async () => {
    await world.app.mempool.mirror.poll();
    await world.app.optimizer.service.refresh();
  });

  it('default: check answers with every field of the spec', async () => {
    const cache = world.app.optimizer.service.cache!;
    const txid = cache.optimized.txids[0]!;
    const body = (await post('/v1/template/check', { txid })).json();
    expect(body).toMatchObject({
      success: true,
      txid,
      source: 'core_v31_optimizer_cache',
      mode: 'live_cached',
      inOptimizedTemplate: true,
      inBaselineTemplate: cache.baseline.txidSet.has(txid),
      baselineComparisonAvailable: true,
      optimizerAdvantage: !cache.baseline.txidSet.has(txid),
      comparison: { available: true },
      targetBlocks: 6,
      projectedBlock: 1,
      withinTarget: true,
    });
    expect(new Date(body.cachedAt).toISOString()).toBe(body.cachedAt);
    expect(body.note).toMatch(/not a guarantee/);
    const c = body.comparison;
    expect(c.overlapTxidCount + c.optimizedOnlyTxidCount).toBe(cache.optimized.txCount);
    expect(c.overlapTxidCount + c.baselineOnlyTxidCount).toBe(cache.baseline.txCount);
  });

  it('behavior: the node baseline is the simulated node getblocktemplate on the same tip', async () => {
    const cache = world.app.optimizer.service.cache!;
    expect(cache.baseline.source).toBe('node_getblocktemplate');
    expect(cache.comparison.sameTip).toBe(true);
    expect(cache.optimized.feeSat).toBeGreaterThanOrEqual(cache.nativeV31.feeSat);
    expect(cache.upperBound.feeSat).toBeGreaterThanOrEqual(cache.optimized.feeSat);
  });

  it('behavior: a txid the node does not know is 404 TX_NOT_FOUND (never an answer to pay for)', async () => {
    const res = await post('/v1/template/check', { txid: 'CD'.repeat(32), targetBlocks: 2 });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('TX_NOT_FOUND');
  });

  it('default: batch-check answers one result per txid, in order', async () => {
    const txids = [...world.app.mempool.mirror.txs.keys()].slice(0, 10);
    const body = (await post('/v1/template/batch-check', { txids, targetBlocks: 3 })).json();
    expect(body.count).toBe(10);
    expect(body.results.map((r: { txid: string }) => r.txid)).toEqual(txids);
  });

  it.each([[[]], [Array.from({ length: 11 }, (_, i) => i.toString(16).padStart(64, '0'))], [['zz'.repeat(32)]]])(
    'error: batch-check refuses %j',
    async (txids) => {
      const res = await post('/v1/template/batch-check', { txids });
      expect(res.statusCode).toBe(400);
    },
  );

  it('default: fee-ladder with no body uses 6 blocks; rungs are monotone', async () => {
    const body = (await post('/v1/template/fee-ladder')).json();
    expect(body).toMatchObject({ success: true, targetBlocks: 6 });
    const { urgent, normal, cheap } = body.ladder;
    for (const rung of [urgent, normal, cheap]) expect(rung).toEqual(expect.objectContaining({ satVb: expect.any(Number), useWhen: expect.any(String) }));
    expect(urgent.satVb).toBeGreaterThanOrEqual(normal.satVb);
    expect(normal.satVb).toBeGreaterThanOrEqual(cheap.satVb);
    const empty = await world.app.inject({ method: 'POST', url: '/v1/template/fee-ladder', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(empty.json().targetBlocks).toBe(6);
    expect((await post('/v1/template/fee-ladder', { targetBlocks: 0 })).statusCode).toBe(400);
  });

  it('default: optimized-txids are in block order, parents first, with a verifiable receipt', async () => {
    const body = (await post('/v1/template/optimized-txids', {})).json();
    const caps = (await get('/v1/template/capabilities')).json();
    expect(body.txids.length).toBe(body.txCount);
    expect(body.weightLimit).toBe(4_000_000);
    expect(body.receipt.payload.optimized.txidsSha256).toBe(txidsDigest(body.txids));
    expect(
      verifyReceipt(
        { payload: body.receipt.payload, signature: body.receipt.signature, publicKey: body.receipt.publicKey },
        caps.optimizerCache.receipt.publicKey,
      ),
    ).toBe(true);
    const position = new Map<string, number>(body.txids.map((t: string, i: number) => [t, i]));
    for (const [txid, i] of position) {
      for (const parent of world.app.mempool.mirror.txs.get(txid)?.parents ?? []) {
        expect(position.get(parent), `parent ${parent} of ${txid} missing or after it`).toBeLessThan(i);
      }
    }
    const few = (await post('/v1/template/optimized-txids', { maxTxids: 3 })).json();
    expect(few).toMatchObject({ returnedTxidCount: 3, truncated: true });
    expect(few.txids).toEqual(body.txids.slice(0, 3));
    expect((await post('/v1/template/optimized-txids', { maxTxids: 4001 })).statusCode).toBe(400);
  });

  it("default: optimized-txids and svc_optimizedTxids carry the node's wtxids in template order and the BIP 141 commitment over them", async () => {
    const body = (await post('/v1/template/optimized-txids', {})).json();
    expect(body.txCount).toBeGreaterThan(0);
    expect(body.wtxids).toHaveLength(body.txids.length);
    const segwit = body.wtxids.filter((w: string, i: number) => w !== body.txids[i]).length;
    expect(segwit, 'the world holds segwit transactions (wtxid ≠ txid)').toBeGreaterThan(0);
    const raws = await world.node.getRawTransactionsVerbose(body.txids);
    body.txids.forEach((txid: string, i: number) => expect(body.wtxids[i], txid).toBe(raws.get(txid)?.hash));
    // The simulated node's own coinbase builder (an implementation of its own) over the same wtxids.
    expect(body.defaultWitnessCommitment).toBe(witnessCommitmentHex(buildCoinbase(body.height, 0, new Uint8Array([0x51]), body.wtxids)));
    const few = (await post('/v1/template/optimized-txids', { maxTxids: 2 })).json();
    expect(few.wtxids).toEqual(body.wtxids.slice(0, 2));
    expect(few.defaultWitnessCommitment).toBe(body.defaultWitnessCommitment);
    const rpc = (await post('/v1/rpc', { jsonrpc: '2.0', id: 1, method: 'svc_optimizedTxids', params: [{ maxTxids: 2 }] })).json();
    expect(rpc.result?.wtxids ?? rpc.error).toEqual(body.wtxids.slice(0, 2));
  });

  it('default: capabilities carry every field of the spec, true to the running state', async () => {
    const caps = (await get('/v1/template/capabilities')).json();
    for (const key of [
      'success',
      'name',
      'tagline',
      'optimizer',
      'optimizerCache',
      'directCheckConfigured',
      'directCheckMode',
      'payment',
      'pricingUsdc',
      'whatBotsCanAsk',
      'exposedSafely',
      'notExposed',
      'limits',
      'jsonRpc',
      'rest',
      'examples',
      'timestamp',
    ]) {
      expect(caps, key).toHaveProperty(key);
    }
    const oc = caps.optimizerCache;
    for (const key of [
      'enabled',
      'configured',
      'ready',
      'source',
      'mode',
      'baseline',
      'mempool',
      'baselineComparison',
      'cachedAt',
      'cacheAgeMs',
      'optimizedTxidCount',
      'cacheIntervalSeconds',
      'timeoutSeconds',
      'request',
      'cycleCount',
      'lastError',
      'lastStatus',
      'refreshInProgress',
      'lastDurationMs',
      'lastTemplateSummary',
      'receipt',
    ]) {
      expect(oc, key).toHaveProperty(key);
    }
    expect(oc.baseline.summary).toMatchObject({
      selectedTxCount: expect.any(Number),
      height: expect.any(Number),
      previousBlockHash: expect.any(String),
      weightLimit: 4_000_000,
      coinbaseValue: expect.any(Number),
    });
    expect(oc.request).toEqual({ use_optimizer: true, max_tx_count: 4000, min_fee_rate_sat_vb: 1, include_raw_hex: false });
    expect(oc.cycleCount).toBe(world.app.optimizer.service.cycleCount);
    expect(oc.mempool.size).toBe(world.app.mempool.mirror.txs.size);
    expect(oc.receipt).toMatchObject({ present: true, schema: 'bench-receipt/1', alg: 'Ed25519' });
    expect(caps.payment).toMatchObject({ customerApiKeys: false });
    expect(caps.limits).toMatchObject({ batchCheckMaxTxids: 10, streamTicketTtlSeconds: 600, customerAuth: 'x402 only' });
    expect(caps.jsonRpc.methods.map((m: { method: string }) => m.method)).toEqual(
      expect.arrayContaining(['eth_blockNumber', 'svc_templateCheck', 'svc_feeLadder']),
    );
    expect(caps.rest.endpoints.map((e: { path: string }) => e.path)).toContain('/v1/template/check');
    expect(Math.abs(caps.timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('behavior: capabilities report the mempool fee total in satoshis, like every unlabeled amount', async () => {
    const oc = (await get('/v1/template/capabilities')).json().optimizerCache;
    const info = world.app.mempool.mirror.info!;
    expect(oc.mempool.totalFee).toBe(Math.round(info.total_fee! * 1e8));
    expect(Number.isInteger(oc.mempool.totalFee)).toBe(true);
    expect(oc.mempool.totalFee).toBeGreaterThan(1000);
  });

  it('default: cache-stats report the cycle phases and the templates against the bound', async () => {
    const stats = (await get('/v1/template/cache-stats')).json();
    expect(stats.history[0]).toMatchObject({
      status: 'ok',
      phasesMs: { snapshot: expect.any(Number), optimize: expect.any(Number), publish: expect.any(Number) },
    });
    const t = stats.cache.templates;
    expect(t.optimized.gapSat).toBeGreaterThanOrEqual(0);
    expect(t.optimized.feeSat).toBeGreaterThanOrEqual(t.nativeV31.feeSat);
    expect(t.sigopsBinding).toBe(false);
    expect(t.upperBound.exact).toBe(true);
    // Solved: the bound is the exact optimum (or the optimized fee), so the gap is a true certificate.
    expect(t.upperBound.solved).toBe(true);
    expect(stats.cache.clusters.count).toBeGreaterThan(0);
  });

  it('default: svc_* methods answer as the REST routes', async () => {
    const txid = world.app.optimizer.service.cache!.optimized.txids[0]!;
    const res = await world.app.inject({
      method: 'POST',
      url: '/v1/rpc',
      payload: [
        { jsonrpc: '2.0', id: 1, method: 'svc_templateHealth', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'svc_templateCheck', params: [{ txid }] },
        { jsonrpc: '2.0', id: 3, method: 'svc_templateBatchCheck', params: [{ txids: [txid] }] },
        { jsonrpc: '2.0', id: 4, method: 'svc_feeLadder', params: [{ targetBlocks: 2 }] },
        { jsonrpc: '2.0', id: 5, method: 'svc_templateCheck', params: [{ txid: 'nope' }] },
      ],
    });
    const [health, check, batch, ladder, bad] = res.json();
    expect(health.result.ready).toBe(true);
    expect(check.result).toMatchObject({ txid, inOptimizedTemplate: true });
    expect(batch.result.results[0].txid).toBe(txid);
    expect(ladder.result.targetBlocks).toBe(2);
    expect(bad.error.code).toBe(-32602);
  });
});
