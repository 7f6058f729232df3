/**
 * A targeted one-pass reader of Bitcoin Core's `getrawmempool true` JSON, from the file's bytes
 * straight into the optimizer's typed arrays. JSON.parse builds ~150k objects with ~20 fields
 * each for a 150k-tx mempool and the conversion then walks them: together they were most of the
 * CLI's run (issue 25). This reads only the fields the optimizer needs and checks the rest is
 * valid JSON without building it.
 *
 * Contract: for any bytes it returns either exactly what `parseCoreMempool(JSON.parse(text))`
 * would give, or `undefined`. It gives up on anything it does not handle itself: a JSON-RPC
 * envelope, the shared format, a key or txid with escapes, an unexpected type in a field it
 * reads, duplicate txids, nesting deeper than 64, malformed JSON. The caller then takes the
 * general path, which gives the same answer or the precise error.
 */
import { SATS_PER_BTC } from '../../bitcoin/units.js';
import { sigopCostFromVsize } from '../../bitcoin/sigops.js';
import { at } from '../../util/at.js';
import { GIVE_UP, GiveUp, HEX, NULL, QUOTE, Scanner } from './jsonBytes.js';
import { TxidTable } from './txidTable.js';

export interface ScannedCoreMempool {
  /** Lowercase display hex, in file order (= Object.keys order of the parsed object). */
  txids: string[];
  feeSat: Float64Array;
  baseFeeSat: Float64Array;
  weightWu: Uint32Array;
  sigopCost: Uint32Array;
  parentOffsets: Uint32Array;
  parentIndices: Uint32Array;
  stats: { txCount: number; droppedParents: number; derivedSigops: number; weightFromVsize: number; clampedFees: number };
}

const KEY_NAMES = ['fees', 'fee', 'modifiedfee', 'vsize_adjusted', 'vsize', 'size', 'vsize_bip141', 'weight', 'depends', 'base', 'modified'] as const;
type KeyName = (typeof KEY_NAMES)[number];
/** The fields read, by byte length: most keys are ruled out by their length alone. */
const KEYS_BY_LENGTH: { name: KeyName; bytes: Uint8Array }[][] = Array.from({ length: 16 }, () => []);
for (const name of KEY_NAMES) KEYS_BY_LENGTH[name.length]?.push({ name, bytes: Buffer.from(name, 'latin1') });

const NO_TXID = 0xffffffff;

function positiveInt(v: number | undefined): number | undefined {
  return v !== undefined && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** Sats from a BTC amount read as a number (NaN: present but not a number); like snapshot.ts's btcToSat, or give up. */
function btcToSat(v: number | undefined): number {
  if (v === undefined || !Number.isFinite(v)) throw GIVE_UP;
  return Math.round(v * SATS_PER_BTC);
}

/** Grows typed arrays by doubling. */
function grow<T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T {
  const next = make(a.length * 2);
  next.set(a);
  return next;
}

/**
 * Read `getrawmempool true` JSON bytes (not gzip) into typed arrays, or `undefined` when the bytes
 * are anything else (see the module comment).
 * @example const scanned = scanCoreMempool(await readFile('mempool.json'))
 */
export function scanCoreMempool(bytes: Buffer): ScannedCoreMempool | undefined {
  try {
    return scan(bytes);
  } catch (err) {
    if (err instanceof GiveUp) return undefined;
    throw err;
  }
}

type Stats = ScannedCoreMempool['stats'];

/** The columns being filled, grown by doubling; `depends` holds each parent txid's byte offset. */
class Columns {
  feeSat: Float64Array;
  baseFeeSat: Float64Array;
  weightWu: Uint32Array;
  sigopCost: Uint32Array;
  dependsEnd: Uint32Array;
  /** Buffer offset of each parent txid read, NO_TXID for one that cannot be a txid (not 64 bytes). */
  depends: Uint32Array;
  dependsCount = 0;

  constructor(private capacity: number) {
    this.feeSat = new Float64Array(capacity);
    this.baseFeeSat = new Float64Array(capacity);
    this.weightWu = new Uint32Array(capacity);
    this.sigopCost = new Uint32Array(capacity);
    this.dependsEnd = new Uint32Array(capacity);
    this.depends = new Uint32Array(capacity);
  }

  /** Room for entry i. */
  ensure(i: number): void {
    if (i < this.capacity) return;
    this.capacity *= 2;
    this.feeSat = grow(this.feeSat, (n) => new Float64Array(n));
    this.baseFeeSat = grow(this.baseFeeSat, (n) => new Float64Array(n));
    this.weightWu = grow(this.weightWu, (n) => new Uint32Array(n));
    this.sigopCost = grow(this.sigopCost, (n) => new Uint32Array(n));
    this.dependsEnd = grow(this.dependsEnd, (n) => new Uint32Array(n));
  }

  pushParent(offset: number): void {
    if (this.dependsCount === this.depends.length) this.depends = grow(this.depends, (n) => new Uint32Array(n));
    this.depends[this.dependsCount++] = offset;
  }
}

/** The values of one entry's fields (reused across entries: one allocation per scan). */
class Entry {
  feesIsObject = false;
  feesBase: number | undefined;
  feesModified: number | undefined;
  fee: number | undefined;
  modifiedfee: number | undefined;
  vsizeAdjusted: number | undefined;
  vsizeRaw: number | undefined;
  size: number | undefined;
  bip141Raw: number | undefined;
  weightRaw: number | undefined;
  weightPresent = false;

  reset(): void {
    this.feesIsObject = this.weightPresent = false;
    this.feesBase = this.feesModified = this.fee = this.modifiedfee = undefined;
    this.vsizeAdjusted = this.vsizeRaw = this.size = this.bip141Raw = this.weightRaw = undefined;
  }
}

/** After a member or element: true when another follows (`,`), false at `close`; else give up. */
function another(s: Scanner, close: number): boolean {
  s.ws();
  const d = s.b[s.p++];
  if (d === close) return false;
  if (d !== 0x2c) throw GIVE_UP;
  return true;
}

/** After `{` or `[`: true when the object or array has a first member (else moves past `close`). */
function opens(s: Scanner, close: number): boolean {
  s.ws();
  if (s.b[s.p] !== close) return true;
  s.p++;
  return false;
}

function scan(bytes: Buffer): ScannedCoreMempool {
  const s = new Scanner(bytes);
  const capacity = Math.max(16, Math.ceil(bytes.length / 400));
  const cols = new Columns(capacity);
  const index = new TxidTable(bytes, capacity);
  const txids: string[] = [];
  const entry = new Entry();
  const stats: Stats = { txCount: 0, droppedParents: 0, derivedSigops: 0, weightFromVsize: 0, clampedFees: 0 };

  s.expect(0x7b);
  for (let more = opens(s, 0x7d); more; more = another(s, 0x7d)) {
    const i = txids.length;
    cols.ensure(i);
    txids.push(readTxidKey(s, index));
    s.expect(0x3a);
    s.expect(0x7b);
    entry.reset();
    readEntry(s, entry, cols);
    cols.dependsEnd[i] = cols.dependsCount;
    settleEntry(entry, i, cols, stats);
  }
  s.ws();
  if (s.p !== bytes.length) throw GIVE_UP;
  stats.txCount = txids.length;
  return linkParents(txids, cols, index, stats);
}

/** The txid key: 64 hex characters, lowercased as parseCoreMempool does; a duplicate gives up. */
function readTxidKey(s: Scanner, index: TxidTable): string {
  const b = s.b;
  s.expect(QUOTE);
  const start = s.p;
  const end = s.stringEnd();
  if (s.escaped || end - start !== 64) throw GIVE_UP;
  let upper = false;
  for (let k = start; k < end; k++) {
    const h = HEX[b[k] ?? 0];
    if (!h) throw GIVE_UP;
    if (h === 2) upper = true;
  }
  if (!index.add(start)) throw GIVE_UP;
  const raw = b.toString('latin1', start, end);
  return upper ? raw.toLowerCase() : raw;
}

/** One entry's fields up to its `}`: the last occurrence of a key wins, as in JSON.parse. */
function readEntry(s: Scanner, e: Entry, cols: Columns): void {
  const dependsStart = cols.dependsCount;
  for (let field = opens(s, 0x7d); field; field = another(s, 0x7d)) {
    switch (s.key(KEYS_BY_LENGTH)) {
      case 'fees':
        readFees(s, e);
        break;
      case 'fee':
        e.fee = s.numberOrNaN();
        break;
      case 'modifiedfee':
        e.modifiedfee = s.numberOrNaN();
        break;
      case 'vsize_adjusted':
        e.vsizeAdjusted = s.numberOrNaN();
        break;
      case 'vsize':
        e.vsizeRaw = s.numberOrNaN();
        break;
      case 'size':
        e.size = s.numberOrNaN();
        break;
      case 'vsize_bip141':
        e.bip141Raw = s.numberOrNaN();
        break;
      case 'weight':
        e.weightPresent = true;
        e.weightRaw = s.numberOrNaN();
        break;
      case 'depends':
        cols.dependsCount = dependsStart; // a repeated key: the last one wins
        readDepends(s, cols);
        break;
      default:
        s.skipValue(1);
    }
  }
}

/** `fees`: an object with `base` and `modified` (any other value is skipped and counts as absent). */
function readFees(s: Scanner, e: Entry): void {
  e.feesBase = e.feesModified = undefined;
  s.ws();
  e.feesIsObject = s.b[s.p] === 0x7b;
  if (!e.feesIsObject) {
    s.skipValue(1);
    return;
  }
  s.p++;
  for (let more = opens(s, 0x7d); more; more = another(s, 0x7d)) {
    const k = s.key(KEYS_BY_LENGTH);
    if (k === 'base') e.feesBase = s.numberOrNaN();
    else if (k === 'modified') e.feesModified = s.numberOrNaN();
    else s.skipValue(2);
  }
}

/** `depends`: an array of parent txids (their byte offsets kept), or null for none (`?? []`). */
function readDepends(s: Scanner, cols: Columns): void {
  s.ws();
  if (s.b[s.p] !== 0x5b) {
    if (!s.take(NULL)) throw GIVE_UP;
    return;
  }
  s.p++;
  for (let more = opens(s, 0x5d); more; more = another(s, 0x5d)) {
    s.expect(QUOTE);
    const ps = s.p;
    const pe = s.stringEnd();
    if (s.escaped) throw GIVE_UP;
    cols.pushParent(pe - ps === 64 ? ps : NO_TXID);
  }
}

/** parseCoreMempool's per-entry rules, on the values read. */
function settleEntry(e: Entry, i: number, cols: Columns, stats: Stats): void {
  const base = btcToSat(e.feesIsObject ? e.feesBase : e.fee);
  const modifiedRaw = e.feesIsObject ? e.feesModified : e.modifiedfee;
  const modified = modifiedRaw === undefined ? base : btcToSat(modifiedRaw);
  if (modified < 0) stats.clampedFees++;
  cols.feeSat[i] = Math.max(0, modified);
  cols.baseFeeSat[i] = base;
  const vsize = positiveInt(e.vsizeAdjusted) ?? positiveInt(e.vsizeRaw) ?? positiveInt(e.size);
  const bip141 = positiveInt(e.bip141Raw);
  const weight = positiveInt(e.weightRaw) ?? (bip141 !== undefined ? 4 * bip141 : undefined);
  if (weight !== undefined) {
    cols.weightWu[i] = weight;
    if (!e.weightPresent) stats.weightFromVsize++;
    const derived = vsize === undefined ? 0 : sigopCostFromVsize(vsize, weight);
    if (derived > 0) {
      cols.sigopCost[i] = derived;
      stats.derivedSigops++;
    }
  } else if (vsize !== undefined) {
    cols.weightWu[i] = 4 * vsize;
    stats.weightFromVsize++;
  } else throw GIVE_UP; // neither weight nor vsize: the general path names the entry
}

/** Parent txids to indices (a parent not in the file is dropped, as parseCoreMempool does), and the columns cut to size. */
function linkParents(txids: string[], cols: Columns, index: TxidTable, stats: Stats): ScannedCoreMempool {
  const n = txids.length;
  const parentOffsets = new Uint32Array(n + 1);
  let parentIndices = new Uint32Array(cols.dependsCount);
  let count = 0;
  for (let i = 0, k = 0; i < n; i++) {
    for (const kEnd = at(cols.dependsEnd, i); k < kEnd; k++) {
      const offset = at(cols.depends, k);
      const j = offset === NO_TXID ? -1 : index.find(offset);
      if (j < 0) stats.droppedParents++;
      else parentIndices[count++] = j;
    }
    parentOffsets[i + 1] = count;
  }
  if (count < parentIndices.length) parentIndices = parentIndices.slice(0, count);
  return {
    txids,
    feeSat: cols.feeSat.slice(0, n),
    baseFeeSat: cols.baseFeeSat.slice(0, n),
    weightWu: cols.weightWu.slice(0, n),
    sigopCost: cols.sigopCost.slice(0, n),
    parentOffsets,
    parentIndices,
    stats,
  };
}
