/**
 * The targeted getrawmempool reader (src/optimizer/snapshot/coreMempoolScan.ts) against the general path
 * (JSON.parse + parseCoreMempool): the same snapshot for every file it reads, and `undefined`
 * (so the general path answers, with its precise error) for everything else, including random
 * corruptions of a valid file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { scanCoreMempool } from '../../src/optimizer/snapshot/coreMempoolScan.js';
import { parseCoreMempool, readSnapshotFile } from '../../src/optimizer/snapshot/snapshot.js';
import { generateMempool, toCoreJson } from '../../src/optimizer/snapshot/syntheticMempool.js';
import { reference } from '../helpers/mempoolSnapshots.js';
import { rng } from '../native/oracle.js';

const tmp = mkdtempSync(join(tmpdir(), 'core-scan-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The scan's fields, shaped like the general path's snapshot (txidRank aside: computed by the caller). */
function scanned(text: string) {
  const s = scanCoreMempool(Buffer.from(text, 'utf8'));
  if (!s) return undefined;
  return {
    txids: s.txids,
    baseFeeSat: s.baseFeeSat,
    stats: s.stats,
    input: { feeSat: s.feeSat, weightWu: s.weightWu, sigopCost: s.sigopCost, parentOffsets: s.parentOffsets, parentIndices: s.parentIndices },
  };
}

function expectSame(text: string): void {
  const ref = reference(text);
  if (!('snapshot' in ref)) throw new Error(`the general path refused the text: ${String(ref.error)}`);
  const { txidRank: _rank, ...input } = ref.snapshot.input;
  expect(scanned(text)).toEqual({ txids: ref.snapshot.txids, baseFeeSat: ref.snapshot.baseFeeSat, stats: ref.snapshot.stats, input });
}

const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);
const C = 'cc'.repeat(32);
const UPPER = 'D'.repeat(64);

describe('coreMempoolScan', () => {
  it('default: reads synthetic mempools (chains, CPFP, sigop-heavy) exactly as JSON.parse + parseCoreMempool, compact and pretty-printed', () => {
    for (const seed of [1, 2, 3]) {
      const m = generateMempool({ txCount: 2000, seed, sigopHeavyShare: 0.05, bareMultisigShare: 0.02 });
      const text = toCoreJson(m);
      expectSame(text);
      expectSame(JSON.stringify(JSON.parse(text), null, 2).replaceAll('\n', '\r\n\t'));
      const s = scanned(text);
      expect(s?.stats.derivedSigops).toBeGreaterThan(0);
      expect(s?.input.parentIndices.length).toBeGreaterThan(0);
    }
  });

  it("behavior: handles the rarer shapes itself, with the general path's result", () => {
    const cases: Record<string, unknown>[] = [
      {},
      // legacy (pre-0.21) fields, a negative modified fee, a parent not in the snapshot
      { [A]: { size: 250, fee: 0.0000025, modifiedfee: -0.0001, depends: ['ee'.repeat(32)] } },
      // uppercase txids in keys and depends; weight from vsize_bip141 or vsize; sigop-adjusted vsize
      {
        [UPPER]: { vsize: 300, vsize_bip141: 120, fees: { base: 0.00001 }, depends: [] },
        [B]: { vsize: 200, fees: { base: 1e-5, modified: 2.5e-5 }, depends: [UPPER, UPPER.toLowerCase()] },
        [C]: { vsize: 500, vsize_adjusted: 500, weight: 400, fees: { base: 21000000, modified: 0 }, depends: null },
      },
      // values of other types where a number is read; unknown fields of every JSON type
      {
        [A]: { weight: 'x', vsize: null, size: 100, fees: null, fee: 0.001, modifiedfee: 0.002, depends: [] },
        [B]: {
          weight: 0,
          vsize_bip141: 90.5,
          vsize: 90,
          fees: { base: 0.1, modified: 0.3, ancestor: [1, { a: 'é\u2028"\\' }] },
          other: { x: [true, false, null, -0.5e3] },
        },
      },
    ];
    for (const c of cases) {
      expectSame(JSON.stringify(c));
      expect(scanned(JSON.stringify(c))).toBeDefined();
    }
    // a repeated key: the last one wins, as in JSON.parse
    expectSame(
      `{"${A}":{"weight":400,"weight":800,"fees":{"base":1},"fees":{"base":2,"modified":3},"depends":["${B}"],"depends":[]},"${B}":{"vsize":1,"fee":1}}`,
    );
  });

  it('failure: gives up on everything else, so the general path answers or names the error', () => {
    const refused = [
      JSON.stringify({ result: { [A]: { vsize: 1, fee: 1 } }, error: null, id: 1 }), // JSON-RPC envelope
      JSON.stringify({ txs: [] }), // shared format
      `{"${A}":{"vsize":1,"fee":1},"${A}":{"vsize":2,"fee":1}}`, // duplicate txid
      `{"${A}":{"vsize":1,"fee":1},"${A.toUpperCase()}":{"vsize":2,"fee":1}}`, // duplicate after lowercasing
      `{"${A}":{"vsiz\\u0065":1,"fee":1}}`, // escaped key
      `{"${A}":{"vsize":1,"fee":1,"depends":["\\u0061${'b'.repeat(63)}"]}}`, // escaped parent txid
      `{"${A}":{"vsize":1,"fee":1,"depends":[1]}}`, // a parent that is not a string
      `{"${A}":{"vsize":1}}`, // no fee
      `{"${A}":{"fee":1}}`, // no size
      `{"${A}":{"vsize":1,"fee":1e400}}`, // not finite
      `{"${A}":{"vsize":1,"fee":1,"x":${'['.repeat(100)}${']'.repeat(100)}}}`, // deep nesting
      `{"${A.slice(2)}":{"vsize":1,"fee":1}}`, // not a txid
      `\ufeff{"${A}":{"vsize":1,"fee":1}}`, // BOM
      `{"${A}":{"vsize":1,"fee":1}} x`, // trailing garbage
      `{"${A}":{"vsize":01,"fee":1}}`, // leading zero
      `{"${A}":{"vsize":1,"fee":1,}}`, // trailing comma
      `{"${A}":{"vsize":1,"fee":1,"x":"a\nb"}}`, // raw control character in a string
      `{"${A}":{"vsize":1,"fee":1,"x":NaN}}`,
      `{"${A}":{"vsize":1,"fee":1}`, // truncated
      '[1,2]',
      '',
    ];
    for (const text of refused) expect(scanned(text), text).toBeUndefined();
  });

  it('property: a corrupted file is read as JSON.parse + parseCoreMempool reads it, or handed to them', () => {
    const r = rng(7);
    const base = toCoreJson(generateMempool({ txCount: 30, seed: 5, sigopHeavyShare: 0.1 }));
    const alphabet = '{}[]":,0123456789.eE-+ \\utrfnalsABCDEFabcdef\n\u00e9';
    let readByScan = 0;
    for (let k = 0; k < 1500; k++) {
      let text = base;
      for (let edits = 1 + Math.floor(r() * 3); edits > 0; edits--) {
        const at = Math.floor(r() * text.length);
        const ch = alphabet[Math.floor(r() * alphabet.length)] ?? '';
        const op = r();
        text =
          op < 0.4 ? text.slice(0, at) + text.slice(at + 1) : op < 0.7 ? text.slice(0, at) + ch + text.slice(at) : text.slice(0, at) + ch + text.slice(at + 1);
      }
      const ref = reference(text);
      const got = scanned(text);
      if ('error' in ref) expect(got, text).toBeUndefined();
      else if (got !== undefined) {
        readByScan++;
        const { txidRank: _rank, ...input } = ref.snapshot.input;
        expect(got).toEqual({ txids: ref.snapshot.txids, baseFeeSat: ref.snapshot.baseFeeSat, stats: ref.snapshot.stats, input });
      }
    }
    expect(readByScan).toBeGreaterThan(100); // most single edits land in values the scan reads or checks
  });

  it("behavior: readSnapshotFile gives the general path's snapshot, txid rank included, and its errors", async () => {
    const text = toCoreJson(generateMempool({ txCount: 3000, seed: 9 }));
    const file = join(tmp, 'mempool.json');
    writeFileSync(file, text);
    expect(await readSnapshotFile(file)).toEqual(parseCoreMempool(JSON.parse(text)));
    writeFileSync(file, `{"${A}":{"vsize":1}}`);
    await expect(readSnapshotFile(file)).rejects.toThrow(`fees.base of ${A} is not a number`);
    writeFileSync(file, `{"${A}":{"vsize":1,"fee":1},}`);
    await expect(readSnapshotFile(file)).rejects.toMatchObject({ code: 'ERR_SNAPSHOT_JSON' });
  });
});
