/**
 * Snapshot conversion (Core `getrawmempool true` JSON and the shared format, plain or gzip), Core's
 * txid order, and every template property on the real mainnet snapshots in ../shared/data/mempool
 * (skipped with a message when absent).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

import { buildTemplates, inspectClusters } from '../../src/optimizer/binding/native.js';
import { at } from '../../src/util/at.js';
import {
  SnapshotError, computeTxidRank, parseCoreMempool, parseSharedSnapshot, readSnapshotFile, warmOrderFromPrevious,
} from '../../src/optimizer/snapshot/snapshot.js';
import { MEMPOOL_SNAPSHOT_DIR, mainnetSnapshotFiles } from '../helpers/mempoolSnapshots.js';
import { CORE_LIMITS, checkResult, miningOrder, referenceV31, rng } from './oracle.js';

const DATA = MEMPOOL_SNAPSHOT_DIR;
const realFiles = mainnetSnapshotFiles();
const tmp = mkdtempSync(join(tmpdir(), 'snapshot-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const txid = (last: string, first = '00') => `${first}${'ab'.repeat(30)}${last}`;

describe('snapshot', () => {
  it('default: computeTxidRank follows Core (memcmp over the byte-reversed display hex)', () => {
    // Display hex is big-endian; Core's uint256 compares its internal little-endian bytes, so the
    // LAST display byte decides first: ...01 < ...02 whatever the first bytes are.
    const ids = [txid('02', '00'), txid('01', 'ff'), txid('01', '00'), txid('ff', '00')];
    expect(Array.from(computeTxidRank(ids))).toEqual([2, 1, 0, 3]);
    // A plain string sort would order by the first byte instead.
    expect([...ids].sort().indexOf(at(ids, 1))).toBe(3);
  });

  it('behavior: computeTxidRank equals a byte-reversed string sort, including long shared prefixes', () => {
    const r = rng(9);
    const hex = (len: number) => Array.from({ length: len }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
    // Many txids share the last 8 display hex chars (Core's first 4 bytes), so ties go to the exact path.
    const ids = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? hex(56) + 'deadbeef' : i % 3 === 1 ? hex(56) + '00deadbe' : hex(64)));
    const reversed = (t: string) => t.match(/../g)!.reverse().join('');
    const expected = ids.map((_, i) => i).sort((a, b) => (reversed(at(ids, a)) < reversed(at(ids, b)) ? -1 : reversed(at(ids, a)) > reversed(at(ids, b)) ? 1 : 0));
    const rank = computeTxidRank(ids);
    expect(expected.map((i) => rank[i])).toEqual(expected.map((_, pos) => pos));
    expect(() => computeTxidRank(['zz'.repeat(32)])).toThrow(/is not a txid/);
  });

  it('default: parses Core getrawmempool JSON (BTC fees, modified fee, depends, weight)', () => {
    const a = 'aa'.repeat(32), b = 'bb'.repeat(32), c = 'cc'.repeat(32);
    const s = parseCoreMempool({
      [a]: { vsize: 141, weight: 561, fees: { base: 0.00001410, modified: 0.00002000 }, depends: [] },
      [b]: { vsize: 200, weight: 800, fees: { base: 0.0001, modified: 0.0001 }, depends: [a, 'dd'.repeat(32)] },
      // sigop-heavy: Core's adjusted vsize exceeds ceil(weight / 4)
      [c]: { vsize: 500, vsize_adjusted: 500, vsize_bip141: 100, weight: 400, fees: { base: 0.00005, modified: 0.00005 }, depends: [] },
    });
    expect(s.format).toBe('core');
    expect(s.txids).toEqual([a, b, c]);
    expect(Array.from(s.input.feeSat)).toEqual([2000, 10000, 5000]);
    expect(Array.from(s.baseFeeSat)).toEqual([1410, 10000, 5000]);
    expect(Array.from(s.input.weightWu)).toEqual([561, 800, 400]);
    expect(Array.from(s.input.sigopCost ?? [])).toEqual([0, 0, 100]);
    expect(Array.from(s.input.parentOffsets)).toEqual([0, 0, 1, 1]);
    expect(Array.from(s.input.parentIndices)).toEqual([0]);
    expect(s.stats).toMatchObject({ txCount: 3, droppedParents: 1, derivedSigops: 1, weightFromVsize: 0 });
    // the sigop cost reproduces Core's adjusted size: max(400, 20 * 100) / 4 = 500 vB
    expect(buildTemplates(s.input).txChunkWeightWu[2]).toBe(2000);
  });

  it('args: old Core fields (size, top-level fee/modifiedfee), the JSON-RPC envelope, negative modified fees', () => {
    const a = 'aa'.repeat(32);
    const s = parseCoreMempool({ result: { [a]: { size: 250, fee: 0.00000250, modifiedfee: -0.0001, depends: [] } }, error: null, id: 1 });
    expect(Array.from(s.input.weightWu)).toEqual([1000]);
    expect(Array.from(s.input.feeSat)).toEqual([0]);
    expect(s.stats).toMatchObject({ weightFromVsize: 1, clampedFees: 1 });
    const b = parseCoreMempool({ [a]: { vsize: 300, vsize_bip141: 120, fees: { base: 0.00001 }, depends: [] } });
    expect(Array.from(b.input.weightWu)).toEqual([480]);
    expect(Array.from(b.input.sigopCost ?? [])).toEqual([60]);
  });

  it('error: ERR_SNAPSHOT_FORMAT names the bad entry', () => {
    expect(() => parseCoreMempool({ nothex: {} })).toThrow(/key "nothex" is not a txid/);
    expect(() => parseCoreMempool({ ['aa'.repeat(32)]: { fees: { base: 'x' }, vsize: 1 } })).toThrow(/fees.base of aa/);
    expect(() => parseCoreMempool([1, 2])).toThrow(SnapshotError);
    expect(() => parseSharedSnapshot({ txs: [{ txid: 'aa'.repeat(32), fee: 1.5, vsize: 1 }] })).toThrow(/txs\[0\].fee/);
    expect(() => parseSharedSnapshot({ txs: [{ txid: 'aa'.repeat(32), fee: 1, vsize: 1 }, { txid: 'AA'.repeat(32), fee: 1, vsize: 1 }] })).toThrow(/duplicate txid/);
  });

  it('error: files: missing, bad gzip, bad JSON', async () => {
    await expect(readSnapshotFile(join(tmp, 'nope.json'))).rejects.toMatchObject({ code: 'ERR_SNAPSHOT_READ' });
    writeFileSync(join(tmp, 'bad.gz'), Buffer.from([0x1f, 0x8b, 1, 2, 3]));
    await expect(readSnapshotFile(join(tmp, 'bad.gz'))).rejects.toMatchObject({ code: 'ERR_SNAPSHOT_GZIP' });
    writeFileSync(join(tmp, 'bad.json'), '{"txs": [');
    await expect(readSnapshotFile(join(tmp, 'bad.json'))).rejects.toMatchObject({ code: 'ERR_SNAPSHOT_JSON' });
  });

  it('behavior: warmOrderFromPrevious maps a previous linearization through txids', () => {
    const prev = { txids: ['x', 'y', 'z'], linearization: new Uint32Array([2, 0, 1]) };
    expect(Array.from(warmOrderFromPrevious(prev, { txids: ['y', 'w', 'z'] }))).toEqual([2, 0]);
  });

  describe.skipIf(realFiles.length === 0)('real mainnet snapshots', () => {
    if (realFiles.length === 0) console.warn(`skipping real snapshot tests: no files in ${DATA}`);

    it.each(realFiles)('behavior: %s: every template property holds', async (name) => {
      const snap = await readSnapshotFile(join(DATA, name));
      expect(snap.stats.droppedParents).toBe(0);
      for (const weightLimitWu of [4_000_000, 1_000_000, 300_000]) {
        const opts = { ...CORE_LIMITS, weightLimitWu, maxTxCount: 100_000, minFeeRateSatVb: 0 };
        const r = buildTemplates(snap.input, opts);
        expect(checkResult(snap.input, r, opts)).toEqual([]);
        expect(r.upperBound.exact).toBe(true);
        expect(r.clusters.optimalCount).toBe(r.clusters.count);
        expect(r.v31WithinRequestLimits).toBe(true);
        expect(r.optimized.feeSat).toBeGreaterThanOrEqual(r.baselineV31.feeSat);
        const ref = referenceV31(miningOrder(snap.input, inspectClusters(snap.input)), opts);
        expect(r.baselineV31.feeSat).toBe(ref.fee);
      }
    });

    it.each(realFiles)('behavior: %s: the bound certifies the optimized template within 0.001 %% (issue 14)', async (name) => {
      const snap = await readSnapshotFile(join(DATA, name));
      const r = buildTemplates(snap.input, {});
      expect(r.upperBound.solved).toBe(true);
      expect(r.upperBound.feeSat - r.optimized.feeSat).toBeLessThanOrEqual(r.upperBound.feeSat * 1e-5);
    });

    it.skipIf(!realFiles.some((f) => f.includes('3778tx')))('behavior: 2020-06-09 matches the research measurements', async () => {
      // research/linearization.md §4.6: v30 = v31 = 12,082,836; exact optimum 12,082,860; LP bound 12,083,100.7.
      // The residual solve closes the LP's gap: the bound is the exact optimum, a zero-gap certificate.
      const snap = await readSnapshotFile(join(DATA, realFiles.find((f) => f.includes('3778tx')) as string));
      const r = buildTemplates(snap.input, { maxTxCount: 100_000, minFeeRateSatVb: 0 });
      expect(r.baselineV31.feeSat).toBe(12_082_836);
      expect(r.baselineV30.feeSat).toBe(12_082_836);
      expect(r.optimized.feeSat).toBe(12_082_860);
      expect(r.upperBound.lpFeeSat).toBe(12_083_100);
      expect(r.upperBound.solved).toBe(true);
      expect(r.upperBound.feeSat).toBe(12_082_860);
    });

    it.each(realFiles)('behavior: %s: the Core JSON rendering converts to the same arrays', async (name) => {
      const shared = await readSnapshotFile(join(DATA, name));
      // Re-render as getrawmempool JSON (fees in BTC), gzip it, and read it back.
      const core: Record<string, unknown> = {};
      shared.txids.forEach((t, i) => {
        const ps = Array.from(shared.input.parentIndices.subarray(shared.input.parentOffsets[i], shared.input.parentOffsets[i + 1]), (p) => shared.txids[p]);
        const weight = at(shared.input.weightWu, i), fee = at(shared.input.feeSat, i) / 1e8;
        core[t] = { vsize: Math.ceil(weight / 4), weight, fees: { base: fee, modified: fee }, depends: ps };
      });
      const path = join(tmp, `${name}.core.json.gz`);
      writeFileSync(path, gzipSync(JSON.stringify(core)));
      const back = await readSnapshotFile(path);
      expect(back.format).toBe('core');
      expect(back.txids).toEqual(shared.txids);
      expect(Array.from(back.input.feeSat)).toEqual(Array.from(shared.input.feeSat));
      expect(Array.from(back.input.parentIndices)).toEqual(Array.from(shared.input.parentIndices));
      expect(Array.from(back.input.txidRank)).toEqual(Array.from(shared.input.txidRank));
      expect(buildTemplates(back.input).optimized.feeSat).toBe(buildTemplates(shared.input).optimized.feeSat);
    });
  });
});
