/**
 * The getblocktemplate drop-in against real Bitcoin Core v31.99 (regtest): Core's own bitcoin-cli
 * gets the optimized template from it, the test assembles and grinds a block as a pool does, Core
 * judges it (proposal mode) and `submitblock` through the drop-in makes it the tip. Refusals,
 * forwarding and long polling are checked with Core behind it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { assembleBlock, type TemplateForBlock } from './blockAssembly.js';
import { ask, refreshFromCore, startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { fillMempool, fundCoins } from './filler.js';
import { coreAvailability, findBitcoinCli, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

interface Gbt extends TemplateForBlock {
  transactions: Array<{ data: string; txid: string; hash: string; fee: number; depends: number[]; sigops: number; weight: number }>;
  longpollid: string;
  rules: string[];
  sigoplimit: number;
  weightlimit: number;
  sizelimit: number;
  mintime: number;
}

const sum = (txs: ReadonlyArray<{ fee: number }>) => txs.reduce((s, t) => s + t.fee, 0);

describe.runIf(available.run)('getblocktemplate drop-in on real Bitcoin Core v31.99', () => {
  let core: Regtest;
  let world: CoreWorld;
  let cliDir: string;
  let port: number;
  let cookie: string;

  /** Core's bitcoin-cli pointed at the drop-in; `stdin` for arguments too long for a command line. */
  const cli = (args: string[], stdin?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const cliPath = findBitcoinCli();
      if (!('path' in cliPath)) throw new Error(cliPath.missing);
      const child = execFile(
        cliPath.path,
        [`-datadir=${cliDir}`, '-rpcconnect=127.0.0.1', `-rpcport=${port}`, `-rpccookiefile=${cookie}`, ...(stdin === undefined ? [] : ['-stdin']), ...args],
        { maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      if (stdin !== undefined) child.stdin?.end(`${stdin}\n`);
    });
  const poolCall = (method: string, params: unknown[], auth?: string) =>
    fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth === undefined ? {} : { authorization: auth }) },
      body: JSON.stringify({ jsonrpc: '1.0', id: 'test', method, params }),
    });

  beforeAll(async () => {
    if (!available.run) return;
    core = await startRegtest(available.path);
    await fundCoins(core, 700);
    world = await startServiceOnCore(core, {
      POOL_RPC_PORT: '0',
      OPTIMIZER_MAX_TX_COUNT: '100000',
      OPTIMIZER_MIN_FEE_RATE_SAT_VB: '0.001',
      ZMQ_URL: core.zmqSequenceUrl,
      ZMQ_RAWTX_URL: core.zmqRawTxUrl,
    });
    const server = world.app.poolRpc.server;
    if (!server || !world.app.poolRpc.cookiePath) throw new Error('the drop-in did not start');
    port = server.address().port;
    cookie = world.app.poolRpc.cookiePath;
    cliDir = mkdtempSync(join(tmpdir(), 'btc-intel-cli-'));
    // A realistic mix (chains, CPFP, replacements, TRUC), kept small: this machine is shared.
    await fillMempool(core, { seed: 23, targetVsize: 60_000 });
    await refreshFromCore(world);
  }, 900_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
    if (cliDir) rmSync(cliDir, { recursive: true, force: true });
  });

  it('default: bitcoin-cli gets the optimized template; the block a pool assembles from it is valid, and submitblock through the drop-in makes it the tip', async () => {
    const cache = world.app.optimizer.service.cache;
    if (!cache) throw new Error('no optimized template');
    const coreOwn = await core.rpc<Gbt>('getblocktemplate', { rules: ['segwit'] });
    const got = await cli(['getblocktemplate', '{"rules":["segwit"]}']);
    expect(got.stderr).toBe('');
    const t = JSON.parse(got.stdout) as Gbt;

    // The optimized template, in Core's form, with the node's header fields.
    expect(t.transactions.map((x) => x.txid)).toEqual(cache.optimized.txids);
    for (const key of ['version', 'previousblockhash', 'bits', 'target', 'height', 'rules', 'sigoplimit', 'weightlimit', 'sizelimit', 'mintime'] as const)
      expect(t[key], key).toEqual(coreOwn[key]);
    expect(sum(t.transactions)).toBe(cache.optimized.feeSat);
    expect(sum(t.transactions)).toBeGreaterThanOrEqual(sum(coreOwn.transactions));
    expect(t.coinbasevalue).toBe(coreOwn.coinbasevalue - sum(coreOwn.transactions) + sum(t.transactions));
    console.log(
      `drop-in template: ${t.transactions.length} txs, fees ${sum(t.transactions)} sat; Core's own: ${coreOwn.transactions.length} txs, fees ${sum(coreOwn.transactions)} sat`,
    );

    // wtxids are Core's, depends point to earlier parents (1-based), and the paid answer agrees.
    const verbose = await world.node.getRawTransactionsVerbose(t.transactions.map((x) => x.txid));
    t.transactions.forEach((x, i) => {
      expect(x.hash, x.txid).toBe(verbose.get(x.txid)?.hash);
      for (const d of x.depends) expect(d).toBeLessThan(i + 1);
    });
    expect(t.transactions.some((x) => x.hash !== x.txid)).toBe(true);
    const paid = (await ask(world, 'POST', '/v1/template/optimized-txids', {})).body;
    expect(paid.wtxids).toEqual(t.transactions.map((x) => x.hash));
    expect(paid.defaultWitnessCommitment).toBe(t.default_witness_commitment);

    // A pool's block: Core says it is valid (proposal), directly and through the drop-in.
    const payout = (await core.rpc<{ scriptPubKey: string }>('getaddressinfo', core.minerAddress)).scriptPubKey;
    const block = assembleBlock(t, payout);
    expect(await core.rpc('getblocktemplate', { mode: 'proposal', data: block.hex })).toBeNull();
    const proposal = await cli(['getblocktemplate'], JSON.stringify({ mode: 'proposal', data: block.hex }));
    expect(proposal).toMatchObject({ code: 0, stderr: '' });
    // bitcoin-cli prints nothing for a null result (valid).
    expect(proposal.stdout.trim()).toBe('');

    const submitted = await cli(['submitblock'], block.hex);
    expect(submitted).toMatchObject({ code: 0, stderr: '' });
    expect(await core.rpc('getbestblockhash')).toBe(block.hash);
    const mined = await core.rpc<{ tx: Array<{ txid: string; vout: Array<{ scriptPubKey: { hex: string } }> }> }>('getblock', block.hash, 2);
    expect(mined.tx.slice(1).map((x) => x.txid)).toEqual(cache.optimized.txids);
    expect(mined.tx[0]?.vout.map((o) => o.scriptPubKey.hex)).toContain(paid.defaultWitnessCommitment);
  });

  it('behavior: the allowlist reaches the node; other methods are Core\'s "Method not found"; no or wrong credentials are 401', async () => {
    const count = await cli(['getblockcount']);
    expect(Number(count.stdout)).toBe(await core.rpc<number>('getblockcount'));
    for (const method of ['stop', 'getnewaddress', 'generatetoaddress', 'sendrawtransaction', 'prioritisetransaction']) {
      const refused = await cli([method]);
      expect(refused.code, method).not.toBe(0);
      expect(refused.stderr, method).toMatch(/error code: -32601[\s\S]*Method not found/);
    }
    expect(await core.rpc<number>('getblockcount')).toBe(Number(count.stdout));
    const envelope = await poolCall('getwalletinfo', [], `Basic ${Buffer.from((await import('node:fs')).readFileSync(cookie, 'utf8')).toString('base64')}`);
    expect(envelope.status).toBe(404);
    expect(await envelope.json()).toEqual({ result: null, error: { code: -32601, message: 'Method not found' }, id: 'test' });
    expect((await poolCall('getblockcount', [])).status).toBe(401);
    expect((await poolCall('getblockcount', [], `Basic ${Buffer.from('__cookie__:wrong').toString('base64')}`)).status).toBe(401);
  });

  it('behavior: a long poll with the current longpollid answers when a block arrives, on the new tip', async () => {
    const auth = `Basic ${Buffer.from((await import('node:fs')).readFileSync(cookie, 'utf8')).toString('base64')}`;
    const first = (await (await poolCall('getblocktemplate', [{ rules: ['segwit'] }], auth)).json()) as { result: Gbt };
    const waiting = poolCall('getblocktemplate', [{ rules: ['segwit'], longpollid: first.result.longpollid }], auth);
    const settled = { done: false };
    void waiting.then(() => (settled.done = true));
    await new Promise((r) => setTimeout(r, 500));
    expect(settled.done, 'answered before anything changed').toBe(false);
    const [hash] = await core.mine(1);
    const next = (await (await waiting).json()) as { result: Gbt };
    expect(next.result.previousblockhash).toBe(hash);
  });

  it('behavior: the drop-in is absent unless POOL_RPC_PORT is set', async () => {
    const plain = await startServiceOnCore(core);
    try {
      expect(plain.app.poolRpc.server).toBeNull();
      expect(existsSync(join(plain.config.DATA_DIR, 'pool-rpc.cookie'))).toBe(false);
    } finally {
      await plain.close();
    }
    expect(existsSync(cookie)).toBe(true);
  });

  it('default: the audit of a block Core mined equals a recomputation from getblock <hash> 2, in the paid route and cache-stats', async () => {
    await fillMempool(core, { seed: 29, targetVsize: 15_000 });
    await refreshFromCore(world);
    const cache = world.app.optimizer.service.cache;
    if (!cache) throw new Error('no optimized template');
    const [hash] = await core.mine(1);
    if (!hash) throw new Error('no block');
    await world.app.mempool.mirror.poll();
    const audit = await world.app.optimizer.audits.audit(hash);

    const block = await core.rpc<{ height: number; previousblockhash: string; tx: Array<{ txid: string; fee?: number; weight: number }> }>('getblock', hash, 2);
    const txs = block.tx.slice(1);
    const mined = new Set(txs.map((t) => t.txid));
    const blockFee = txs.reduce((s, t) => s + Math.round((t.fee ?? NaN) * 1e8), 0);
    const overlap = cache.optimized.txids.filter((t) => mined.has(t)).length;
    const baselineOverlap = cache.baseline.txids.filter((t) => mined.has(t)).length;
    expect(cache.previousBlockHash).toBe(block.previousblockhash);
    expect(audit).toMatchObject({
      height: block.height,
      hash,
      previousBlockHash: block.previousblockhash,
      block: { txCount: txs.length, feeSat: blockFee, weightWu: txs.reduce((s, t) => s + t.weight, 0) },
      optimized: {
        cycle: cache.cycle,
        txCount: cache.optimized.txCount,
        feeSat: cache.optimized.feeSat,
        notInBlock: cache.optimized.txCount - overlap,
        blockTxsNotInIt: txs.length - overlap,
        matchRate: overlap / cache.optimized.txCount,
        feesLeftOnTableSat: cache.optimized.feeSat - blockFee,
      },
      baseline: {
        source: cache.baseline.source,
        feeSat: cache.baseline.feeSat,
        notInBlock: cache.baseline.txCount - baselineOverlap,
        feesLeftOnTableSat: cache.baseline.feeSat - blockFee,
      },
    });
    expect(txs.length).toBeGreaterThan(10);

    const paid = (await ask(world, 'GET', '/v1/template/block-audits?limit=5')).body;
    expect(paid.audits[0]).toMatchObject({ hash, block: { feeSat: blockFee }, optimized: { feesLeftOnTableSat: cache.optimized.feeSat - blockFee } });
    expect((await ask(world, 'GET', '/v1/template/block-audits?limit=5&extra=1')).status).toBe(400);
    expect((await ask(world, 'GET', '/v1/template/cache-stats')).body.blockAudits.last.hash).toBe(hash);
  });
});
