/**
 * The simulated mempool through Core's RPCs: entries internally consistent (depends/spentby,
 * ancestor and descendant aggregates, v31 chunk fields), `getmempoolinfo` totals, and a block
 * template that is topological, within limits and equal to the next mined block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import type { BitcoinNode } from '../../src/node/bitcoinNode.js';
import type { VerboseMempool } from '../../src/node/schemas.js';
import { bitcoinNode, coreClient, sats, TEST_SIM, type CoreClient } from './helpers.js';

let sim: SimnetHandle;
let node: BitcoinNode;
let client: CoreClient;
let pool: VerboseMempool;

beforeAll(async () => {
  sim = await startSimnet({ seed: 21, initialTxs: 1200, ...TEST_SIM });
  node = bitcoinNode(sim.rpcUrl);
  client = coreClient(sim.rpcUrl);
  pool = await node.getRawMempoolVerbose();
});
afterAll(() => sim?.close());

function closure(start: string, next: (txid: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...next(start)];
  while (stack.length) {
    const t = stack.pop()!;
    if (seen.has(t)) continue;
    seen.add(t);
    stack.push(...next(t));
  }
  return seen;
}

describe('simulated mempool', () => {
  it('default: a realistic mix of 1,200 entries with v31 fields', async () => {
    const entries = Object.values(pool);
    expect(entries).toHaveLength(1200);
    expect(await node.getRawMempoolTxids()).toHaveLength(1200);
    const rates = entries.map((e) => sats(e.fees.base) / e.vsize);
    expect(Math.min(...rates)).toBeGreaterThanOrEqual(0.1);
    expect(Math.min(...rates)).toBeLessThan(2);
    expect(Math.max(...rates)).toBeGreaterThan(50);
    expect(entries.some((e) => e.depends.length > 0)).toBe(true); // CPFP children and chains
    expect(Math.max(...entries.map((e) => e.ancestorcount))).toBeGreaterThan(3);
    expect(Math.max(...entries.map((e) => e.ancestorcount))).toBeLessThanOrEqual(25);
    for (const e of entries) {
      expect(e.chunkweight).toBeGreaterThan(0);
      expect(e.fees.chunk).toBeDefined();
      expect(e.vsize_adjusted).toBe(e.vsize);
      expect(e.weight).toBeLessThanOrEqual(e.vsize * 4);
    }
  });

  it('behavior: depends/spentby are symmetric and ancestors/descendants are their closures with matching sums', async () => {
    const txids = Object.keys(pool);
    for (const [txid, e] of Object.entries(pool)) {
      for (const p of e.depends) expect(pool[p]!.spentby).toContain(txid);
      for (const c of e.spentby) expect(pool[c]!.depends).toContain(txid);
      const ancestors = closure(txid, (t) => pool[t]!.depends);
      const descendants = closure(txid, (t) => pool[t]!.spentby);
      expect(e.ancestorcount).toBe(ancestors.size + 1);
      expect(e.descendantcount).toBe(descendants.size + 1);
      expect(e.ancestorsize).toBe([...ancestors].reduce((s, t) => s + pool[t]!.vsize, e.vsize));
      expect(sats(e.fees.ancestor)).toBe([...ancestors].reduce((s, t) => s + sats(pool[t]!.fees.base), sats(e.fees.base)));
      expect(sats(e.fees.descendant)).toBe([...descendants].reduce((s, t) => s + sats(pool[t]!.fees.base), sats(e.fees.base)));
    }
    const withRelatives = txids.filter((t) => pool[t]!.ancestorcount > 2).slice(0, 10);
    expect(withRelatives.length).toBeGreaterThan(0);
    for (const txid of withRelatives) {
      const ancestors = (await client.command('getmempoolancestors', txid)) as string[];
      expect(new Set(ancestors)).toEqual(closure(txid, (t) => pool[t]!.depends));
      const verbose = await node.getMempoolAncestors(txid);
      expect(Object.keys(verbose).sort()).toEqual([...ancestors].sort());
      const parent = pool[txid]!.depends[0]!;
      const descendants = await node.getMempoolDescendants(parent);
      expect(Object.keys(descendants)).toContain(txid);
      expect(await node.getMempoolEntry(txid)).toEqual(pool[txid]);
    }
  });

  it('behavior: chunks are at least as good as the transaction alone when it has no parents, and parents’ chunks pay at least their children’s', () => {
    for (const e of Object.values(pool)) {
      const chunkRate = sats(e.fees.chunk!) / e.chunkweight!;
      if (e.depends.length === 0) expect(chunkRate).toBeGreaterThanOrEqual(sats(e.fees.base) / e.weight! - 1e-12);
      for (const p of e.depends) {
        const parent = pool[p]!;
        expect(sats(parent.fees.chunk!) / parent.chunkweight! + 1e-12).toBeGreaterThanOrEqual(chunkRate);
      }
    }
  });

  it('behavior: getmempoolinfo totals match the entries and carry v31 limits', async () => {
    const info = await node.getMempoolInfo();
    const entries = Object.values(pool);
    expect(info.size).toBe(entries.length);
    expect(info.bytes).toBe(entries.reduce((s, e) => s + e.vsize, 0));
    expect(sats(info.total_fee!)).toBe(entries.reduce((s, e) => s + sats(e.fees.base), 0));
    expect(info).toMatchObject({
      limitclustercount: 64,
      limitclustersize: 101000,
      minrelaytxfee: 0.000001,
      incrementalrelayfee: 0.000001,
      maxmempool: 300000000,
    });
    expect(typeof info.optimal).toBe('boolean');
    expect(info.usage).toBeGreaterThan(info.bytes);
  });

  it('behavior: the template is topological, within limits, and is the next block', async () => {
    const template = await node.getBlockTemplate();
    expect(template).toMatchObject({ weightlimit: 4000000, sigoplimit: 80000, bits: '207fffff' });
    const index = new Map(template.transactions.map((t, i) => [t.txid, i + 1]));
    let weight = 0;
    let fees = 0;
    template.transactions.forEach((t, i) => {
      weight += t.weight;
      fees += t.fee;
      expect(t.fee).toBe(sats(pool[t.txid]!.fees.base));
      const parents = pool[t.txid]!.depends.map((p) => index.get(p));
      expect(parents.every((p) => p !== undefined && p < i + 1)).toBe(true);
      expect([...t.depends].sort()).toEqual((parents as number[]).sort());
    });
    expect(weight).toBeLessThan(4_000_000 - 8_000);
    const height = await node.getBlockCount();
    expect(template.coinbasevalue).toBe(Math.floor(50e8 / 2 ** Math.floor((height + 1) / 150)) + fees);
    const [hash] = await sim.control.mineBlocks(1);
    expect((await node.getBlock(hash!, 1)).tx.slice(1)).toEqual(template.transactions.map((t) => t.txid));
  });

  it('behavior: estimatesmartfee answers Core’s shape in BTC/kvB; unknown and bad arguments are refused', async () => {
    const fee = await node.estimateSmartFee(6);
    expect(fee.blocks).toBe(6);
    expect(fee.feerate).toBeGreaterThanOrEqual(0.000001);
    expect((await node.estimateSmartFee(1)).blocks).toBe(2);
    await expect(client.command('estimatesmartfee', 0)).rejects.toMatchObject({ code: -8 });
    await expect(client.command('estimatesmartfee', 6, 'fast')).rejects.toMatchObject({ code: -8 });
    await expect(client.command('getmempoolentry', 'ab'.repeat(32))).rejects.toMatchObject({ code: -5, message: 'Transaction not in mempool' });
    await expect(client.command('getmempoolentry', 'xyz')).rejects.toMatchObject({ code: -8 });
    await expect(client.command('getrawmempool', 1)).rejects.toMatchObject({ code: -3 });
  });
});
