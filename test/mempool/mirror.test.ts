import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MempoolMirror } from '../../src/mempool/mirror.js';
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
