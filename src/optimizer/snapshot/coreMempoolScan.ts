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

function scan(bytes: Buffer): ScannedCoreMempool {
  const s = new Scanner(bytes);
  const b = bytes;
  let capacity = Math.max(16, Math.ceil(bytes.length / 400));
  let feeSat = new Float64Array(capacity);
  let baseFeeSat = new Float64Array(capacity);
  let weightWu = new Uint32Array(capacity);
  let sigopCost = new Uint32Array(capacity);
  let dependsEnd = new Uint32Array(capacity);
  const txids: string[] = [];
  const index = new TxidTable(bytes, capacity);
  /** Buffer offset of each parent txid read, NO_TXID for one that cannot be a txid (not 64 bytes). */
  let depends = new Uint32Array(capacity);
  let dependsCount = 0;
  const stats = { txCount: 0, droppedParents: 0, derivedSigops: 0, weightFromVsize: 0, clampedFees: 0 };

  s.expect(0x7b);
  s.ws();
  let more = b[s.p] !== 0x7d;
  if (!more) s.p++;
  while (more) {
    const i = txids.length;
    if (i === capacity) {
      capacity *= 2;
      feeSat = grow(feeSat, (n) => new Float64Array(n));
      baseFeeSat = grow(baseFeeSat, (n) => new Float64Array(n));
      weightWu = grow(weightWu, (n) => new Uint32Array(n));
      sigopCost = grow(sigopCost, (n) => new Uint32Array(n));
      dependsEnd = grow(dependsEnd, (n) => new Uint32Array(n));
    }
    // The txid key: 64 hex characters, lowercased as parseCoreMempool does.
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
    if (!index.add(start)) throw GIVE_UP; // a duplicate txid
    const raw = b.toString('latin1', start, end);
    txids.push(upper ? raw.toLowerCase() : raw);
    s.expect(0x3a);
    s.expect(0x7b);

    // The entry: last occurrence of a key wins, as in JSON.parse.
    let feesIsObject = false;
    let feesBase: number | undefined, feesModified: number | undefined, fee: number | undefined, modifiedfee: number | undefined;
    let vsizeAdjusted: number | undefined, vsizeRaw: number | undefined, size: number | undefined, bip141Raw: number | undefined, weightRaw: number | undefined;
    let weightPresent = false;
    const dependsStart = dependsCount;
    s.ws();
    let field = b[s.p] !== 0x7d;
    if (!field) s.p++;
    while (field) {
      switch (s.key(KEYS_BY_LENGTH)) {
        case 'fees':
          feesBase = feesModified = undefined;
          s.ws();
          feesIsObject = b[s.p] === 0x7b;
          if (!feesIsObject) {
            s.skipValue(1);
            break;
          }
          s.p++;
          s.ws();
          if (b[s.p] === 0x7d) s.p++;
          else
            for (;;) {
              const k = s.key(KEYS_BY_LENGTH);
              if (k === 'base') feesBase = s.numberOrNaN();
              else if (k === 'modified') feesModified = s.numberOrNaN();
              else s.skipValue(2);
              s.ws();
              const d = b[s.p++];
              if (d === 0x7d) break;
              if (d !== 0x2c) throw GIVE_UP;
            }
          break;
        case 'fee':
          fee = s.numberOrNaN();
          break;
        case 'modifiedfee':
          modifiedfee = s.numberOrNaN();
          break;
        case 'vsize_adjusted':
          vsizeAdjusted = s.numberOrNaN();
          break;
        case 'vsize':
          vsizeRaw = s.numberOrNaN();
          break;
        case 'size':
          size = s.numberOrNaN();
          break;
        case 'vsize_bip141':
          bip141Raw = s.numberOrNaN();
          break;
        case 'weight':
          weightPresent = true;
          weightRaw = s.numberOrNaN();
          break;
        case 'depends':
          dependsCount = dependsStart; // a repeated key: the last one wins
          s.ws();
          if (b[s.p] === 0x5b) {
            s.p++;
            s.ws();
            if (b[s.p] === 0x5d) s.p++;
            else
              for (;;) {
                s.expect(QUOTE);
                const ps = s.p;
                const pe = s.stringEnd();
                if (s.escaped) throw GIVE_UP;
                if (dependsCount === depends.length) depends = grow(depends, (n) => new Uint32Array(n));
                depends[dependsCount++] = pe - ps === 64 ? ps : NO_TXID;
                s.ws();
                const d = b[s.p++];
                if (d === 0x5d) break;
                if (d !== 0x2c) throw GIVE_UP;
              }
          } else if (!s.take(NULL)) throw GIVE_UP; // null: no parents (`?? []`)
          break;
        default:
          s.skipValue(1);
      }
      s.ws();
      const d = b[s.p++];
      if (d === 0x7d) field = false;
      else if (d !== 0x2c) throw GIVE_UP;
    }
    dependsEnd[i] = dependsCount;

    // parseCoreMempool's per-entry rules, on the values read.
    const base = btcToSat(feesIsObject ? feesBase : fee);
    const modifiedRaw = feesIsObject ? feesModified : modifiedfee;
    const modified = modifiedRaw === undefined ? base : btcToSat(modifiedRaw);
    if (modified < 0) stats.clampedFees++;
    feeSat[i] = Math.max(0, modified);
    baseFeeSat[i] = base;
    const vsize = positiveInt(vsizeAdjusted) ?? positiveInt(vsizeRaw) ?? positiveInt(size);
    const bip141 = positiveInt(bip141Raw);
    const weight = positiveInt(weightRaw) ?? (bip141 !== undefined ? 4 * bip141 : undefined);
    if (weight !== undefined) {
      weightWu[i] = weight;
      if (!weightPresent) stats.weightFromVsize++;
      const derived = vsize === undefined ? 0 : sigopCostFromVsize(vsize, weight);
      if (derived > 0) {
        sigopCost[i] = derived;
        stats.derivedSigops++;
      }
    } else if (vsize !== undefined) {
      weightWu[i] = 4 * vsize;
      stats.weightFromVsize++;
    } else throw GIVE_UP; // neither weight nor vsize: the general path names the entry

    s.ws();
    const d = b[s.p++];
    if (d === 0x7d) more = false;
    else if (d !== 0x2c) throw GIVE_UP;
  }
  s.ws();
  if (s.p !== b.length) throw GIVE_UP;

  const n = txids.length;
  stats.txCount = n;
  const parentOffsets = new Uint32Array(n + 1);
  let parentIndices = new Uint32Array(dependsCount);
  let count = 0;
  for (let i = 0, k = 0; i < n; i++) {
    for (const kEnd = at(dependsEnd, i); k < kEnd; k++) {
      const offset = at(depends, k);
      const j = offset === NO_TXID ? -1 : index.find(offset);
      if (j < 0) stats.droppedParents++;
      else parentIndices[count++] = j;
    }
    parentOffsets[i + 1] = count;
  }
  if (count < parentIndices.length) parentIndices = parentIndices.slice(0, count);
  return {
    txids,
    feeSat: feeSat.slice(0, n),
    baseFeeSat: baseFeeSat.slice(0, n),
    weightWu: weightWu.slice(0, n),
    sigopCost: sigopCost.slice(0, n),
    parentOffsets,
    parentIndices,
    stats,
  };
}
