/**
 * The simulated node's HTTP surface: Basic auth, Core's JSON-RPC envelopes (1.0 style as the
 * `bitcoin-core` client sends, batches, 2.0), Core's HTTP statuses and error codes for bad input,
 * and the Esplora address routes with `scantxoutset` agreeing on confirmed balances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import type { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { parseRpcUrl } from '../../src/node/rpcTransport.js';
import { bitcoinNode, coreClient, sats, TEST_SIM, type CoreClient } from './helpers.js';

let sim: SimnetHandle;
let node: BitcoinNode;
let client: CoreClient;
let base: string;
let auth: string;

beforeAll(async () => {
  sim = await startSimnet({ seed: 41, initialTxs: 300, ...TEST_SIM });
  node = bitcoinNode(sim.rpcUrl);
  client = coreClient(sim.rpcUrl);
  const { host, username, password } = parseRpcUrl(sim.rpcUrl);
  base = host;
  auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
});
afterAll(() => sim?.close());

async function post(body: string, headers: Record<string, string> = { authorization: auth }): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`${base}/`, { method: 'POST', body, headers });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

describe('rpc server', () => {
  it('default: answers the bitcoin-core client with {result, error: null, id}', async () => {
    expect(await client.command('getblockcount')).toBe(await node.getBlockCount());
    const raw = await post('{"id":"7","method":"getblockcount","params":[]}');
    expect(raw.status).toBe(200);
    expect(raw.type).toBe('application/json');
    expect(JSON.parse(raw.text)).toEqual({ result: await node.getBlockCount(), error: null, id: '7' });
  });

  it('error: bad or missing credentials get 401 with an empty body', async () => {
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic ' + Buffer.from('simnet:wrong').toString('base64') },
      { authorization: 'Bearer x' },
    ];
    for (const headers of variants) {
      const res = await post('{"id":1,"method":"getblockcount"}', headers);
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
    }
    const wrong = coreClient(sim.rpcUrl.replace(/:[0-9a-f]+@/, ':nope@'));
    await expect(wrong.command('getblockcount')).rejects.toMatchObject({ code: 401 });
  });

  it('error: unknown method is -32601 with HTTP 404', async () => {
    const res = await post('{"id":"1","method":"generatetoaddress","params":[1,"x"]}');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ result: null, error: { code: -32601, message: 'Method not found' }, id: '1' });
    await expect(client.command('stop')).rejects.toMatchObject({ code: -32601 });
  });

  it('behavior: batches answer each element in order, errors included, with HTTP 200', async () => {
    const answers = await client.command([
      { method: 'getblockcount' },
      { method: 'getbestblockhash' },
      { method: 'nosuchmethod' },
      { method: 'getblockhash', parameters: [0] },
    ]);
    expect(answers[0]).toBe(await node.getBlockCount());
    expect(answers[1]).toBe(await node.getBestBlockHash());
    expect(answers[2]).toMatchObject({ code: -32601 });
    expect(answers[3]).toBe('0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    const raw = await post('[{"id":1,"method":"getblockcount"},5,{"id":2,"method":"getblockhash","params":["x"]}]');
    expect(raw.status).toBe(200);
    const parsed = JSON.parse(raw.text) as Array<{ error: { code: number } | null }>;
    expect(parsed.map((p) => p.error?.code ?? null)).toEqual([null, -32600, -3]);
    const huge = await post(JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ id: i, method: 'getblockcount' }))));
    expect(huge.status).toBe(400);
    expect(JSON.parse(huge.text)).toMatchObject({ error: { code: -32600 } });
  });

  it('error: bad JSON, bad envelopes and bad params answer Core’s codes, never crash', async () => {
    const parse = await post('{"id":1,"method":');
    expect(parse.status).toBe(500);
    expect(JSON.parse(parse.text)).toMatchObject({ error: { code: -32700 } });
    expect((await post('{"id":1}')).status).toBe(400);
    expect(JSON.parse((await post('{"id":1,"method":5}')).text).error.message).toBe('Method must be a string');
    expect(JSON.parse((await post('{"id":1,"method":"getblockcount","params":"x"}')).text).error.code).toBe(-32600);
    await expect(client.command('getblockhash', 'abc')).rejects.toMatchObject({
      code: -3,
      message: 'JSON value of type string is not of expected type number',
    });
    await expect(client.command('getblockhash', -1)).rejects.toMatchObject({ code: -8, message: 'Block height out of range' });
    await expect(client.command('getblockhash')).rejects.toMatchObject({ code: -1 });
    await expect(client.command('getblockcount', 1)).rejects.toMatchObject({ code: -1 });
    await expect(client.command('getblock', 'zz')).rejects.toMatchObject({ code: -8, message: "blockhash must be of length 64 (not 2, for 'zz')" });
    await expect(client.command('getblock', 'g'.repeat(64))).rejects.toMatchObject({ code: -8 });
    await expect(client.command('getblock', '0'.repeat(64))).rejects.toMatchObject({ code: -5, message: 'Block not found' });
    await expect(client.command('getblocktemplate', {})).rejects.toMatchObject({ code: -8 });
    await expect(client.command('testmempoolaccept', [])).rejects.toMatchObject({ code: -8 });
    await expect(client.command('scantxoutset', 'start', ['pkh(02aa)'])).rejects.toMatchObject({ code: -5 });
    await expect(client.command('scantxoutset', 'start', ['addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)#deadbeef'])).rejects.toMatchObject({ code: -5 });
    expect(await client.command('getblockcount')).toBeGreaterThan(0); // still alive
  });

  it('behavior: JSON-RPC 2.0 envelopes and named parameters', async () => {
    const res = await post('{"jsonrpc":"2.0","id":3,"method":"getblockhash","params":{"height":0}}');
    expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', result: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', id: 3 });
    const err = await post('{"jsonrpc":"2.0","id":4,"method":"nope"}');
    expect(err.status).toBe(200);
    expect(JSON.parse(err.text)).toEqual({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 4 });
    const notification = await post('{"jsonrpc":"2.0","method":"getblockcount"}');
    expect(notification.status).toBe(204);
    expect(JSON.parse((await post('{"id":1,"method":"getblockhash","params":{"hight":0}}')).text).error).toEqual({
      code: -8,
      message: 'Unknown named parameter hight',
    });
  });

  it('behavior: Esplora and scantxoutset agree on confirmed balances; mempool activity shows in mempool_stats', async () => {
    const addresses = await sim.control.walletAddresses();
    const types = new Set(addresses.map((a) => a.type));
    expect(types).toEqual(new Set(['p2wpkh', 'p2tr', 'p2sh-p2wpkh', 'p2pkh', 'p2wsh']));
    const sample = [...types].map((t) => addresses.find((a) => a.type === t && a.confirmedSat > 0)!);
    const busy = addresses.find((a) => a.unconfirmedSat > 0)!;
    for (const a of [...sample, busy]) {
      const info = (await (await fetch(`${sim.esploraUrl}/address/${a.address}`)).json()) as Record<string, Record<string, number>>;
      const scan = await node.scanTxOutSet([`addr(${a.address})`]);
      const confirmed = info.chain_stats!.funded_txo_sum! - info.chain_stats!.spent_txo_sum!;
      expect(sats(scan.total_amount)).toBe(confirmed);
      expect(confirmed).toBe(a.confirmedSat);
      expect(info.mempool_stats!.funded_txo_sum).toBe(a.unconfirmedSat);
      const utxos = (await (await fetch(`${sim.esploraUrl}/address/${a.address}/utxo`)).json()) as Array<{
        txid: string;
        vout: number;
        value: number;
        status: { confirmed: boolean; block_height?: number };
      }>;
      const confirmedUtxos = utxos.filter((u) => u.status.confirmed);
      for (const u of confirmedUtxos) {
        expect(scan.unspents.some((x) => x.txid === u.txid && x.vout === u.vout && x.height === u.status.block_height)).toBe(true);
      }
      // Confirmed coins missing from Esplora's list are exactly those a mempool transaction spends.
      for (const x of scan.unspents) {
        if (confirmedUtxos.some((u) => u.txid === x.txid && u.vout === x.vout)) continue;
        expect(await client.command('gettxout', x.txid, x.vout, true)).toBeNull();
        expect(await client.command('gettxout', x.txid, x.vout, false)).toMatchObject({ value: x.amount });
      }
      expect(utxos.filter((u) => !u.status.confirmed).reduce((s, u) => s + u.value, 0)).toBeLessThanOrEqual(a.unconfirmedSat);
    }
    const bad = await fetch(`${sim.esploraUrl}/address/notanaddress`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('Invalid Bitcoin address');
    expect((await fetch(`${sim.esploraUrl}/address/bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4`)).status).toBe(400);
    expect((await fetch(`${sim.esploraUrl}/nope`)).status).toBe(404);
    expect(await (await fetch(`${sim.esploraUrl}/blocks/tip/height`)).text()).toBe(String(await node.getBlockCount()));
  });
});
