import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MempoolMirror, type MempoolDiff } from '../../src/mempool/mirror.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';

let simnet: SimnetHandle;
let node: BitcoinNode;
beforeAll(async () => {
  simnet = await startSimnet({ seed: 21, blockIntervalSec: 0, txPerSec: 0, initialTxs: 200, fundingUtxos: 2000 });
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
