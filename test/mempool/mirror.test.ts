import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MempoolMirror, toMirrorTx, type MempoolDiff } from '../../src/mempool/mirror.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';

let simnet: SimnetHandle;
let node: BitcoinNode;
beforeAll(async () => {
  simnet = await startSimnet({ seed: 21, blockIntervalSec: 0, txPerSec: 0, initialTxs: 200, fundingUtxos: 2000, policyModule: CORE_V31_POLICY_MODULE });
  node = new BitcoinNode({ url: simnet.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 5000 });
});
afterAll(() => simnet?.close());

describe('MempoolMirror', () => {
  it('behavior: a poll that fails half-way leaves the view unchanged; the next poll reports everything', async () => {
    const mirror = new MempoolMirror(node, { pollMs: 60_000 });
    await mirror.poll();
    const before = new Set(mirror.txs.keys());
    const diffs: MempoolDiff[] = [];
    mirror.on('diff', (d) => diffs.push(d));

    const { replaced, replacement } = await simnet.control.replaceTransaction();
    const added = await simnet.control.addTransactions(5);

    // The raw transactions (inputs) cannot be fetched this time: the poll fails after the entries came.
    const original = node.getRawTransactionsHex.bind(node);
    node.getRawTransactionsHex = async () => {
      throw new Error('node went away');
    };
    await expect(mirror.poll()).rejects.toThrow(/went away/);
    node.getRawTransactionsHex = original;
    expect(new Set(mirror.txs.keys())).toEqual(before);
    expect(mirror.txs.has(replacement)).toBe(false);
    expect(diffs).toHaveLength(0);

    await mirror.poll();
    expect(diffs).toHaveLength(1);
    const diff = diffs[0]!;
    expect(diff.added.map((t) => t.txid)).toEqual(expect.arrayContaining([replacement, ...added]));
    const gone = diff.removed.find((r) => r.tx.txid === replaced[0]);
    expect(gone).toMatchObject({ reason: 'replaced', replacedBy: replacement });
    // Never both versions at once.
    expect(mirror.txs.has(replaced[0]!)).toBe(false);
    expect(mirror.txs.has(replacement)).toBe(true);
  });

  it('behavior: stop() ends the polling loop, also when it lands during a poll', async () => {
    const mirror = new MempoolMirror(node, { pollMs: 250 });
    mirror.start();
    // Stop while the first poll is in flight.
    await new Promise((r) => setTimeout(r, 5));
    await mirror.stop();
    const count = mirror.pollCount;
    await new Promise((r) => setTimeout(r, 800));
    expect(mirror.pollCount).toBe(count);
  });
});

/** A serialized tx with one input per outpoint (`txid:vout`, display order) and one OP_RETURN output. */
function rawTx(outpoints: string[]): string {
  const u32 = (n: number) => Buffer.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255]).toString('hex');
  const inputs = outpoints
    .map((o) => {
      const [txid, vout] = o.split(':') as [string, string];
      return Buffer.from(txid, 'hex').reverse().toString('hex') + u32(Number(vout)) + '00' + u32(0xfffffffd);
    })
    .join('');
  return u32(2) + outpoints.length.toString(16).padStart(2, '0') + inputs + '01' + '0000000000000000' + '01' + '6a' + u32(0);
}

/** A `getrawmempool true` entry of a 100-vB, 1,000-sat transaction alone in its cluster; `fields` override. */
function coreEntry(fields: Record<string, unknown> = {}) {
  return {
    vsize: 100,
    weight: 400,
    time: 1_700_000_000,
    height: 100,
    descendantcount: 1,
    descendantsize: 100,
    ancestorcount: 1,
    ancestorsize: 100,
    fees: { base: 0.00001, modified: 0.00001, ancestor: 0.00001, descendant: 0.00001 },
    depends: [] as string[],
    spentby: [] as string[],
    ...fields,
  };
}

/** Just enough of a node for the mirror: a scripted mempool, no blocks. */
function scriptedNode(state: { mempool: Map<string, { parents: string[]; inputs: string[]; children?: string[] }> }): BitcoinNode {
  const tip = 'ee'.repeat(32);
  const entry = (txid: string) => coreEntry({ depends: state.mempool.get(txid)!.parents, spentby: state.mempool.get(txid)!.children ?? [] });
  const fake = {
    getBestBlockHash: async () => tip,
    getBlockCount: async () => 100,
    getRawMempoolWithSequence: async () => ({ txids: [...state.mempool.keys()], mempool_sequence: 0 }),
    getMempoolInfo: async () => ({
      size: state.mempool.size,
      bytes: 100 * state.mempool.size,
      usage: 0,
      maxmempool: 300_000_000,
      mempoolminfee: 0.000001,
      minrelaytxfee: 0.000001,
    }),
    getMempoolEntries: async (txids: string[]) => new Map(txids.filter((t) => state.mempool.has(t)).map((t) => [t, entry(t)])),
    getRawTransactionsHex: async (txids: string[]) => new Map(txids.filter((t) => state.mempool.has(t)).map((t) => [t, rawTx(state.mempool.get(t)!.inputs)])),
  };
  return fake as unknown as BitcoinNode;
}

/** A root and a ladder of 30 txs, each spending the two before it: ancestor paths grow like Fibonacci. */
function ladderMempool() {
  const id = (n: number) => n.toString(16).padStart(64, '0');
  const funding = `${'ff'.repeat(32)}:0`;
  const root = id(1);
  const mempool = new Map<string, { parents: string[]; inputs: string[] }>([[root, { parents: [], inputs: [funding] }]]);
  const ladder: string[] = [];
  for (let i = 0; i < 30; i++) {
    const parents = i === 0 ? [root] : i === 1 ? [root, ladder[0]!] : [ladder[i - 2]!, ladder[i - 1]!];
    const txid = id(100 + i);
    ladder.push(txid);
    mempool.set(txid, { parents, inputs: parents.map((p) => `${p}:${i % 2}`) });
  }
  return { root, ladder, funding, mempool, id };
}

/** Counts the mirror's txid lookups (the work of attributing evictions). */
function countLookups(mirror: MempoolMirror): { count: number } {
  const counter = { count: 0 };
  const get = mirror.txs.get.bind(mirror.txs);
  mirror.txs.get = (txid: string) => {
    counter.count += 1;
    return get(txid);
  };
  return counter;
}

describe('MempoolMirror replacement bookkeeping', () => {
  it('behavior: descendants evicted with a replaced tx point to it', async () => {
    const { root, ladder, funding, mempool, id } = ladderMempool();
    const state = { mempool };
    const mirror = new MempoolMirror(scriptedNode(state), { pollMs: 60_000 });
    await mirror.poll();
    expect(mirror.txs.size).toBe(31);
    const replacement = id(2);
    state.mempool = new Map([[replacement, { parents: [], inputs: [funding] }]]);
    const diffs: MempoolDiff[] = [];
    mirror.on('diff', (d) => diffs.push(d));
    await mirror.poll();
    const removed = diffs[0]!.removed;
    expect(removed.find((r) => r.tx.txid === root)).toMatchObject({ reason: 'replaced', replacedBy: replacement });
    for (const txid of ladder) expect(removed.find((r) => r.tx.txid === txid)).toMatchObject({ reason: 'evicted', evictedWith: root });
  });

  it('behavior: evictions are attributed in linear time, even in a DAG with exponentially many ancestor paths', async () => {
    const { ladder, mempool } = ladderMempool();
    const state = { mempool };
    const mirror = new MempoolMirror(scriptedNode(state), { pollMs: 60_000 });
    await mirror.poll();
    // Everything leaves without a replacement (expiry, trimming, a conflict mined): nothing to attribute.
    state.mempool = new Map();
    const diffs: MempoolDiff[] = [];
    mirror.on('diff', (d) => diffs.push(d));
    const lookups = countLookups(mirror);
    await mirror.poll();
    for (const txid of ladder) expect(diffs[0]!.removed.find((r) => r.tx.txid === txid)).toMatchObject({ reason: 'evicted' });
    expect(diffs[0]!.removed.every((r) => r.evictedWith === undefined)).toBe(true);
    expect(lookups.count).toBeLessThan(1_000);
  });
});

describe('toMirrorTx', () => {
  const entry = (fields: Record<string, number>) => coreEntry(fields);
  const txid = 'ab'.repeat(32);

  it('behavior: the sigop cost is derived from the sigop-adjusted vsize on every Core version', () => {
    // v31 (and the simulated node): vsize = vsize_adjusted = 20 × 120 sigops / 4, above weight / 4.
    expect(toMirrorTx(txid, entry({ vsize: 600, vsize_adjusted: 600, vsize_bip141: 100, weight: 400 })).sigopCostLowerBound).toBe(120);
    // v28–v30: no vsize_adjusted, but `vsize` is already sigop-adjusted.
    expect(toMirrorTx(txid, entry({ vsize: 600, weight: 400 })).sigopCostLowerBound).toBe(120);
    // Weight dominates: sigops unknown and irrelevant.
    expect(toMirrorTx(txid, entry({ vsize: 100, vsize_adjusted: 100, weight: 397 })).sigopCostLowerBound).toBe(0);
  });
});

describe('MempoolMirror parent links', () => {
  it('behavior: a parent that comes back after its child (a reorg) is linked to the child', async () => {
    const parent = 'a1'.repeat(32);
    const child = 'b2'.repeat(32);
    // The parent is in a block; its child waits in the mempool.
    const state = {
      mempool: new Map<string, { parents: string[]; inputs: string[]; children?: string[] }>([[child, { parents: [], inputs: [`${parent}:0`] }]]),
    };
    const mirror = new MempoolMirror(scriptedNode(state), { pollMs: 60_000 });
    await mirror.poll();
    expect(mirror.txs.get(child)!.parents).toEqual([]);
    // The block is reorganised away: the parent is back in the mempool, spent by the child.
    state.mempool = new Map([
      [parent, { parents: [], inputs: [`${'ff'.repeat(32)}:1`], children: [child] }],
      [child, { parents: [parent], inputs: [`${parent}:0`] }],
    ]);
    await mirror.poll();
    expect(mirror.txs.get(child)!.parents).toEqual([parent]);
  });
});
