import { describe, expect, it } from 'vitest';
import { templateCheck } from '../../src/api/template/templateAnswers.js';
import { lookupFromSnapshot } from '../../src/optimizer/cache/txLookup.js';

type Cache = Parameters<typeof templateCheck>[0];

/** A cache of three txs: one in projected block 1, one in block 8 (the last), one beyond the projection. */
function cache(): Cache {
  const txids = ['aa', 'bb', 'cc'].map((c) => c.repeat(32));
  return {
    cachedAt: 0,
    height: 101,
    optimized: { txidSet: new Set([txids[0]]) },
    baseline: { txidSet: new Set([txids[0]]), source: 'native_v31' },
    comparison: { available: true, optimizedOnlyTxidCount: 0, overlapTxidCount: 1, baselineOnlyTxidCount: 0 },
    lookup: lookupFromSnapshot(txids, Float64Array.from([20, 3, 1.5]), Uint32Array.from([4, 4, 4]), Int32Array.from([0, 7, -1])),
    projectedBlocks: new Array(8).fill({ txCount: 1, feeSat: 0, weightWu: 4_000_000, minFeeRateSatVb: 1, medianFeeRateSatVb: 1, maxFeeRateSatVb: 1 }),
  } as unknown as Cache;
}

describe('templateCheck', () => {
  it('behavior: withinTarget is known inside the projection and null beyond what it can tell', () => {
    const c = cache();
    const check = (txid: string, targetBlocks: number) => templateCheck(c, txid.repeat(32), targetBlocks, 0);
    expect(check('aa', 1)).toMatchObject({ projectedBlock: 1, withinTarget: true });
    expect(check('bb', 6)).toMatchObject({ projectedBlock: 8, withinTarget: false });
    expect(check('bb', 8).withinTarget).toBe(true);
    // Beyond the 8 projected blocks: surely not within 6, but nothing is known about 144.
    expect(check('cc', 6)).toMatchObject({ projectedBlock: null, withinTarget: false });
    expect(check('cc', 144)).toMatchObject({ projectedBlock: null, withinTarget: null });
    expect(check('dd', 6)).toMatchObject({ inMempoolSnapshot: false, withinTarget: null });
  });
});
