/**
 * The embedded simulated node publishes Core's ZMQ notifications: the mirror follows them with the
 * same source as for Core (no scheduled sync), sees replacements and blocks, and stays equal to
 * `getrawmempool`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MempoolFollower } from '../../src/mempool/follower.js';
import { MempoolMirror, type MempoolDiff } from '../../src/mempool/mirror.js';
import { ZmqSequenceSource } from '../../src/mempool/zmqSequence.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';

let simnet: SimnetHandle;
let node: BitcoinNode;
let mirror: MempoolMirror;
let follower: MempoolFollower;
const diffs: MempoolDiff[] = [];

beforeAll(async () => {
  simnet = await startSimnet({ seed: 5, blockIntervalSec: 0, txPerSec: 0, initialTxs: 300, fundingUtxos: 2000, policyModule: CORE_V31_POLICY_MODULE });
  node = new BitcoinNode({ url: simnet.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 5000 });
  mirror = new MempoolMirror(node, { pollMs: 600_000 });
  follower = new MempoolFollower(mirror, new ZmqSequenceSource(simnet.zmqUrl, simnet.zmqUrl), { quietMs: 600_000, pollMs: 600_000 });
  await follower.start();
  mirror.on('diff', (d) => diffs.push(d));
  await mirror.poll();
});
afterAll(async () => {
  await follower?.stop();
  await mirror?.stop();
  await simnet?.close();
});

/** Until the mirror holds exactly the node's mempool (events are asynchronous). */
async function settled(): Promise<{ mirror: string[]; node: string[] }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pool = (await node.getRawMempoolTxids()).sort();
    const view = [...mirror.txs.keys()].sort();
    if (Date.now() > deadline || JSON.stringify(pool) === JSON.stringify(view)) return { mirror: view, node: pool };
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('mirror on the simulated node’s ZMQ feed', () => {
  it('behavior: additions, a replacement and a block arrive as events; the view equals getrawmempool', async () => {
    const polls = mirror.pollCount;
    // Subscriptions take a moment to reach the publisher: wait for the first event.
    for (let i = 0; follower.lastEventAt === undefined && i < 100; i++) {
      await simnet.control.addTransactions(1);
      await new Promise((r) => setTimeout(r, 50));
    }
    await simnet.control.addTransactions(20);
    const { replaced, replacement } = await simnet.control.replaceTransaction();
    let state = await settled();
    expect(state.mirror).toEqual(state.node);
    await new Promise((r) => setTimeout(r, 50));
    const gone = diffs.flatMap((d) => d.removed).find((r) => r.tx.txid === replaced[0]);
    expect(gone).toMatchObject({ reason: 'replaced', replacedBy: replacement });

    const [hash] = await simnet.control.mineBlocks(1);
    state = await settled();
    expect(state.mirror).toEqual(state.node);
    expect(mirror.tipHash).toBe(hash);
    expect(diffs.flatMap((d) => d.blocks).map((b) => b.hash)).toContain(hash);
    expect(mirror.pollCount).toBe(polls);
    expect(follower.mode).toBe('events');
  });
});
