/** The published cache's comparison with its baseline: the node's template, or our v31 model of the same snapshot. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadReceiptSigner } from '../../src/optimizer/cache/receipts.js';
import { publishCache, type CycleOutput, type NodeBaseline } from '../../src/optimizer/cache/templateCache.js';
import { lookupFromSnapshot } from '../../src/optimizer/cache/txLookup.js';

const dir = mkdtempSync(join(tmpdir(), 'template-comparison-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const signer = loadReceiptSigner('07'.repeat(32), dir);

const snapshot = ['11', '22', '33', '44'].map((c) => c.repeat(32));
const selection = (txids: string[]) => ({
  txids,
  txCount: txids.length,
  feeSat: 1_000 * txids.length,
  weightWu: 400 * txids.length,
  adjustedWeightWu: 400 * txids.length,
  sigopCost: 0,
});

function output(optimized: string[], v31: string[]): CycleOutput {
  const n = snapshot.length;
  return {
    kind: 'incremental',
    snapshot: { txCount: n, vsize: 100 * n, weightWu: 400 * n, feeSat: 1_000 * n, takenAt: 0, source: 'mempool_mirror' },
    tipHeight: 100,
    tipHash: 'aa'.repeat(32),
    optimized: selection(optimized),
    baselineV31: selection(v31),
    baselineV30: null,
    v31WithinRequestLimits: true,
    upperBound: { feeSat: 1_000 * optimized.length, exact: true } as CycleOutput['upperBound'],
    tailSearch: { sigopsBinding: false } as CycleOutput['tailSearch'],
    projectedBlocks: [],
    clusters: {} as CycleOutput['clusters'],
    timingsMs: {} as CycleOutput['timingsMs'],
    lookup: lookupFromSnapshot(snapshot, new Float64Array(n), new Uint32Array(n).fill(400), new Int32Array(n)),
    warm: null,
  };
}

const publish = (out: CycleOutput, nodeBaseline: NodeBaseline | null) =>
  publishCache({ cycle: 1, now: 0, output: out, nodeBaseline, weightLimitWu: 4_000_000, signer });

describe('comparison with the baseline', () => {
  it('behavior: node baseline txids absent from our snapshot are counted (mined, replaced or evicted between the reads)', () => {
    const [a, b, c] = snapshot as [string, string, string];
    const node: NodeBaseline = {
      txids: [a, 'ee'.repeat(32), c, 'ff'.repeat(32)],
      feeSat: 4_000,
      weightWu: 1_600,
      sigopCost: 0,
      height: 101,
      previousBlockHash: 'aa'.repeat(32),
      coinbaseValueSat: 0,
      weightLimitWu: 4_000_000,
    };
    const cache = publish(output([a, b], [a]), node);
    expect(cache.baseline.source).toBe('node_getblocktemplate');
    expect(cache.comparison).toMatchObject({ baselineTxidsNotInSnapshot: 2, overlapTxidCount: 1, optimizedOnlyTxidCount: 1, baselineOnlyTxidCount: 3 });
  });

  it('behavior: our v31 model of the same snapshot has none missing, and the overlap is counted as for a node', () => {
    const [a, b, c, d] = snapshot as [string, string, string, string];
    const cache = publish(output([a, b, c], [b, d]), null);
    expect(cache.baseline.source).toBe('native_v31');
    expect(cache.comparison).toMatchObject({ baselineTxidsNotInSnapshot: 0, overlapTxidCount: 1, optimizedOnlyTxidCount: 2, baselineOnlyTxidCount: 1 });
  });
});
