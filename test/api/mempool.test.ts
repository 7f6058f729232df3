import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 400, seed: 11 });
  await refresh(world);
});
afterAll(() => world?.close());

const get = (url: string) => world.app.inject({ method: 'GET', url });

describe('GET /v1/mempool/stats', () => {
  it('default: counts match the node and the landscape is ordered', async () => {
    const body = (await get('/v1/mempool/stats')).json();
    const info = await world.node.getMempoolInfo();
    expect(body.count).toBe(info.size);
    expect(body.bytes).toBe(info.bytes);
    expect(body.congestion.level).toMatch(/clear|normal|busy|congested|severe/);
    const f = body.feeRates;
    expect(f.min).toBeLessThanOrEqual(f.p10);
    expect(f.p10).toBeLessThanOrEqual(f.p50);
    expect(f.p50).toBeLessThanOrEqual(f.p90);
    expect(f.p90).toBeLessThanOrEqual(f.max);
    expect(body.minRelayFeeRateSatVb).toBeCloseTo(0.1, 5);
  });
});

describe('GET /v1/mempool/fees', () => {
  it('default: target 10, histogram sums equal the mempool totals', async () => {
    const body = (await get('/v1/mempool/fees')).json();
    const stats = (await get('/v1/mempool/stats')).json();
    expect(body.target).toBe(10);
    const sum = (k: string) => body.histogram.reduce((s: number, b: Record<string, number>) => s + b[k]!, 0);
    expect(sum('count')).toBe(stats.count);
    expect(sum('vsize')).toBe(stats.vsize);
    expect(sum('feeSat')).toBe(stats.totalFeeSat);
    expect(body.recommended.feeRateSatVb).toBeGreaterThanOrEqual(body.floorFeeRateSatVb);
    expect(body.recommended.derivation).toEqual(expect.any(String));
  });

  it('behavior: a nearer target never recommends less', async () => {
    const near = (await get('/v1/mempool/fees?target=1')).json().recommended.feeRateSatVb;
    const far = (await get('/v1/mempool/fees?target=20')).json().recommended.feeRateSatVb;
    expect(near).toBeGreaterThanOrEqual(far);
  });

  it('error: target=0 is INVALID_REQUEST', async () => {
    expect((await get('/v1/mempool/fees?target=0')).statusCode).toBe(400);
  });
});

describe('GET /v1/mempool/tx/:txid', () => {
  it('default: a child shows its ancestors, parents and a position', async () => {
    const child = [...world.app.mempool.mirror.txs.values()].find((tx) => tx.parents.length > 0)!;
    const body = (await get(`/v1/mempool/tx/${child.txid}`)).json();
    expect(body).toMatchObject({ success: true, txid: child.txid, feeSat: child.feeSat, vsize: child.vsize });
    expect(body.ancestors.count).toBeGreaterThanOrEqual(1);
    expect(body.parents).toEqual(expect.arrayContaining(child.parents));
    expect(body.position.blocksAway).toBeGreaterThanOrEqual(1);
    expect(['node_chunk', 'optimizer_chunk', 'package_estimate']).toContain(body.effectiveFeeRate.source);
    expect(body.rbf.replaceable).toBe(true);
    expect(body.ageSeconds).toBeGreaterThanOrEqual(0);
  });

  it('behavior: every parent lists the child among its children', async () => {
    const child = [...world.app.mempool.mirror.txs.values()].find((tx) => tx.parents.length > 0)!;
    const parent = (await get(`/v1/mempool/tx/${child.parents[0]}`)).json();
    expect(parent.children).toContain(child.txid);
    expect(parent.descendants.count).toBeGreaterThanOrEqual(1);
  });

  it('behavior: without full RBF (a v28 node with -mempoolfullrbf=0) only BIP125 signallers are replaceable', async () => {
    const { mirror } = world.app.mempool;
    const entries = await Promise.all([...mirror.txs.keys()].slice(0, 200).map(async (txid) => ({ txid, entry: await world.node.getMempoolEntry(txid) })));
    const quiet = entries.find((e) => e.entry['bip125-replaceable'] === false)!;
    const loud = entries.find((e) => e.entry['bip125-replaceable'] === true)!;
    const info = mirror.info!;
    mirror.info = { ...info, fullrbf: false };
    try {
      expect((await get(`/v1/mempool/tx/${quiet.txid}`)).json().rbf).toMatchObject({ replaceable: false, bip125Signaling: false, fullRbf: false });
      expect((await get(`/v1/mempool/tx/${loud.txid}`)).json().rbf).toMatchObject({ replaceable: true, bip125Signaling: true });
    } finally {
      mirror.info = info;
    }
    expect((await get(`/v1/mempool/tx/${quiet.txid}`)).json().rbf).toMatchObject({ replaceable: true, fullRbf: true });
  });

  it('error: TX_NOT_FOUND for a txid the node does not know', async () => {
    const res = await get(`/v1/mempool/tx/${'00'.repeat(32)}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('TX_NOT_FOUND');
  });
});

describe('GET /v1/mempool/tx/:txid/replacements', () => {
  it('default: a replaced tx points to its replacement, which lists what it replaced', async () => {
    const { replaced, replacement } = await world.simnet.control.replaceTransaction();
    await world.app.mempool.mirror.poll();
    const original = (await get(`/v1/mempool/tx/${replaced[0]}/replacements`)).json();
    expect(original).toMatchObject({ success: true, status: 'replaced', latestTxid: replacement });
    expect(original.replacedBy.txid).toBe(replacement);
    expect(original.replacedBy.feeDeltaSat).toBeGreaterThan(0);
    const newer = (await get(`/v1/mempool/tx/${replacement}/replacements`)).json();
    expect(newer.status).toBe('in_mempool');
    expect(newer.replaces.map((r: { txid: string }) => r.txid)).toContain(replaced[0]);
  });

  it('behavior: a tx never replaced has an empty history', async () => {
    const txid = [...world.app.mempool.mirror.txs.keys()].find((t) => world.app.mempool.tracker.history(t).eventCount === 0)!;
    const body = (await get(`/v1/mempool/tx/${txid}/replacements`)).json();
    expect(body).toMatchObject({ status: 'in_mempool', replacedBy: null, replaces: [], latestTxid: txid });
  });

  it('behavior: the history survives a restart of the app', async () => {
    const { replaced, replacement } = await world.simnet.control.replaceTransaction();
    await world.app.mempool.mirror.poll();
    // A second app on the same data directory, which has never polled: it reads the stored history.
    const { buildApp } = await import('../../src/app.js');
    const { ScanAddressSource } = await import('../../src/node/scanAddressSource.js');
    const reopened = await buildApp({
      config: world.config,
      node: world.node,
      addressSource: new ScanAddressSource(world.node),
      nodeKind: 'simulated',
      autoStart: false,
    });
    try {
      expect(reopened.mempool.mirror.ready).toBe(false);
      expect(reopened.mempool.tracker.history(replaced[0]!).replacedBy?.txid).toBe(replacement);
    } finally {
      await reopened.close();
    }
  });

  it('error: TX_NOT_FOUND for a txid nobody knows', async () => {
    expect((await get(`/v1/mempool/tx/${'cd'.repeat(32)}/replacements`)).statusCode).toBe(404);
  });

  it('error: an unreachable node is 503, not TX_NOT_FOUND', async () => {
    const { Errors } = await import('../../src/errors.js');
    const { getMempoolEntry, getRawTransaction } = world.node;
    const down = async () => {
      throw new Errors.NODE_UNAVAILABLE('ECONNREFUSED calling getmempoolentry');
    };
    world.node.getMempoolEntry = down;
    world.node.getRawTransaction = down;
    try {
      const res = await get(`/v1/mempool/tx/${'ce'.repeat(32)}/replacements`);
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('NODE_UNAVAILABLE');
    } finally {
      world.node.getMempoolEntry = getMempoolEntry;
      world.node.getRawTransaction = getRawTransaction;
    }
  });
});
