import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';
import { first } from '../helpers/first.js';

let world: TestWorld;
let url: string;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 150, seed: 21 });
  await refresh(world);
  url = `${await world.app.listen({ host: '127.0.0.1', port: 0 })}/v1/rpc`;
});
afterAll(() => world?.close());

const rpc = async (body: unknown, contentType = 'application/json') => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

describe('viem public client', () => {
  it('default: getBlockNumber, getGasPrice, getBlock and a raw eth_getBalance', async () => {
    const client = createPublicClient({ transport: http(url) });
    expect(await client.getBlockNumber()).toBe(BigInt(await world.node.getBlockCount()));
    expect(await client.getGasPrice()).toBeGreaterThan(0n);
    const block = await client.getBlock();
    expect(block.number).toBe(BigInt(await world.node.getBlockCount()));
    expect(block.hash).toBe(`0x${await world.node.getBestBlockHash()}`);
    expect(block.transactions.length).toBeGreaterThanOrEqual(1);
    const full = await client.getBlock({ blockNumber: 1n, includeTransactions: true });
    expect(full.transactions[0]).toHaveProperty('hash');
    const { address } = first(await world.simnet.control.walletAddresses());
    const balance = await client.request({ method: 'eth_getBalance' as never, params: [address, 'latest'] as never });
    expect(BigInt(balance as string)).toBeGreaterThanOrEqual(0n);
    expect(await client.getChainId()).toBe(18444);
  });
});

describe('raw JSON-RPC', () => {
  it('default: a batch answers every call with its id, in order', async () => {
    const { status, body } = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'net_version' },
      { jsonrpc: '2.0', id: 3, method: 'eth_getBlockByNumber', params: ['earliest', false] },
    ]);
    expect(status).toBe(200);
    expect(body.map((r: { id: unknown }) => r.id)).toEqual([1, 'b', 3]);
    expect(body[1].result).toBe('18444');
    expect(body[2].result.number).toBe('0x0');
  });

  it('behavior: unknown transactions and blocks above the tip are null', async () => {
    const { body } = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [`0x${'ab'.repeat(32)}`] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['0xffffff', false] },
    ]);
    expect(body[0].result).toBeNull();
    expect(body[1].result).toBeNull();
  });

  it('behavior: a mempool tx has no block but has its fee; a confirmed one has its index', async () => {
    const txid = first([...world.app.mempool.mirror.txs.keys()], 'mempool');
    const pending = (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [txid] })).body.result;
    expect(pending).toMatchObject({ hash: `0x${txid}`, blockHash: null, blockNumber: null });
    const entry = await world.node.getMempoolEntry(txid);
    const feeSat = Math.round(entry.fees.base * 1e8);
    expect(pending.bitcoin.feeSat).toBe(feeSat);
    expect(pending.gasPrice).toBe(`0x${Math.round((feeSat * 1000) / entry.vsize).toString(16)}`);
    await world.simnet.control.mineBlocks(1);
    const mined = (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [`0x${txid}`] })).body.result;
    expect(mined.blockNumber).toBe(`0x${(await world.node.getBlockCount()).toString(16)}`);
    expect(Number.parseInt(mined.transactionIndex, 16)).toBeGreaterThan(0);
  });

  it.each([
    ['not JSON', '{"jsonrpc":', -32700],
    ['empty batch', '[]', -32600],
    ['missing jsonrpc', '{"id":1,"method":"eth_blockNumber"}', -32600],
    ['wrong version', '{"jsonrpc":"1.0","id":1,"method":"eth_blockNumber"}', -32600],
    ['unknown method', '{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[]}', -32601],
    ['params not an array', '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"a":1}}', -32602],
    ['EVM address', `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x${'11'.repeat(20)}","latest"]}`, -32602],
    ['bad block tag', '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["yesterday",false]}', -32602],
    ['too many params', '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[1]}', -32602],
  ])('error: %s answers %i with HTTP 200', async (_name, body, code) => {
    const res = await rpc(body);
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(code);
    expect(res.body.jsonrpc).toBe('2.0');
  });

  it('args: eth_getBalance honours its block argument (latest, the tip height, pending; past heights are invalid params)', async () => {
    const call = async (params: unknown[]) => (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params })).body;
    const addresses = await world.simnet.control.walletAddresses();
    const busy = addresses.find((a) => a.unconfirmedSat !== 0) ?? first(addresses);
    const res = await world.app.inject({ method: 'GET', url: `/v1/balance/${busy.address}` });
    const { confirmedSat, unconfirmedSat } = res.json();
    const tip = await world.node.getBlockCount();
    expect(BigInt((await call([busy.address])).result)).toBe(BigInt(confirmedSat));
    expect(BigInt((await call([busy.address, 'latest'])).result)).toBe(BigInt(confirmedSat));
    expect(BigInt((await call([busy.address, `0x${tip.toString(16)}`])).result)).toBe(BigInt(confirmedSat));
    expect(BigInt((await call([busy.address, 'pending'])).result)).toBe(BigInt(Math.max(0, confirmedSat + unconfirmedSat)));
    for (const tag of [`0x${(tip - 1).toString(16)}`, 'earliest', 'safe', 'finalized']) {
      const answer = await call([busy.address, tag]);
      expect(answer.error?.code, tag).toBe(-32602);
      expect(answer.error?.message).toMatch(/cannot be served/);
      // The REST code once at the front and in data.code, not "Invalid params: INVALID_REQUEST: Invalid request: …".
      expect(answer.error?.message).toMatch(/^Invalid params: INVALID_REQUEST: (?!Invalid request)/);
      expect(answer.error?.data).toEqual({ code: 'INVALID_REQUEST' });
    }
  });

  it('error: a batch over the limit is one -32600', async () => {
    const calls = Array.from({ length: world.config.RPC_BATCH_MAX + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber' }));
    const { body } = await rpc(calls);
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/limit/);
  });

  it('behavior: a mixed batch answers good calls and refuses bad ones', async () => {
    const { body } = await rpc([{ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }, { jsonrpc: '2.0', id: 2, method: 'nope' }, 42]);
    expect(body[0].result).toMatch(/^0x/);
    expect(body[1].error.code).toBe(-32601);
    expect(body[2]).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('behavior: notifications (no id) get no answer: 204 alone, left out of a batch', async () => {
    const post = (body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const single = await post({ jsonrpc: '2.0', method: 'eth_blockNumber' });
    expect(single.status).toBe(204);
    expect(await single.text()).toBe('');
    const onlyNotifications = await post([
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', method: 'nope' },
    ]);
    expect(onlyNotifications.status).toBe(204);
    const { body } = await rpc([
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 9, method: 'net_version' },
      { jsonrpc: '2.0', id: null, method: 'eth_chainId' },
    ]);
    expect(body.map((r: { id: unknown }) => r.id)).toEqual([9, null]);
    // An invalid request is answered even without an id (its id cannot be known).
    expect((await rpc({ jsonrpc: '1.0', method: 'eth_blockNumber' })).body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('behavior: any content type is read as JSON-RPC', async () => {
    expect((await rpc({ jsonrpc: '2.0', id: 7, method: 'eth_chainId' }, 'text/plain')).body.result).toBe('0x480c');
  });
});
