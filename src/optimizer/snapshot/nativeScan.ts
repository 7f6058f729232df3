/**
 * The native getrawmempool reader (native/snapshot_reader.cpp, issue 25): the file's bytes straight
 * into the optimizer's typed arrays, txid rank included, with the contract of the TypeScript scan
 * (coreMempoolScan.ts): exactly what `parseCoreMempool(JSON.parse(text))` gives, or "gave up" so the
 * general path answers (or names the error). Without the addon, or with a build from before the
 * reader, it says so and the caller takes the TypeScript scan.
 */
import { loadBinding } from '../binding/native.js';
import type { ScannedCoreMempool } from './coreMempoolScan.js';

const TXID_HEX = 64;

export interface NativeScannedMempool extends ScannedCoreMempool {
  /** Rank of each txid in Core's order (as `txidRanks`). */
  txidRank: Uint32Array;
}

/** What the addon returns (snapshot_wrap.cpp): the txids as one array of n x 64 ASCII hex bytes. */
interface RawScan extends Omit<NativeScannedMempool, 'txids'> {
  txids: Uint8Array;
}

function isRawScan(v: unknown): v is RawScan {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<Record<keyof RawScan, unknown>>;
  return (
    r.txids instanceof Uint8Array &&
    r.feeSat instanceof Float64Array &&
    r.baseFeeSat instanceof Float64Array &&
    r.weightWu instanceof Uint32Array &&
    r.sigopCost instanceof Uint32Array &&
    r.parentOffsets instanceof Uint32Array &&
    r.parentIndices instanceof Uint32Array &&
    r.txidRank instanceof Uint32Array &&
    typeof r.stats === 'object' &&
    r.stats !== null
  );
}

/** The reader's two functions as the addon exports them (snapshot_wrap.h); `splitFromBytes`: files
 *  from that size on are read in two halves side by side (tests pass 0 to split every file). */
interface Reader {
  scanCoreMempool?: (bytes: Uint8Array, splitFromBytes?: number) => unknown;
  scanCoreMempoolFile?: (path: string, splitFromBytes?: number) => unknown;
}

/** Options of the native reads. */
export interface NativeScanOptions {
  /** Read files of at least this many bytes in two halves side by side (default: the addon's, 1 MiB). */
  splitFromBytes?: number;
}

/** The addon, or undefined when it does not load. */
function addon(): Reader | undefined {
  try {
    return loadBinding();
  } catch {
    return undefined;
  }
}

/** The txids of n x 64 ASCII hex bytes. */
function splitTxids(bytes: Uint8Array, n: number): string[] {
  // Slices of one flat string: V8 makes each a view, not a copy.
  const flat = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const txids = new Array<string>(n);
  for (let i = 0; i < n; i++) txids[i] = flat.slice(TXID_HEX * i, TXID_HEX * (i + 1));
  return txids;
}

/**
 * The addon's answer as columns. The txids (their bytes over the reader's own memory) are made
 * strings when first read (once): 150k strings are young-generation garbage the collector copies
 * several times (tens of ms, issue 25), and a run that prints no txid (the CLI without --txids) never
 * needs them, nor the 64 bytes per txid of one string.
 */
function columns(raw: unknown): NativeScannedMempool {
  if (!isRawScan(raw)) throw new Error('the native snapshot reader returned an unexpected shape');
  const { txids: flat, ...rest } = raw;
  let txids: string[] | undefined;
  return {
    ...rest,
    get txids() {
      txids ??= splitTxids(flat, rest.feeSat.length);
      return txids;
    },
  };
}

/**
 * Read `getrawmempool true` JSON bytes (not gzip) natively.
 * @returns the columns; 'gave-up' when the general path must answer; 'unavailable' without the native reader
 * @example const r = scanCoreMempoolNative(await readFile('mempool.json'))
 */
export function scanCoreMempoolNative(bytes: Uint8Array, options: NativeScanOptions = {}): NativeScannedMempool | 'gave-up' | 'unavailable' {
  const read = addon()?.scanCoreMempool;
  if (!read) return 'unavailable';
  const raw = read(bytes, options.splitFromBytes);
  return raw === undefined ? 'gave-up' : columns(raw);
}

/**
 * The same on a file the addon maps into memory (no copy of its bytes into a buffer).
 * @returns 'not-mapped' for a file it could not map or that is gzip (missing, empty, not regular,
 *   no mmap): the caller reads it with Node, which also words any error
 * @example const r = scanCoreMempoolFileNative('mempool.json')
 */
export function scanCoreMempoolFileNative(path: string, options: NativeScanOptions = {}): NativeScannedMempool | 'gave-up' | 'not-mapped' | 'unavailable' {
  const read = addon()?.scanCoreMempoolFile;
  if (!read) return 'unavailable';
  const raw = read(path, options.splitFromBytes);
  return raw === undefined ? 'gave-up' : raw === null ? 'not-mapped' : columns(raw);
}
