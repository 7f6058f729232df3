/**
 * Mempool snapshots -> the optimizer's typed arrays, built once per snapshot.
 *
 * Two input formats, plain or gzip:
 * - Bitcoin Core `getrawmempool true` (an object keyed by txid; fees in BTC under
 *   `fees.modified`/`fees.base`, or the pre-0.21 top-level `modifiedfee`/`fee`; `weight`, else
 *   4 x `vsize_bip141`, else 4 x vsize; `vsize_adjusted`/`vsize`/`size` is Core's sigop-adjusted
 *   vsize; `depends`). A JSON-RPC envelope `{ result, error, id }` is unwrapped.
 * - The shared snapshot format of `shared/data/mempool/README.md` (`{ txs: [{ txid, fee, weight,
 *   vsize, parents, sigops? }] }`, fees in sat).
 *
 * A parent txid that is not in the snapshot is dropped and counted (`droppedParents`): Core never
 * lists one, so it signals a partial or inconsistent dump. When the sigop-adjusted vsize exceeds
 * ceil(weight / 4), the sigop cost is derived as ceil(vsize / 5) (Core: adjusted weight = 20 x
 * sigops), counted in `derivedSigops`.
 */
import { sigopCostFromVsize } from '../../bitcoin/sigops.js';
import { isTxidHex, txidRanks } from '../../bitcoin/txidOrder.js';
import { SATS_PER_BTC } from '../../bitcoin/units.js';
import { at } from '../../util/at.js';
import { scanCoreMempoolFileNative, scanCoreMempoolNative, type NativeScannedMempool } from './nativeScan.js';
import type { OptimizerInput } from '../binding/native.js';

export type SnapshotFormat = 'core' | 'shared';

export interface SnapshotStats {
  txCount: number;
  /** Parent links to txids missing from the snapshot (dropped). */
  droppedParents: number;
  /** Transactions whose sigop cost was derived from a sigop-adjusted vsize. */
  derivedSigops: number;
  /** Transactions without a weight (weight taken as 4 x vsize). */
  weightFromVsize: number;
  /** Negative modified fees (prioritisetransaction) clamped to 0. */
  clampedFees: number;
}

export interface MempoolSnapshot {
  format: SnapshotFormat;
  /** Display-order hex txids (lowercase), index-aligned with the arrays. */
  txids: string[];
  /** Ready for `buildTemplates`. Every array has its own ArrayBuffer (transferable). */
  input: OptimizerInput;
  /** Per tx base fee in sat (Core `fees.base`); input.feeSat is the modified fee. */
  baseFeeSat: Float64Array;
  stats: SnapshotStats;
  /** Shared format only: source, takenAt, tipHeight, notes of the file. */
  meta?: Record<string, unknown>;
}

export type SnapshotErrorCode = 'ERR_SNAPSHOT_READ' | 'ERR_SNAPSHOT_GZIP' | 'ERR_SNAPSHOT_JSON' | 'ERR_SNAPSHOT_FORMAT';

export class SnapshotError extends Error {
  readonly code: SnapshotErrorCode;
  constructor(code: SnapshotErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SnapshotError';
    this.code = code;
  }
}

function formatError(message: string): SnapshotError {
  return new SnapshotError('ERR_SNAPSHOT_FORMAT', message);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/**
 * Rank of each txid in Bitcoin Core's txid order (`src/bitcoin/txidOrder.ts`), after checking that
 * each is a txid.
 * @returns rank[i] = position of txids[i] in that order (a permutation of 0..n-1)
 * @throws SnapshotError ERR_SNAPSHOT_FORMAT when a txid is not 64 hex characters
 */
export function computeTxidRank(txids: readonly string[]): Uint32Array {
  for (const txid of txids) if (!isTxidHex(txid)) throw formatError(`"${String(txid).slice(0, 80)}" is not a txid (64 hex characters)`);
  return txidRanks(txids);
}

/** Build the CSR arrays and rank from per-tx parent txid lists. */
function assemble(
  format: SnapshotFormat,
  txids: string[],
  feeSat: Float64Array,
  baseFeeSat: Float64Array,
  weightWu: Uint32Array,
  sigopCost: Uint32Array,
  parentTxids: (readonly unknown[])[],
  stats: SnapshotStats,
  meta?: Record<string, unknown>,
): MempoolSnapshot {
  const n = txids.length;
  const index = new Map<string, number>();
  txids.forEach((txid, i) => {
    if (index.has(txid)) throw formatError(`duplicate txid ${txid}`);
    index.set(txid, i);
  });
  const parentOffsets = new Uint32Array(n + 1);
  const list: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const p of at(parentTxids, i)) {
      const j = typeof p === 'string' ? (index.get(p) ?? index.get(p.toLowerCase())) : undefined;
      if (j === undefined) stats.droppedParents++;
      else list.push(j);
    }
    parentOffsets[i + 1] = list.length;
  }
  const input: OptimizerInput = {
    feeSat,
    weightWu,
    sigopCost,
    parentOffsets,
    parentIndices: Uint32Array.from(list),
    txidRank: computeTxidRank(txids),
  };
  return { format, txids, input, baseFeeSat, stats, ...(meta ? { meta } : {}) };
}

function btcToSat(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw formatError(`${what} is not a number`);
  return Math.round(v * SATS_PER_BTC);
}

/**
 * Convert Bitcoin Core's `getrawmempool true` answer (already parsed) into typed arrays.
 * @throws SnapshotError ERR_SNAPSHOT_FORMAT naming the first bad entry
 * @example parseCoreMempool(await rpc.command('getrawmempool', true))
 */
export function parseCoreMempool(raw: unknown): MempoolSnapshot {
  let obj = raw;
  if (isRecord(obj) && 'result' in obj && 'id' in obj) obj = obj.result;
  if (!isRecord(obj)) throw formatError('expected an object keyed by txid (getrawmempool true)');
  const txids = Object.keys(obj);
  const n = txids.length;
  const feeSat = new Float64Array(n);
  const baseFeeSat = new Float64Array(n);
  const weightWu = new Uint32Array(n);
  const sigopCost = new Uint32Array(n);
  const parents = new Array<readonly unknown[]>(n);
  const stats: SnapshotStats = { txCount: n, droppedParents: 0, derivedSigops: 0, weightFromVsize: 0, clampedFees: 0 };
  for (let i = 0; i < n; i++) {
    const txid = at(txids, i);
    if (txid.length !== 64) throw formatError(`key "${txid.slice(0, 80)}" is not a txid`);
    const e = obj[txid];
    if (!isRecord(e)) throw formatError(`entry ${txid} is not an object`);
    const fees = isRecord(e.fees) ? e.fees : undefined;
    const base = btcToSat(fees ? fees.base : e.fee, `fees.base of ${txid}`);
    const modifiedRaw = fees ? fees.modified : e.modifiedfee;
    const modified = modifiedRaw === undefined ? base : btcToSat(modifiedRaw, `fees.modified of ${txid}`);
    // A negative modified fee (prioritisetransaction) is clamped to 0: the optimizer takes fees >= 0.
    if (modified < 0) stats.clampedFees++;
    feeSat[i] = Math.max(0, modified);
    baseFeeSat[i] = base;
    const vsize = positiveInt(e.vsize_adjusted) ?? positiveInt(e.vsize) ?? positiveInt(e.size);
    const bip141 = positiveInt(e.vsize_bip141);
    const weight = positiveInt(e.weight) ?? (bip141 !== undefined ? 4 * bip141 : undefined);
    if (weight === undefined && vsize === undefined) throw formatError(`entry ${txid} has neither weight nor vsize`);
    if (weight !== undefined) {
      weightWu[i] = weight;
      if (e.weight === undefined) stats.weightFromVsize++;
      const derived = vsize === undefined ? 0 : sigopCostFromVsize(vsize, weight);
      if (derived > 0) {
        sigopCost[i] = derived;
        stats.derivedSigops++;
      }
    } else {
      weightWu[i] = 4 * (vsize as number);
      stats.weightFromVsize++;
    }
    const depends = e.depends ?? [];
    if (!Array.isArray(depends)) throw formatError(`depends of ${txid} is not an array`);
    parents[i] = depends;
    if (/[A-F]/.test(txid)) txids[i] = txid.toLowerCase();
  }
  return assemble('core', txids, feeSat, baseFeeSat, weightWu, sigopCost, parents, stats);
}

/**
 * Convert the shared snapshot format (`shared/data/mempool/README.md`, already parsed).
 * @throws SnapshotError ERR_SNAPSHOT_FORMAT naming the first bad entry
 */
export function parseSharedSnapshot(raw: unknown): MempoolSnapshot {
  if (!isRecord(raw) || !Array.isArray(raw.txs)) throw formatError('expected an object with a "txs" array (shared snapshot format)');
  const txs: unknown[] = raw.txs;
  const n = txs.length;
  const txids = new Array<string>(n);
  const feeSat = new Float64Array(n);
  const weightWu = new Uint32Array(n);
  const sigopCost = new Uint32Array(n);
  const parents = new Array<readonly unknown[]>(n);
  const stats: SnapshotStats = { txCount: n, droppedParents: 0, derivedSigops: 0, weightFromVsize: 0, clampedFees: 0 };
  for (let i = 0; i < n; i++) {
    const t = txs[i];
    if (!isRecord(t) || !isTxidHex(t.txid)) throw formatError(`txs[${i}] has no valid txid`);
    txids[i] = t.txid.toLowerCase();
    if (typeof t.fee !== 'number' || !Number.isInteger(t.fee) || t.fee < 0) throw formatError(`txs[${i}].fee is not a non-negative integer (sat)`);
    feeSat[i] = t.fee;
    const weight = positiveInt(t.weight);
    const vsize = positiveInt(t.vsize);
    if (weight !== undefined) weightWu[i] = weight;
    else if (vsize !== undefined) {
      weightWu[i] = 4 * vsize;
      stats.weightFromVsize++;
    } else throw formatError(`txs[${i}] has neither weight nor vsize`);
    if (t.sigops !== undefined) {
      if (typeof t.sigops !== 'number' || !Number.isInteger(t.sigops) || t.sigops < 0) throw formatError(`txs[${i}].sigops is not a non-negative integer`);
      sigopCost[i] = t.sigops;
    }
    const p = t.parents ?? [];
    if (!Array.isArray(p)) throw formatError(`txs[${i}].parents is not an array`);
    parents[i] = p;
  }
  const meta: Record<string, unknown> = {};
  for (const key of ['source', 'license', 'takenAt', 'tipHeight', 'notes', 'blockTemplate', 'minedBlock']) if (key in raw) meta[key] = raw[key];
  return assemble('shared', txids, feeSat, Float64Array.from(feeSat), weightWu, sigopCost, parents, stats, meta);
}

/** Detect the format of a parsed snapshot and convert it. */
export function parseSnapshot(raw: unknown): MempoolSnapshot {
  return isRecord(raw) && Array.isArray(raw.txs) ? parseSharedSnapshot(raw) : parseCoreMempool(raw);
}

export type SnapshotPhase = 'read' | 'gunzip' | 'json' | 'convert';
export interface ReadSnapshotOptions {
  /** Called at the start of each phase with a short detail (sizes). */
  onProgress?: (phase: SnapshotPhase, detail: string) => void;
}

function fromNative(scan: NativeScannedMempool): MempoolSnapshot {
  const { feeSat, weightWu, sigopCost, parentOffsets, parentIndices, txidRank, baseFeeSat, stats } = scan;
  return {
    format: 'core',
    // Read through: the native reader splits its txids only when they are read.
    get txids() {
      return scan.txids;
    },
    input: { feeSat, weightWu, sigopCost, parentOffsets, parentIndices, txidRank },
    baseFeeSat,
    stats,
  };
}

/**
 * Read a snapshot file (either format; gzip detected by its magic bytes) and convert it.
 * @throws SnapshotError ERR_SNAPSHOT_READ, ERR_SNAPSHOT_GZIP, ERR_SNAPSHOT_JSON, ERR_SNAPSHOT_FORMAT
 */
export async function readSnapshotFile(path: string, options: ReadSnapshotOptions = {}): Promise<MempoolSnapshot> {
  const progress = options.onProgress ?? (() => {});
  progress('read', path);
  // A plain getrawmempool file (the large ones) is read in place by the addon (read and parse in
  // one step); a gzip file, or one it cannot map, is read below.
  const mapped = scanCoreMempoolFileNative(path);
  if (typeof mapped !== 'string') return fromNative(mapped);
  // Loaded only off that path (issue 25: the CLI's whole process counts, module loading included).
  const { readFile } = await import('node:fs/promises');
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new SnapshotError('ERR_SNAPSHOT_READ', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    progress('gunzip', `${bytes.length} bytes`);
    try {
      const { gunzip } = await import('node:zlib');
      const { promisify } = await import('node:util');
      bytes = await promisify(gunzip)(bytes);
    } catch (err) {
      throw new SnapshotError('ERR_SNAPSHOT_GZIP', `${path} is not valid gzip: ${(err as Error).message}`, { cause: err });
    }
  }
  progress('json', `${bytes.length} bytes`);
  // Plain getrawmempool JSON is read straight into typed arrays, by the addon (or the TypeScript
  // scan without it); anything else, and every error, through JSON.parse below (same result,
  // precise messages). A file the addon mapped and gave up on goes straight there.
  const native = mapped === 'gave-up' ? 'gave-up' : scanCoreMempoolNative(bytes);
  if (native === 'unavailable') {
    const { scanCoreMempool } = await import('./coreMempoolScan.js');
    const scanned = scanCoreMempool(bytes);
    if (scanned) {
      const { txids, baseFeeSat, stats, ...arrays } = scanned;
      return { format: 'core', txids, input: { ...arrays, txidRank: txidRanks(txids) }, baseFeeSat, stats };
    }
  } else if (native !== 'gave-up') return fromNative(native);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new SnapshotError('ERR_SNAPSHOT_JSON', `${path} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  progress('convert', isRecord(raw) && Array.isArray(raw.txs) ? `${raw.txs.length} txs (shared format)` : 'Core getrawmempool format');
  return parseSnapshot(raw);
}

/**
 * Map a previous cycle's linearization to this snapshot's indices, for `OptimizerInput.warmOrder`.
 * Transactions that left the mempool are skipped; new ones are simply absent (allowed).
 */
export function warmOrderFromPrevious(previous: { txids: readonly string[]; linearization: Uint32Array }, current: { txids: readonly string[] }): Uint32Array {
  const index = new Map<string, number>();
  current.txids.forEach((t, i) => index.set(t, i));
  const out: number[] = [];
  for (const old of previous.linearization) {
    const txid = previous.txids[old];
    const j = txid === undefined ? undefined : index.get(txid);
    if (j !== undefined) out.push(j);
  }
  return Uint32Array.from(out);
}
