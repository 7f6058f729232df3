/**
 * The engine worker's message handling: a large send arrives in slices, and a parent may come in a
 * later slice than its child; the cycle still sees the link (both in one chunk, the child paying
 * for the parent).
 */
import { describe, expect, it } from 'vitest';
import { packBatch } from '../../src/optimizer/incremental/incrementalRunner.js';
import { WorkerState, type StepRequest } from '../../src/optimizer/incremental/incrementalWorker.js';
import { findTxidKey } from '../../src/optimizer/cache/txLookup.js';
import { mirrorTx } from '../helpers/mirrorTx.js';

describe('engine worker', () => {
  it('behavior: a reset in slices, a parent after its child: the link holds', () => {
    const parent = mirrorTx('aa'.repeat(32), 200, 800); // 1 sat/vB
    const child = mirrorTx('bb'.repeat(32), 20_000, 800, [parent.txid]); // 100 sat/vB
    const others = Array.from({ length: 6 }, (_, i) => mirrorTx(`0${i}`.repeat(32), 4_000, 800)); // 20 sat/vB
    const options = { maxTxCount: 100, minFeeRateSatVb: 0, projectedBlocks: 2 };
    const request = (id: number, upserts: Parameters<typeof packBatch>[0], reset: boolean, build: boolean): StepRequest => ({
      id,
      reset,
      upserts: packBatch(upserts),
      removed: '',
      options,
      full: false,
      check: false,
      build,
    });
    const state = new WorkerState();
    expect(state.handle(request(0, [child, ...others.slice(0, 3)], true, false))).toBeNull();
    expect(state.handle(request(0, others.slice(3), false, false))).toBeNull();
    const reply = state.handle(request(1, [parent], false, true));
    if (!reply?.ok) throw new Error(`no cycle: ${JSON.stringify(reply)}`);
    const { lookup, totals, clusters } = reply.output;
    expect(totals.txCount).toBe(8);
    expect(clusters.count).toBe(7);
    // Parent and child form one chunk: (200 + 20,000) sat over 400 vB.
    const rate = (txid: string) => lookup.chunkFeeRateSatVb[findTxidKey(lookup.keys, txid)];
    expect(rate(parent.txid)).toBeCloseTo(50.5, 9);
    expect(rate(child.txid)).toBeCloseTo(50.5, 9);
  });
});
