/**
 * The runner's memory of what changed is bounded: a replica that never steps (an optimizer
 * follower) keeps nothing, and a leader whose changes outgrow the mempool switches to a reset.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { MempoolDiff, MempoolMirror, MirrorTx } from '../../src/mempool/mirror.js';
import { IncrementalRunner } from '../../src/optimizer/incremental/incrementalRunner.js';
import { mirrorTx } from '../helpers/mirrorTx.js';

class FakeMirror extends EventEmitter {
  readonly txs = new Map<string, MirrorTx>();
  tipHeight = 100;
  tipHash = '11'.repeat(32);
}

const txid = (i: number) => i.toString(16).padStart(64, '0');
const OPTIONS = { weightLimitWu: 4_000_000, maxTxCount: 4000, minFeeRateSatVb: 0, projectedBlocks: 2 };

/** `n` made-up txs that enter and leave again: the mempool stays small, the txids seen grow. */
function churn(mirror: FakeMirror, from: number, n: number): void {
  for (let i = from; i < from + n; i++) {
    const tx = mirrorTx(txid(i), 1000, 800);
    const diff: MempoolDiff = { at: Date.now(), added: [tx], removed: [{ tx, reason: 'evicted' }], blocks: [] };
    mirror.emit('diff', diff);
  }
}

let runner: IncrementalRunner | undefined;
afterEach(async () => {
  await runner?.close();
  runner = undefined;
});

describe('incremental runner', () => {
  it('behavior: a replica that never steps (a follower) keeps no changed txids however long the mempool churns', () => {
    const mirror = new FakeMirror();
    runner = new IncrementalRunner({ mirror: mirror as unknown as MempoolMirror });
    churn(mirror, 0, 50_000);
    expect(runner.pendingChanges).toBe(0);
    expect(runner.willReset).toBe(true);
  });

  it('behavior: after a step, changes beyond the mempool size (at least 10,000) turn into one reset', async () => {
    const mirror = new FakeMirror();
    for (let i = 0; i < 50; i++) mirror.txs.set(txid(1_000_000 + i), mirrorTx(txid(1_000_000 + i), 2000, 800));
    runner = new IncrementalRunner({ mirror: mirror as unknown as MempoolMirror });
    const first = await runner.step({ ...OPTIONS, seed: 1 }, { full: false, check: false });
    expect(first.reset).toBe(true);
    churn(mirror, 0, 9_000);
    expect(runner.pendingChanges).toBe(9_000);
    expect(runner.willReset).toBe(false);
    churn(mirror, 9_000, 2_000);
    expect(runner.pendingChanges).toBe(0);
    expect(runner.willReset).toBe(true);
    const next = await runner.step({ ...OPTIONS, seed: 2 }, { full: false, check: false });
    expect(next.reset).toBe(true);
    expect(next.optimized.txCount).toBe(50);
  });
});
