import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';
import { first } from '../helpers/first.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 200 });
  await refresh(world);
});
afterAll(() => world?.close());

const get = (url: string) => world.app.inject({ method: 'GET', url });

describe('GET /v1/block-height', () => {
  it('default: height and 0x hex of the node tip', async () => {
    const res = await get('/v1/block-height');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ success: true, height: await world.node.getBlockCount(), hex: `0x${body.height.toString(16)}` });
  });

  it('behavior: height increases when a block is mined', async () => {
    const before = (await get('/v1/block-height')).json().height;
    await world.simnet.control.mineBlocks(1);
    expect((await get('/v1/block-height')).json().height).toBe(before + 1);
  });
});

describe('GET /v1/fee-estimate', () => {
  it('default: 6 blocks, a positive rate, the source used and both raw answers', async () => {
    await refresh(world);
    const body = (await get('/v1/fee-estimate')).json();
    expect(body).toMatchObject({ success: true, blocks: 6, unit: 'sat/vB' });
    expect(body.feeRateSatVb).toBeGreaterThan(0);
    expect(['mempool_projection', 'estimatesmartfee']).toContain(body.source);
    expect(body.estimateSmartFee).toHaveProperty('mode', 'conservative');
    expect(body.mempoolProjection).not.toBeNull();
  });

  it('args: blocks beyond the projection horizon prefer estimatesmartfee when the node has one', async () => {
    const body = (await get('/v1/fee-estimate?blocks=144')).json();
    expect(body.blocks).toBe(144);
    if (body.estimateSmartFee.feeRateSatVb !== null) expect(body.source).toBe('estimatesmartfee');
  });

  it('behavior: concurrent requests share one estimatesmartfee call', async () => {
    const { estimateSmartFee } = world.node;
    let calls = 0;
    world.node.estimateSmartFee = (...args) => {
      calls += 1;
      return estimateSmartFee.apply(world.node, args);
    };
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => get('/v1/fee-estimate?blocks=17')));
      expect(answers.every((a) => a.statusCode === 200)).toBe(true);
      expect(calls).toBe(1);
    } finally {
      world.node.estimateSmartFee = estimateSmartFee;
    }
  });

  it.each(['0', '1009', 'abc', '1.5', '-3', '1e3x'])('error: INVALID_REQUEST for blocks=%s', async (blocks) => {
    const res = await get(`/v1/fee-estimate?blocks=${blocks}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_REQUEST');
  });
});

describe('GET /v1/balance/:address and /v1/utxos/:address', () => {
  it('default: balance and UTXOs of a funded address agree', async () => {
    const { address } = first(await world.simnet.control.walletAddresses());
    const balance = (await get(`/v1/balance/${address}`)).json();
    const utxos = (await get(`/v1/utxos/${address}`)).json();
    expect(balance).toMatchObject({ success: true, address, source: 'esplora', unit: 'sat' });
    expect(balance.totalSat).toBe(balance.confirmedSat + balance.unconfirmedSat);
    expect(utxos.count).toBe(utxos.utxos.length);
    expect(utxos.totalSat).toBe(utxos.utxos.reduce((s: number, u: { valueSat: number }) => s + u.valueSat, 0));
    const confirmed = utxos.utxos.filter((u: { confirmed: boolean }) => u.confirmed).reduce((s: number, u: { valueSat: number }) => s + u.valueSat, 0);
    expect(confirmed).toBe(balance.confirmedSat);
    for (const u of utxos.utxos) if (u.confirmed) expect(u.confirmations).toBeGreaterThan(0);
  });

  it('behavior: a confirmed UTXO has at least 1 confirmation when the address index is ahead of the node', async () => {
    const { address } = first(await world.simnet.control.walletAddresses());
    const before = (await get(`/v1/utxos/${address}`)).json();
    const newest = Math.max(...before.utxos.filter((u: { confirmed: boolean }) => u.confirmed).map((u: { height: number }) => u.height));
    // Esplora has seen the block of the newest UTXO, the node (answering in this request) not yet.
    const { getBlockCount } = world.node;
    world.node.getBlockCount = async () => newest - 1;
    try {
      const utxos = (await get(`/v1/utxos/${address}`)).json();
      expect(utxos.utxos.some((u: { height: number }) => u.height === newest)).toBe(true);
      for (const u of utxos.utxos) if (u.confirmed) expect(u.confirmations).toBeGreaterThanOrEqual(1);
    } finally {
      world.node.getBlockCount = getBlockCount;
    }
  });

  it('behavior: every address type of the network is accepted', async () => {
    const addresses = await world.simnet.control.walletAddresses();
    const types = new Set<string>();
    for (const { address } of addresses) {
      const res = await get(`/v1/balance/${address}`);
      expect(res.statusCode).toBe(200);
      types.add(res.json().type);
    }
    expect([...types].sort()).toEqual(expect.arrayContaining(['p2pkh', 'p2sh', 'p2tr', 'p2wpkh']));
  });

  it('error: INVALID_ADDRESS and WRONG_NETWORK_ADDRESS before anything else', async () => {
    const bad = await get('/v1/balance/notanaddress0000000000');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_ADDRESS');
    const mainnet = await get('/v1/utxos/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq');
    expect(mainnet.statusCode).toBe(400);
    expect(mainnet.json().error).toMatchObject({ code: 'WRONG_NETWORK_ADDRESS' });
    expect(mainnet.json().error.message).toMatch(/regtest/);
  });
});

describe('GET /v1/tx/:txid', () => {
  it('default: a mempool tx with fee = inputs − outputs and mempool status', async () => {
    await world.simnet.control.addTransactions(30);
    await refresh(world);
    const txid = [...world.app.mempool.mirror.txs.keys()][0]!;
    const body = (await get(`/v1/tx/${txid}`)).json();
    expect(body).toMatchObject({ success: true, txid, status: { confirmed: false, inMempool: true } });
    expect(body.feeSat).toBe(body.totalInputSat - body.totalOutputSat);
    expect(body.feeRateSatVb).toBeCloseTo(body.feeSat / body.vsize, 2);
    expect(body.outputs.every((o: { address: string | null }) => o.address === null || o.address.startsWith('bcrt1') || /^[2mn]/.test(o.address))).toBe(true);
  });

  it('behavior: after mining, the same tx is confirmed at the new height', async () => {
    const txid = [...world.app.mempool.mirror.txs.keys()][0]!;
    const [hash] = await world.simnet.control.mineBlocks(1);
    const body = (await get(`/v1/tx/${txid}`)).json();
    expect(body.status).toMatchObject({ confirmed: true, inMempool: false, confirmations: 1, blockHash: hash, blockHeight: await world.node.getBlockCount() });
  });

  it("behavior: the block height is the block's own, even when a block lands during the request", async () => {
    await world.simnet.control.addTransactions(3);
    const [hash] = await world.simnet.control.mineBlocks(1);
    const block = await world.node.getBlock(hash!, 1);
    const txid = block.tx[1]!;
    const height = block.height;
    // A block arrives between the node calls of this request: the tip is one higher than the tx's confirmations say.
    const { getBlockCount } = world.node;
    world.node.getBlockCount = async () => height + 1;
    try {
      const body = (await get(`/v1/tx/${txid}`)).json();
      expect(body.status).toMatchObject({ confirmed: true, confirmations: 1, blockHash: hash, blockHeight: height });
    } finally {
      world.node.getBlockCount = getBlockCount;
    }
  });

  it('error: TX_NOT_FOUND and INVALID_TXID', async () => {
    expect((await get(`/v1/tx/${'ab'.repeat(32)}`)).json().error.code).toBe('TX_NOT_FOUND');
    const bad = await get('/v1/tx/xyz');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_TXID');
  });
});
