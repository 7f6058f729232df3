/**
 * The service against a real Bitcoin Core (regtest, v31.99): every REST route and JSON-RPC method is
 * asked on a realistic mempool and checked against Core's own RPC answers, and Core itself
 * validates the optimized templates (`generateblock … submit=false`) on three mempools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

import { routeKey } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { openFeed } from '../helpers/feed.js';
import { ask, refreshFromCore, rpcCall, startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { bumpFee, fillMempool, fundCoins, type FillProfile, type FillReport } from './filler.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();
// The slow steps (filling Core's mempool, a cycle on 1.5 MB of it, Core building the block) have a
// 900 s budget each: alone on CI they take up to about 2 minutes (the two added profiles 78 s and
// 127 s), several times that at load 8 to 9. A budget, not a speed check: a node that hangs still
// fails within it, and every RPC call to Core has its own 120 s timeout.

const sat = (btc: number) => Math.round(btc * 1e8);
const hex = (n: number) => `0x${n.toString(16)}`;

interface MempoolInfo {
  size: number;
  bytes: number;
  total_fee: number;
  mempoolminfee: number;
  minrelaytxfee: number;
}
interface MempoolEntry {
  vsize: number;
  weight: number;
  fees: { base: number; modified: number; chunk?: number };
  chunkweight?: number;
  ancestorcount: number;
  descendantcount: number;
  depends: string[];
  spentby: string[];
}

describe.runIf(available.run)('real Bitcoin Core v31.99 on regtest', () => {
  let core: Regtest;
  let world: CoreWorld;
  let fill: FillReport;
  /** Registry keys (`GET /v1/…`, `eth_…`) asked and checked against Core. */
  const checked = new Set<string>();
  const templateLines: string[] = [];

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    await fundCoins(core, 9100);
    // A short history of full-ish blocks: confirmed transactions to look up.
    for (let k = 0; k < 3; k++) {
      await fillMempool(core, { seed: 100 + k, targetVsize: 20_000 });
      await core.mine(1);
    }
    // Core's own limits (no transaction cap, blockmintxfee 1 sat/kvB), so optimized vs Core is like for like.
    world = await startServiceOnCore(core, {
      OPTIMIZER_MAX_TX_COUNT: '100000',
      OPTIMIZER_MIN_FEE_RATE_SAT_VB: '0.001',
      ZMQ_URL: core.zmqSequenceUrl,
      ZMQ_RAWTX_URL: core.zmqRawTxUrl,
    });
    fill = await fillMempool(core, { seed: 1, profile: 'mixed' });
    await refreshFromCore(world);
  }, 900_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
    if (templateLines.length) console.log(`templates validated by Core:\n${templateLines.join('\n')}`);
  });

  it('default: the filler made a realistic mempool of more than one block', async () => {
    const info = await core.rpc<MempoolInfo>('getmempoolinfo');
    expect(info.bytes).toBeGreaterThan(1_000_000);
    for (const kind of ['payment', 'batch', 'consolidation', 'chain', 'cpfp', 'bumpfee', 'conflict', 'truc']) expect(fill.kinds[kind] ?? 0).toBeGreaterThan(0);
    expect(fill.replacements.length).toBeGreaterThan(10);
  });

  it('behavior: GET /v1/block-height and eth_blockNumber are getblockcount', async () => {
    const height = await core.rpc<number>('getblockcount');
    const { body } = await ask(world, 'GET', '/v1/block-height');
    expect(body.height).toBe(height);
    expect((await rpcCall(world, 'eth_blockNumber')).result).toBe(hex(height));
    checked.add('GET /v1/block-height').add('eth_blockNumber');
  });

  it('behavior: GET /v1/mempool/stats and /v1/mempool/fees add up to getmempoolinfo', async () => {
    const info = await core.rpc<MempoolInfo>('getmempoolinfo');
    const stats = (await ask(world, 'GET', '/v1/mempool/stats')).body;
    expect(stats.count).toBe(info.size);
    expect(stats.vsize).toBe(info.bytes);
    expect(stats.totalFeeSat).toBe(sat(info.total_fee));
    expect(stats.minFeeRateSatVb).toBeCloseTo(info.mempoolminfee * 1e5, 6);
    expect(stats.minRelayFeeRateSatVb).toBeCloseTo(info.minrelaytxfee * 1e5, 6);
    expect(stats.congestion.level).toBe('normal'); // 1 to 3 blocks pending
    const fees = (await ask(world, 'GET', '/v1/mempool/fees?target=1')).body;
    expect(fees.totals).toEqual({ count: info.size, vsize: info.bytes, feeSat: sat(info.total_fee) });
    const histogram = fees.histogram as Array<{ count: number; vsize: number; feeSat: number }>;
    expect(histogram.reduce((s, b) => s + b.vsize, 0)).toBe(info.bytes);
    expect(histogram.reduce((s, b) => s + b.feeSat, 0)).toBe(sat(info.total_fee));
    // More than a block is waiting: the next block's rate is above the floor, and eth_gasPrice says it in sat/kvB.
    expect(fees.recommended.competitive).toBe(true);
    expect(fees.recommended.feeRateSatVb).toBeGreaterThan(fees.floorFeeRateSatVb);
    const gasPrice = (await rpcCall(world, 'eth_gasPrice')).result as string;
    expect(Number(gasPrice)).toBe(Math.round(stats.nextBlock.feeRateSatVb * 1000));
    checked.add('GET /v1/mempool/stats').add('GET /v1/mempool/fees').add('eth_gasPrice');
  });

  it('behavior: GET /v1/mempool/tx/:txid is getmempoolentry, with the node chunk as the effective rate of a CPFP pair', async () => {
    const { parent, child } = fill.cpfp[0] ?? { parent: '', child: '' };
    for (const txid of [parent, child]) {
      const entry = await core.rpc<MempoolEntry>('getmempoolentry', txid);
      const { status, body } = await ask(world, 'GET', `/v1/mempool/tx/${txid}`);
      expect(status).toBe(200);
      expect(body.feeSat).toBe(sat(entry.fees.base));
      expect(body.modifiedFeeSat).toBe(sat(entry.fees.modified));
      expect(body.vsize).toBe(entry.vsize);
      expect(body.weight).toBe(entry.weight);
      // Ours count the relatives only; Core counts the transaction itself too.
      expect(body.ancestors.count).toBe(entry.ancestorcount - 1);
      expect(body.descendants.count).toBe(entry.descendantcount - 1);
      expect(body.parents).toEqual(entry.depends);
      expect(body.children).toEqual(entry.spentby);
      expect(body.effectiveFeeRate.source).toBe('node_chunk');
      expect(body.effectiveFeeRate.satVb).toBeCloseTo(sat(entry.fees.chunk ?? NaN) / ((entry.chunkweight ?? NaN) / 4), 2);
    }
    // The child pays for its parent: both are mined at the child's higher chunk rate.
    const parentAnswer = (await ask(world, 'GET', `/v1/mempool/tx/${parent}`)).body;
    expect(parentAnswer.effectiveFeeRate.satVb).toBeGreaterThan(parentAnswer.feeRateSatVb);
    checked.add('GET /v1/mempool/tx/:txid');
  });

  it('behavior: GET /v1/tx/:txid and eth_getTransactionByHash are getrawtransaction (confirmed and in the mempool)', async () => {
    const height = await core.rpc<number>('getblockcount');
    const block = await core.rpc<{ hash: string; tx: string[] }>('getblock', await core.rpc('getblockhash', height));
    const confirmed = block.tx[1] ?? '';
    const unconfirmed = fill.cpfp[0]?.child ?? '';
    for (const txid of [confirmed, unconfirmed]) {
      const raw = await core.rpc<{
        vsize: number;
        weight: number;
        version: number;
        fee?: number;
        vin: unknown[];
        vout: Array<{ value: number; scriptPubKey: { address?: string } }>;
        blockhash?: string;
        confirmations?: number;
      }>('getrawtransaction', txid, 2);
      const { status, body } = await ask(world, 'GET', `/v1/tx/${txid}`);
      expect(status).toBe(200);
      expect(body.vsize).toBe(raw.vsize);
      expect(body.weight).toBe(raw.weight);
      expect(body.version).toBe(raw.version);
      expect(body.inputs).toHaveLength(raw.vin.length);
      expect(body.outputs.map((o: { valueSat: number; address: string }) => [o.valueSat, o.address])).toEqual(
        raw.vout.map((o) => [sat(o.value), o.scriptPubKey.address]),
      );
      if (raw.fee !== undefined) expect(body.feeSat).toBe(sat(raw.fee));
      expect(body.status.confirmed).toBe(txid === confirmed);
      expect(body.status.blockHash).toBe(raw.blockhash ?? null);
      const evm = (await rpcCall(world, 'eth_getTransactionByHash', [txid])).result;
      expect(evm.hash).toBe(`0x${txid}`);
      expect(evm.blockHash).toBe(raw.blockhash ? `0x${raw.blockhash}` : null);
      expect(evm.blockNumber).toBe(txid === confirmed ? hex(height) : null);
      expect(Number(evm.value)).toBe(raw.vout.reduce((s, o) => s + sat(o.value), 0));
      expect(Number(evm.gas)).toBe(raw.vsize);
    }
    // Fees of mempool transactions: getrawtransaction has none; ours come from getmempoolentry.
    const entry = await core.rpc<MempoolEntry>('getmempoolentry', unconfirmed);
    expect((await ask(world, 'GET', `/v1/tx/${unconfirmed}`)).body.feeSat).toBe(sat(entry.fees.base));
    checked.add('GET /v1/tx/:txid').add('eth_getTransactionByHash');
  });

  it('behavior: eth_getBlockByNumber is getblock at that height', async () => {
    const height = await core.rpc<number>('getblockcount');
    for (const h of [0, height - 1, height]) {
      const block = await core.rpc<{ hash: string; previousblockhash?: string; tx: string[]; weight: number; time: number }>(
        'getblock',
        await core.rpc('getblockhash', h),
      );
      const evm = (await rpcCall(world, 'eth_getBlockByNumber', [hex(h), false])).result;
      expect(evm.number).toBe(hex(h));
      expect(evm.hash).toBe(`0x${block.hash}`);
      expect(evm.transactions).toEqual(block.tx.map((t) => `0x${t}`));
      expect(Number(evm.gasUsed)).toBe(block.weight);
      expect(Number(evm.timestamp)).toBe(block.time);
      if (block.previousblockhash) expect(evm.parentHash).toBe(`0x${block.previousblockhash}`);
    }
    expect((await rpcCall(world, 'eth_getBlockByNumber', [hex(height + 1), false])).result).toBeNull();
    checked.add('eth_getBlockByNumber');
  });

  it('behavior: bump plans and insight read Core: fees, evicted descendants, chunk rate (REST and svc_*)', async () => {
    const { parent, child } = fill.cpfp[0] ?? { parent: '', child: '' };
    const entry = await core.rpc<MempoolEntry>('getmempoolentry', parent);
    const plan = (await ask(world, 'POST', '/v1/template/bump-plan', { txid: parent, targetSatVb: 500 })).body;
    expect(plan.state).toMatchObject({ status: 'mempool', feeSat: sat(entry.fees.modified), vsize: entry.vsize, effectiveFeeRateSource: 'node_chunk' });
    expect(plan.state.descendants).toContain(child);
    // Rule 3 counts the tx and everything it evicts: Core's descendant fees.
    expect(plan.rbf.evictedFeeSat).toBe(sat((entry.fees as { descendant?: number }).descendant ?? NaN));
    expect(plan.signsOrCustodiesFunds).toBe(false);
    const viaRpc = (await rpcCall(world, 'svc_bumpPlan', [{ txid: parent, targetSatVb: 500 }])).result;
    expect(viaRpc.rbf).toEqual(plan.rbf);
    const insight = (await ask(world, 'POST', '/v1/bitcoin/insight', { txid: parent, targetSatVb: 500 })).body;
    expect(insight.templateCheck.effectiveFeeRate).toBeCloseTo(sat(entry.fees.chunk ?? NaN) / ((entry.chunkweight ?? NaN) / 4), 2);
    expect(insight.verdict).not.toBe('healthy_for_target');
    expect((await rpcCall(world, 'svc_bitcoinInsight', [{ txid: parent, targetSatVb: 500 }])).result.verdict).toBe(insight.verdict);
    const address = core.minerAddress;
    const scan = await core.rpc<{ total_amount: number; unspents: unknown[] }>('scantxoutset', 'start', [`addr(${address})`]);
    const picture = (await rpcCall(world, 'svc_addressInsight', [{ address }])).result;
    expect(picture).toMatchObject({ source: 'scantxoutset', balance: { confirmedSat: sat(scan.total_amount) }, utxos: { count: scan.unspents.length } });
    checked.add('POST /v1/template/bump-plan').add('svc_bumpPlan').add('POST /v1/bitcoin/insight').add('svc_bitcoinInsight').add('svc_addressInsight');
  });

  it('behavior: balances and UTXOs are scantxoutset (REST and eth_getBalance)', async () => {
    const address = core.minerAddress;
    const scan = await core.rpc<{ total_amount: number; unspents: Array<{ txid: string; vout: number; amount: number }> }>('scantxoutset', 'start', [
      `addr(${address})`,
    ]);
    const balance = (await ask(world, 'GET', `/v1/balance/${address}`)).body;
    expect(balance.confirmedSat).toBe(sat(scan.total_amount));
    const utxos = (await ask(world, 'GET', `/v1/utxos/${address}`)).body;
    expect(utxos.count).toBe(scan.unspents.length);
    const key = (u: { txid: string; vout: number }, value: number) => `${u.txid}:${u.vout}:${value}`;
    expect(new Set(utxos.utxos.map((u: { txid: string; vout: number; valueSat: number }) => key(u, u.valueSat)))).toEqual(
      new Set(scan.unspents.map((u) => key(u, sat(u.amount)))),
    );
    expect((await rpcCall(world, 'eth_getBalance', [address, 'latest'])).result).toBe(hex(sat(scan.total_amount)));
    checked.add('GET /v1/balance/:address').add('GET /v1/utxos/:address').add('eth_getBalance');
  });

  it('behavior: GET /v1/fee-estimate carries estimatesmartfee as Core answers it', async () => {
    for (const blocks of [2, 12, 144]) {
      const core2 = await core.rpc<{ feerate?: number; errors?: string[]; blocks: number }>('estimatesmartfee', blocks, 'conservative');
      const { body } = await ask(world, 'GET', `/v1/fee-estimate?blocks=${blocks}`);
      expect(body.estimateSmartFee.raw).toEqual(core2);
      expect(body.estimateSmartFee.feeRateSatVb).toBe(core2.feerate === undefined ? null : core2.feerate * 1e5);
      // Beyond 8 blocks the answer is Core's estimate when it has one; else the mempool projection.
      if (blocks > 8 && core2.feerate !== undefined) expect(body.source).toBe('estimatesmartfee');
      if (blocks <= 8) expect(body.source).toBe('mempool_projection');
    }
    checked.add('GET /v1/fee-estimate');
  });

  it('behavior: the replacement history records bumpfee replacements the mirror saw', async () => {
    const targets = fill.bumpable.slice(0, 5);
    const made: Array<{ replaced: string; replacement: string }> = [];
    for (const { txid, changeIndex } of targets) {
      const entry = await core.rpc<MempoolEntry>('getmempoolentry', txid);
      const rate = Math.ceil(sat(entry.fees.base) / entry.vsize) + 10;
      made.push({ replaced: txid, replacement: (await bumpFee(core, txid, changeIndex, rate)).txid });
    }
    await refreshFromCore(world);
    for (const { replaced, replacement } of made) {
      const { status, body } = await ask(world, 'GET', `/v1/mempool/tx/${replaced}/replacements`);
      expect(status).toBe(200);
      expect(JSON.stringify(body)).toContain(replacement);
    }
    checked.add('GET /v1/mempool/tx/:txid/replacements');
  });

  it('behavior: template answers agree with the optimized template Core validates', async () => {
    const cache = world.app.optimizer.service.cache;
    if (!cache) throw new Error('no optimizer cycle');
    const cpfpChild = fill.cpfp[0]?.child ?? '';
    const check = (await ask(world, 'POST', '/v1/template/check', { txid: cpfpChild })).body;
    expect(check.inOptimizedTemplate).toBe(cache.optimized.txidSet.has(cpfpChild));
    const batch = (await ask(world, 'POST', '/v1/template/batch-check', { txids: [cpfpChild, fill.cpfp[1]?.child ?? ''] })).body;
    expect(JSON.stringify(batch)).toContain(cpfpChild);
    expect((await rpcCall(world, 'svc_templateCheck', [{ txid: cpfpChild }])).result.inOptimizedTemplate).toBe(check.inOptimizedTemplate);
    expect((await rpcCall(world, 'svc_templateBatchCheck', [{ txids: [cpfpChild] }])).result).toBeDefined();
    const ladder = (await ask(world, 'POST', '/v1/template/fee-ladder', {})).body.ladder;
    const info = await core.rpc<MempoolInfo>('getmempoolinfo');
    expect(ladder.urgent.satVb).toBeGreaterThanOrEqual(ladder.normal.satVb);
    expect(ladder.normal.satVb).toBeGreaterThanOrEqual(ladder.cheap.satVb);
    expect(ladder.cheap.satVb).toBeGreaterThanOrEqual(info.mempoolminfee * 1e5);
    expect((await rpcCall(world, 'svc_feeLadder', [{}])).result.ladder).toEqual(ladder);
    const health = (await ask(world, 'GET', '/v1/template/health')).body;
    expect(health.ready).toBe(true);
    expect((await rpcCall(world, 'svc_templateHealth')).result.ready).toBe(true);
    expect((await ask(world, 'GET', '/v1/template/cache-stats')).body.cache.templates.baseline.source).toBe('node_getblocktemplate');
    checked
      .add('POST /v1/template/check')
      .add('POST /v1/template/batch-check')
      .add('POST /v1/template/fee-ladder')
      .add('GET /v1/template/health')
      .add('GET /v1/template/cache-stats')
      .add('svc_templateCheck')
      .add('svc_templateBatchCheck')
      .add('svc_feeLadder')
      .add('svc_templateHealth');
  });

  it('behavior: system routes and chain id describe this regtest node', async () => {
    const health = await ask(world, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(JSON.stringify(health.body)).toContain('regtest');
    const capabilities = (await ask(world, 'GET', '/v1/template/capabilities')).body;
    expect(capabilities.success).toBe(true);
    expect((await rpcCall(world, 'eth_chainId')).result).toBe(hex(18444));
    expect((await rpcCall(world, 'net_version')).result).toBe('18444');
    checked.add('GET /health').add('GET /v1/template/capabilities').add('eth_chainId').add('net_version');
    // OpenRPC discovery over JSON-RPC is the served document.
    expect((await rpcCall(world, 'rpc.discover')).result).toEqual((await ask(world, 'GET', '/openrpc.json')).body);
    checked.add('rpc.discover');
    // An MCP client's free tool reads the mempool Core holds; block audits answer (their recomputation from getblock is test/core/pool.test.ts).
    const mcp = await world.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'template_health', arguments: {} } },
    });
    expect(mcp.statusCode).toBe(200);
    expect(JSON.stringify(mcp.json())).toContain('structuredContent');
    checked.add('POST /mcp');
    const audits = await ask(world, 'GET', '/v1/template/block-audits');
    expect(audits.status).toBe(200);
    checked.add('GET /v1/template/block-audits');
    for (const url of ['/openapi.json', '/.well-known/openapi.json']) {
      const doc = await ask(world, 'GET', url);
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.0.3');
      checked.add(`GET ${url}`);
    }
  });

  it('behavior: the public documents, the dashboard feed and /metrics describe the mempool Core holds', async () => {
    await refreshFromCore(world);
    const info = await core.rpc<MempoolInfo>('getmempoolinfo');
    const height = await core.rpc<number>('getblockcount');
    const registry = serviceRegistry();
    for (const route of registry.routes.filter((r) => r.family === 'docs' && r.content !== 'eventStream')) {
      const { status } = await ask(world, 'GET', route.path);
      expect(status, routeKey(route)).toBe(200);
      checked.add(routeKey(route));
    }
    const overview = await world.app.inject({ method: 'GET', url: '/' });
    expect(overview.body).toContain(`height ${height.toLocaleString('en-US')}`);
    expect(overview.body).toContain(`${info.size.toLocaleString('en-US')} txs`);
    const metrics = (await world.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(new RegExp(`^mempool_transactions ${info.size}$`, 'm'));
    checked.add('GET /metrics');
    const base = await world.app.listen({ port: 0, host: '127.0.0.1' });
    const feed = await openFeed(base);
    try {
      const snapshot = await feed.next();
      expect(snapshot.node).toMatchObject({ kind: 'real', height, tip: await core.rpc<string>('getbestblockhash') });
      expect(snapshot.mempool.count).toBe(info.size);
      expect(snapshot.optimizer.latest?.baselineFeeSat).toBe(world.app.optimizer.service.cache?.baseline.feeSat);
      checked.add('GET /dashboard/feed');
    } finally {
      feed.close();
    }
  });

  const validateTemplate = async (label: string) => {
    // getblocktemplate answers from a cache for 5 s after its last build while the tip is unchanged:
    // wait it out, so Core's template and our snapshot see the same mempool.
    await new Promise((r) => setTimeout(r, 5_100));
    await refreshFromCore(world);
    const cache = world.app.optimizer.service.cache;
    if (!cache) throw new Error('no optimizer cycle');
    const { body } = await ask(world, 'POST', '/v1/template/optimized-txids', {});
    const txids = body.txids as string[];
    expect(txids).toEqual(cache.optimized.txids);
    // Core builds and checks the block (TestBlockValidity) and returns it only when it is valid.
    const block = await core.rpc<{ hash: string; hex: string }>('generateblock', core.minerAddress, txids, false);
    expect(block.hex.length).toBeGreaterThan(160);
    // Our fee is the sum of Core's own fees for these transactions.
    const mempool = await core.rpc<Record<string, MempoolEntry>>('getrawmempool', true);
    expect(txids.reduce((s, t) => s + sat(mempool[t]?.fees.modified ?? NaN), 0)).toBe(body.feeSat);
    const gbt = await core.rpc<{ transactions: Array<{ txid: string; fee: number }> }>('getblocktemplate', { rules: ['segwit'] });
    const coreFee = gbt.transactions.reduce((s, t) => s + t.fee, 0);
    // Our model of Core's miner is Core's miner; the optimized template is never worse than it.
    expect(cache.nativeV31.feeSat).toBe(coreFee);
    expect(cache.nativeV31.txCount).toBe(gbt.transactions.length);
    expect(cache.baseline.feeSat).toBe(coreFee);
    expect(cache.v31WithinRequestLimits).toBe(true);
    expect(body.feeSat).toBeGreaterThanOrEqual(coreFee);
    templateLines.push(
      `  ${label}: ${Object.keys(mempool).length} txs in the mempool; optimized ${txids.length} txs ${body.feeSat} sat vs Core getblocktemplate ${gbt.transactions.length} txs ${coreFee} sat (+${body.feeSat - coreFee} sat), bound ${cache.upperBound.feeSat} sat, valid block ${block.hash}`,
    );
    checked.add('POST /v1/template/optimized-txids');
    // The same template over JSON-RPC, with each wtxid as Core hashes the transaction with its witness.
    const rpc = (await rpcCall(world, 'svc_optimizedTxids', [{ maxTxids: 4000 }])).result as { txids: string[]; wtxids: string[] };
    expect(rpc.txids).toEqual(txids);
    for (const [i, txid] of txids.slice(0, 20).entries()) {
      expect(rpc.wtxids[i]).toBe((await core.rpc<{ hash: string }>('getrawtransaction', txid, true)).hash);
    }
    checked.add('svc_optimizedTxids');
  };

  /** Adds 350,000 vB of another profile on top of what waits: its kind now competes for the block. */
  const addProfile = async (seed: number, profile: FillProfile): Promise<FillReport> => {
    const report = await fillMempool(core, { seed, profile, targetVsize: 350_000 });
    expect((await core.rpc<MempoolInfo>('getmempoolinfo')).bytes).toBeGreaterThan(1_500_000);
    return report;
  };

  it('behavior: Core validates the optimized template of a mixed mempool, at least as rich as its own', async () => {
    await validateTemplate('mixed (seed 1)');
  }, 900_000);

  it('behavior: Core validates the optimized template of a mempool with a CPFP-heavy share', async () => {
    await addProfile(2, 'cpfp-heavy');
    await validateTemplate('mixed + cpfp-heavy (seed 2)');
  }, 900_000);

  it('behavior: Core validates the optimized template of a mempool with an RBF-heavy share', async () => {
    // The mirror follows Core's ZMQ events while the filler replaces (some versions within milliseconds).
    const report = await addProfile(3, 'rbf-heavy');
    await validateTemplate('mixed + cpfp-heavy + rbf-heavy (seed 3)');
    // The mirror follows ZMQ asynchronously: on a loaded machine the last events may land after the
    // template check, so the history is read again until complete (or 2 minutes pass).
    let recorded = 0;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      recorded = 0;
      for (const { replacedTxid, replacementTxid } of report.replacements) {
        const { status, body } = await ask(world, 'GET', `/v1/mempool/tx/${replacedTxid}/replacements`);
        if (status === 200 && body.replacedBy?.txid === replacementTxid) recorded++;
      }
      if (recorded === report.replacements.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // How the mirror followed (event gaps resynchronized by a poll, versions gone before it read them): why one would be missing.
    const health = (await ask(world, 'GET', '/health')).body;
    const events = (health.mempool ?? health.error?.details?.mempool) as { gaps: number; resyncs: number } | undefined;
    const following = `${events?.gaps} event gaps, ${events?.resyncs} resyncs, ${world.app.mempool.mirror.missedTxs} versions missed`;
    templateLines.push(
      `  replacement history (mirror on ZMQ events): ${recorded} of ${report.replacements.length} filler replacements recorded (${following})`,
    );
    expect(recorded, following).toBe(report.replacements.length);
  }, 900_000);

  it('behavior: the WebSocket stream carries a bumpfee replacement and a block made in Core', async () => {
    // The server listens since the dashboard feed's test.
    const address = world.app.server.address();
    const base = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : await world.app.listen({ host: '127.0.0.1', port: 0 });
    const ticket = (await (await fetch(`${base}/v1/mempool/stream-ticket`)).json()) as { url: string };
    const socket = new WebSocket(ticket.url);
    const frames: Array<{ seq: number; type: string; [k: string]: unknown }> = [];
    socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as (typeof frames)[number]));
    const until = async (what: () => boolean) => {
      for (const deadline = Date.now() + 120_000; !what() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
      expect(what()).toBe(true);
    };
    await until(() => frames.some((f) => f.type === 'hello'));
    const { txid, changeIndex } = fill.bumpable[5] ?? { txid: '', changeIndex: 0 };
    const entry = await core.rpc<MempoolEntry>('getmempoolentry', txid);
    const bumped = await bumpFee(core, txid, changeIndex, Math.ceil(sat(entry.fees.base) / entry.vsize) + 10);
    await until(() => frames.some((f) => f.type === 'replacement' && (f.new as { txid: string }).txid === bumped.txid));
    const replacement = frames.find((f) => f.type === 'replacement' && (f.new as { txid: string }).txid === bumped.txid);
    expect((replacement?.old as { txid: string }).txid).toBe(txid);
    expect(replacement?.feeDelta).toBeGreaterThan(0);
    const [hash] = await core.mine(1);
    await until(() => frames.some((f) => f.type === 'block' && f.hash === hash));
    const block = await core.rpc<{ height: number; nTx: number }>('getblock', hash, 1);
    expect(frames.find((f) => f.type === 'block')).toMatchObject({ height: block.height, txCount: block.nTx });
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    socket.close();
    checked.add('GET /v1/mempool/stream-ticket').add('GET /v1/mempool/stream');
  }, 900_000);

  it('default: every route and method of the registry was checked against Core', () => {
    const registry = serviceRegistry();
    const served = [...registry.routes.map((r) => `${r.method} ${r.path}`), ...registry.methods.keys()].filter((k) => k !== 'POST /v1/rpc');
    expect(served.filter((k) => !checked.has(k))).toEqual([]);
    console.log(
      `checked against Core: ${registry.routes.length - 1} REST routes and ${registry.methods.size} JSON-RPC methods (POST /v1/rpc carried every method)`,
    );
  });
});
