/**
 * The native getrawmempool reader (native/snapshot_reader.cpp via src/optimizer/snapshot/nativeScan.ts)
 * against the TypeScript scan (coreMempoolScan.ts) and the general path (JSON.parse +
 * parseCoreMempool): the same snapshot, txid rank included, for every file it reads; "gave up" for
 * everything the general path refuses, so the caller names the error. On the real mainnet snapshots
 * in ../shared/data/mempool written back as Core `getrawmempool true` JSON (skipped with a message
 * when absent), on synthetic mempools, and on random corruptions of a valid file. Runs under
 * ASan/UBSan with `npm run test:native:debug`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

import { scanCoreMempool } from '../../src/optimizer/snapshot/coreMempoolScan.js';
import { scanCoreMempoolFileNative, scanCoreMempoolNative } from '../../src/optimizer/snapshot/nativeScan.js';
import { parseCoreMempool, readSnapshotFile, type MempoolSnapshot } from '../../src/optimizer/snapshot/snapshot.js';
import { generateMempool, toCoreJson } from '../../src/optimizer/snapshot/syntheticMempool.js';
import { MEMPOOL_SNAPSHOT_DIR, mainnetSnapshotFiles, reference } from '../helpers/mempoolSnapshots.js';
import { rng } from './oracle.js';

const DATA = MEMPOOL_SNAPSHOT_DIR;
const realFiles = mainnetSnapshotFiles();
const tmp = mkdtempSync(join(tmpdir(), 'snapshot-reader-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);

/** A snapshot's fields as the readers return them (txid rank included). */
function fields(s: MempoolSnapshot) {
  return { txids: s.txids, baseFeeSat: s.baseFeeSat, stats: s.stats, ...s.input };
}

type Outcome = 'read' | 'gave-up' | 'refused';

/**
 * The three readers on one text: the general path's snapshot from the native reader (or "gave up"),
 * the TypeScript scan agreeing on what it reads; "gave up" from both when the general path refuses.
 */
function threeWay(text: string): Outcome {
  const bytes = Buffer.from(text, 'utf8');
  const ref = reference(text);
  const native = scanCoreMempoolNative(bytes);
  const ts = scanCoreMempool(bytes);
  expect(native, 'the addon has no snapshot reader: rebuild it (npm run build:native)').not.toBe('unavailable');
  // Read in two halves side by side (from a member key past the middle): the same answer.
  expect(scanCoreMempoolNative(bytes, { splitFromBytes: 0 }), text.slice(0, 300)).toEqual(native);
  // The two scans are ports of each other: they give up on the same bytes.
  expect(native === 'gave-up', text.slice(0, 300)).toBe(ts === undefined);
  if ('error' in ref) {
    expect(native, text.slice(0, 300)).toBe('gave-up');
    return 'refused';
  }
  if (native === 'gave-up') return 'gave-up';
  expect(native).toEqual(fields(ref.snapshot));
  return 'read';
}

/** A shared-format snapshot written as Core would print `getrawmempool true` (amounts in BTC, 8 decimals). */
function asCoreJson(shared: { txs: { txid: string; fee: number; weight: number | null; vsize: number; parents: string[] }[] }, spaces = 0): string {
  const entries = shared.txs.map((t) => {
    const fee = (t.fee / 1e8).toFixed(8);
    const weight = t.weight === null ? '' : `"weight":${t.weight},`;
    return `"${t.txid}":{"vsize":${t.vsize},${weight}"fees":{"base":${fee},"modified":${fee},"ancestor":${fee}},"depends":${JSON.stringify(t.parents)},"bip125-replaceable":false}`;
  });
  const text = `{${entries.join(',')}}`;
  return spaces ? JSON.stringify(JSON.parse(text), null, spaces) : text;
}

describe('native snapshot reader', () => {
  it('default: reads synthetic mempools (chains, CPFP, sigop-heavy) as JSON.parse + parseCoreMempool and the TypeScript scan do, compact and pretty-printed', () => {
    for (const seed of [1, 2, 3]) {
      const text = toCoreJson(generateMempool({ txCount: 3000, seed, sigopHeavyShare: 0.05, bareMultisigShare: 0.02 }));
      expect(threeWay(text)).toBe('read');
      expect(threeWay(JSON.stringify(JSON.parse(text), null, 2).replaceAll('\n', '\r\n\t'))).toBe('read');
      const native = scanCoreMempoolNative(Buffer.from(text));
      if (typeof native === 'string') throw new Error(native);
      expect(native.stats.derivedSigops).toBeGreaterThan(0);
      expect(native.parentIndices.length).toBeGreaterThan(0);
    }
  });

  describe.skipIf(realFiles.length === 0)('real mainnet snapshots', () => {
    if (realFiles.length === 0) console.warn(`skipping the native reader on real snapshots: no mainnet-*.json.gz in ${DATA}`);
    it('default: each mainnet snapshot, written back as getrawmempool JSON, is read exactly as the general path reads it', () => {
      for (const file of realFiles) {
        const shared = JSON.parse(gunzipSync(readFileSync(join(DATA, file))).toString('utf8'));
        expect(threeWay(asCoreJson(shared)), file).toBe('read');
        expect(threeWay(asCoreJson(shared, 1)), file).toBe('read');
        // The shared format itself is not getrawmempool JSON: the general path reads it.
        expect(scanCoreMempoolNative(gunzipSync(readFileSync(join(DATA, file)))), file).toBe('gave-up');
      }
    });
  });

  it("behavior: the rarer shapes (legacy fields, uppercase txids, other types, repeated keys) give the general path's result", () => {
    const UPPER = 'D'.repeat(64);
    const cases = [
      '{}',
      JSON.stringify({ [A]: { size: 250, fee: 0.0000025, modifiedfee: -0.0001, depends: ['ee'.repeat(32), 'short'] } }),
      JSON.stringify({
        [UPPER]: { vsize: 300, vsize_bip141: 120, fees: { base: 0.00001 }, depends: [] },
        [B]: { vsize: 200, fees: { base: 1e-5, modified: 2.5e-5 }, depends: [UPPER, UPPER.toLowerCase()] },
        [A]: { vsize: 500, vsize_adjusted: 500, weight: 400, fees: { base: 21000000, modified: 0 }, depends: null },
      }),
      JSON.stringify({
        [A]: { weight: 'x', vsize: null, size: 100, fees: null, fee: 0.001, modifiedfee: 0.002, depends: [] },
        [B]: { weight: 0, vsize_bip141: 90.5, vsize: 90, fees: { base: 0.1, modified: 0.3, ancestor: [1, { a: 'é\u2028"\\' }] }, other: { x: [true, false, null, -0.5e3] } },
      }),
      // numbers through the slow path (exponents, long mantissas), -0, and a weight beyond 32 bits (stored modulo 2^32, as a Uint32Array does)
      `{"${A}":{"vsize":1.5e2,"weight":6e2,"fees":{"base":-0,"modified":1.23456789012345678e-3}},"${B}":{"vsize":5e9,"weight":4294967297,"fee":0.000000005,"modifiedfee":-0.000000005},"${'cc'.repeat(32)}":{"vsize":1,"fee":-0.000000001,"modifiedfee":-0.000000006}}`,
      `{"${A}":{"weight":400,"weight":800,"fees":{"base":1},"fees":{"base":2,"modified":3},"depends":["${B}"],"depends":[]},"${B}":{"vsize":1,"fee":1}}`,
      // txids alike in their last 16 hex characters (the first 8 bytes of Core's order) are ranked on the rest
      JSON.stringify(Object.fromEntries(['03', '01', 'ff', '02'].map((d, i) => [`${d.repeat(8)}${'0e'.repeat(16)}${'f7'.repeat(8)}`, { vsize: 100 + i, fee: 0.00001 }]))),
      // scalars at the deepest level read (64)
      `{"${A}":{"vsize":1,"fee":1,"x":${'['.repeat(63)}1,"s"${']'.repeat(63)}}}`,
      // 40 txids in one bucket of the rank's counting sort (the same last 4 hex characters; then also the same last 16): ranked by the comparison sort it keeps for large buckets
      JSON.stringify(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${((i * 7919) % 256).toString(16).padStart(2, '0').repeat(30)}abcd`, { vsize: 100 + i, fee: 0.00001 }]))),
      JSON.stringify(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${((i * 7919) % 256).toString(16).padStart(2, '0').repeat(24)}0123456789abcdef`, { vsize: 100 + i, fee: 0.00001 }]))),
    ];
    for (const text of cases) expect(threeWay(text), text).toBe('read');
  });

  it("behavior: keys read by prediction (each entry's keys as in the one before) give the general path's result when the next entry's keys differ", () => {
    const r = rng(7);
    const keys = ['vsize', 'vsize_adjusted', 'weight', 'fee', 'fees', 'depends', 'size', 'x', 'vsize_bip141', 'modifiedfee', 'a'.repeat(27), 'a'.repeat(28), 'b'.repeat(40)];
    const value = (k: string): unknown =>
      k === 'fees' ? { base: 0.00001, modified: 0.00002 } : k === 'depends' ? [] : k.startsWith('a') || k.startsWith('b') ? 'v' : 100 + Math.floor(r() * 900);
    const outcomes: Record<Outcome, number> = { read: 0, 'gave-up': 0, refused: 0 };
    for (let round = 0; round < 40; round++) {
      const entries: string[] = [];
      for (let i = 0; i < 12; i++) {
        // Mostly the previous entry's keys in the same order; sometimes shuffled, cut short, repeated, spaced or escaped.
        const order = round % 2 === 0 && i > 0 && r() < 0.7 ? keys : ['vsize', 'fee', ...keys].sort(() => r() - 0.5).slice(0, 3 + Math.floor(r() * keys.length));
        const members = order.map((k) => {
          const sep = r() < 0.1 ? ' : ' : ':';
          const name = round % 5 === 4 && r() < 0.03 ? k.replace(/^./, (c) => `\\u00${c.charCodeAt(0).toString(16)}`) : k;
          return `"${name}"${sep}${JSON.stringify(value(k))}`;
        });
        if (r() < 0.2) members.push(`"vsize":${1 + Math.floor(r() * 500)}`);
        const txid = Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
        entries.push(`"${txid}":{${members.join(',')}}`);
      }
      const text = `{${entries.join(',')}}`;
      outcomes[threeWay(text)]++;
      outcomes[threeWay(`${text} `)]++;
    }
    expect(outcomes.read).toBeGreaterThan(20);
  });

  it('failure: gives up on everything else, so the general path answers or names the error', () => {
    const refused = [
      JSON.stringify({ result: { [A]: { vsize: 1, fee: 1 } }, error: null, id: 1 }),
      JSON.stringify({ txs: [] }),
      `{"${A}":{"vsize":1,"fee":1},"${A}":{"vsize":2,"fee":1}}`,
      `{"${A}":{"vsize":1,"fee":1},"${A.toUpperCase()}":{"vsize":2,"fee":1}}`,
      `{"${A}":{"vsiz\\u0065":1,"fee":1}}`,
      `{"${A}":{"vsize":1,"fee":1,"depends":["\\u0061${'b'.repeat(63)}"]}}`,
      `{"${A}":{"vsize":1,"fee":1,"depends":[1]}}`,
      `{"${A}":{"vsize":1}}`,
      `{"${A}":{"fee":1}}`,
      `{"${A}":{"vsize":1,"fee":1e400}}`,
      `{"${A}":{"vsize":1,"fee":1,"x":${'['.repeat(100)}${']'.repeat(100)}}}`,
      // a scalar one level too deep (nesting deeper than 64 gives up, whatever is at the bottom)
      `{"${A}":{"vsize":1,"fee":1,"x":${'['.repeat(64)}1${']'.repeat(64)}}}`,
      `{"${A}":{"vsize":1,"fee":1,"x":${'['.repeat(64)}"s"${']'.repeat(64)}}}`,
      `{"${A.slice(2)}":{"vsize":1,"fee":1}}`,
      `\ufeff{"${A}":{"vsize":1,"fee":1}}`,
      `{"${A}":{"vsize":1,"fee":1}} x`,
      `{"${A}":{"vsize":01,"fee":1}}`,
      `{"${A}":{"vsize":1,"fee":1,}}`,
      `{"${A}":{"vsize":1,"fee":1,"x":"a\nb"}}`,
      `{"${A}":{"vsize":1,"fee":1,"x":NaN}}`,
      `{"${A}":{"vsize":1,"fee":1,"x":tru}}`,
      `{"${A}":{"vsize":1,"fee":1,"x":"\\x"}}`,
      `{"${A}":{"vsize":1,"fee":1}`,
      `{"${A}":{"vsize":1,"fee":1,"x":"abc`,
      '[1,2]',
      '',
    ];
    const C = 'cc'.repeat(32);
    // a duplicate across the halves of a split read (each half's own table has no duplicate)
    refused.push(`{"${A}":{"vsize":1,"fee":1},"${B}":{"vsize":1,"fee":1},"${A.toUpperCase()}":{"vsize":2,"fee":1}}`);
    // a valid first half and a second half that is not
    refused.push(`{"${A}":{"vsize":1,"fee":1},"${B}":{"vsize":1,"fee":1},"${C}":{"vsize":2,"fee":1,"x":tru}}`);
    for (const text of refused) {
      expect(scanCoreMempoolNative(Buffer.from(text, 'utf8'), { splitFromBytes: 0 }), text).toBe('gave-up');
      expect(scanCoreMempoolNative(Buffer.from(text, 'utf8')), text).toBe('gave-up');
      expect(scanCoreMempool(Buffer.from(text, 'utf8')), text).toBeUndefined();
    }
  });

  it('behavior: a split read whose split point is a nested key (not a transaction) is read whole by the first half', () => {
    const C = 'cc'.repeat(32);
    // The first `}` past the middle is followed by `,"<64 hex>":{`, one level down.
    const body = `{"${A}":{"vsize":1,"fee":1,"x":{"k":{},"${B}":{"vsize":2,"fee":1}}},"${C}":{"vsize":3,"fee":1,"depends":["${A}"]}}`;
    const text = ' '.repeat(body.length) + body;
    expect(threeWay(text)).toBe('read');
    expect(threeWay(`${text.slice(0, -1)}  }`)).toBe('read');
  });

  it('property: a corrupted file is read as the general path reads it, or handed to it; the TypeScript scan decides the same', () => {
    const r = rng(11);
    const base = toCoreJson(generateMempool({ txCount: 30, seed: 5, sigopHeavyShare: 0.1 }));
    const alphabet = '{}[]":,0123456789.eE-+ \\utrfnalsABCDEFabcdef\n\u00e9';
    const outcomes: Record<Outcome, number> = { read: 0, 'gave-up': 0, refused: 0 };
    for (let k = 0; k < 3000; k++) {
      let text = base;
      for (let edits = 1 + Math.floor(r() * 3); edits > 0; edits--) {
        const at = Math.floor(r() * text.length);
        const ch = alphabet[Math.floor(r() * alphabet.length)] ?? '';
        const op = r();
        text =
          op < 0.4 ? text.slice(0, at) + text.slice(at + 1) : op < 0.7 ? text.slice(0, at) + ch + text.slice(at) : text.slice(0, at) + ch + text.slice(at + 1);
      }
      outcomes[threeWay(text)]++;
    }
    expect(outcomes.read).toBeGreaterThan(300);
    expect(outcomes.refused).toBeGreaterThan(300);
  });

  it('behavior: on a mapped file the reader answers as on its bytes; a file it cannot map (missing, empty, a directory, gzip) is left to Node', () => {
    const text = toCoreJson(generateMempool({ txCount: 2000, seed: 4 }));
    const file = join(tmp, 'mapped.json');
    writeFileSync(file, text);
    const mapped = scanCoreMempoolFileNative(file);
    expect(typeof mapped).toBe('object');
    expect(mapped).toEqual(scanCoreMempoolNative(Buffer.from(text)));
    expect(mapped).toEqual(fields(parseCoreMempool(JSON.parse(text))));
    writeFileSync(file, `${text.slice(0, -1)},}`);
    expect(scanCoreMempoolFileNative(file)).toBe('gave-up');
    writeFileSync(file, gzipSync(text));
    expect(scanCoreMempoolFileNative(file)).toBe('not-mapped');
    writeFileSync(file, '');
    expect(scanCoreMempoolFileNative(file)).toBe('not-mapped');
    expect(scanCoreMempoolFileNative(join(tmp, 'missing.json'))).toBe('not-mapped');
    expect(scanCoreMempoolFileNative(tmp)).toBe('not-mapped');
  });

  it('behavior: readSnapshotFile reads through the native reader and keeps the general path for the rest', async () => {
    const text = toCoreJson(generateMempool({ txCount: 3000, seed: 9 }));
    const file = join(tmp, 'mempool.json');
    writeFileSync(file, text);
    expect(await readSnapshotFile(file)).toEqual(parseCoreMempool(JSON.parse(text)));
    writeFileSync(file, `{"${A}":{"vsize":1}}`);
    await expect(readSnapshotFile(file)).rejects.toThrow(`fees.base of ${A} is not a number`);
    writeFileSync(file, JSON.stringify({ result: { [A]: { vsize: 1, fee: 0.00001 } }, error: null, id: 1 }));
    expect((await readSnapshotFile(file)).input.feeSat).toEqual(Float64Array.of(1000));
    writeFileSync(file, gzipSync(text));
    expect(await readSnapshotFile(file)).toEqual(parseCoreMempool(JSON.parse(text)));
    writeFileSync(file, '');
    await expect(readSnapshotFile(file)).rejects.toMatchObject({ code: 'ERR_SNAPSHOT_JSON' });
    await expect(readSnapshotFile(tmp)).rejects.toMatchObject({ code: 'ERR_SNAPSHOT_READ' });
  });

  it("behavior: the native reader's arrays each have their own ArrayBuffer, which transfers (the txids' bytes, kept in the reader's memory, become strings)", () => {
    const text = toCoreJson(generateMempool({ txCount: 500, seed: 3 }));
    const native = scanCoreMempoolNative(Buffer.from(text));
    if (typeof native === 'string') throw new Error(native);
    const { txids, stats, ...arrays } = native;
    expect(txids).toEqual(Object.keys(JSON.parse(text)));
    expect(stats.txCount).toBe(500);
    const columns = Object.values(arrays);
    expect(new Set(columns.map((a) => a.buffer)).size).toBe(columns.length);
    for (const column of columns) {
      const copy = column.slice();
      const { buffer } = column;
      if (!(buffer instanceof ArrayBuffer)) throw new Error('a shared buffer');
      const moved = structuredClone(column, { transfer: [buffer] });
      expect(column.length, 'detached by the transfer').toBe(0);
      expect(moved).toEqual(copy);
    }
  });
});
