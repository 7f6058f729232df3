/**
 * The wire format of a published optimizer cache (`btc-intel-cache/1`), as the leader writes it to
 * Redis and followers read it back (sharedCache.ts). One binary blob:
 *
 *   "BTCICACH" (8 bytes) | header length (u32 LE) | header: UTF-8 JSON | sections, back to back
 *
 * The JSON header holds every summary field of `TemplateCache` (totals, comparison, projected
 * blocks, the signed receipt …), the leader's recent cycle records and baseline status (so every
 * replica's cache-stats and dashboard show the same cycles), and the element count of each section. The sections are the
 * per-tx lookups as typed arrays in the host's byte order (little-endian everywhere we run) —
 * txid keys (u32 × LOOKUP_WORDS, ascending), chunk fee rates (f64), projected block (i32) — and
 * the optimized and baseline txid lists and the optimized wtxids as raw 32-byte values. Never a JS Map and no per-tx
 * strings: a follower serves the lookups as they arrive (txLookup.ts, binary search). The warm-start
 * data of full-only mode stays with the leader (a new leader's first cycle starts cold).
 *
 * Everything read is external input: the header is zod-parsed, every section length is checked
 * against the blob, indices against the snapshot, the txid lists against the receipt's digests.
 * Decoding is async and yields to the event loop between slices of the snapshot.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { z } from 'zod';
import type { BaselineStatus, CycleRecord } from '../cycle.js';
import { ClusterStatsShape, ComparisonShape, hash, ReceiptPayloadShape } from '../cache/cacheShapes.js';
import { txidsDigest } from '../cache/receipts.js';
import { witnessCommitmentScript } from '../../bitcoin/witness.js';
import type { TemplateCache, TemplateWitness } from '../cache/templateCache.js';
import { LOOKUP_WORDS } from '../cache/txLookup.js';

export const CACHE_WIRE_SCHEMA = 'btc-intel-cache/1';
const MAGIC = Buffer.from('BTCICACH', 'latin1');
/** A blob larger than this is refused before it is read (a 150k-tx mempool is about 3 MB). */
export const CACHE_WIRE_MAX_BYTES = 64 * 1024 * 1024;
const MAX_HEADER_BYTES = 1024 * 1024;
/** Transactions decoded between two yields to the event loop. */
const SLICE = 8192;

const num = z.number().finite();
const int = z.number().int();
const totals = z.object({ txCount: int.nonnegative(), feeSat: num, weightWu: num, sigopCost: num.nullable() });

const Receipt = z.object({
  payload: ReceiptPayloadShape,
  signature: z.string().max(200),
  publicKey: z.string().max(100),
});

const msOrNull = num.nullable();
const CycleRecordSchema = z.object({
  cycle: int.positive(),
  startedAt: z.string().max(40),
  durationMs: num,
  status: z.enum(['ok', 'baseline_fallback', 'error', 'timeout']),
  error: z.string().max(2000).nullable(),
  phasesMs: z.object({ baseline: msOrNull, snapshot: num, optimize: num, publish: num }),
  txCount: int.nonnegative(),
});

const Header = z.object({
  schema: z.literal(CACHE_WIRE_SCHEMA),
  /** The replica that computed the cache. */
  leaderId: z.string().max(100),
  leader: z.object({
    history: z.array(CycleRecordSchema).max(100),
    baseline: z.object({
      lastStatus: z.enum(['ok', 'error', 'timeout']).nullable(),
      lastError: z.string().max(2000).nullable(),
      lastDurationMs: msOrNull,
      lastSuccessAt: msOrNull,
    }),
  }),
  counts: z.object({
    snapshot: int.nonnegative().max(2_000_000),
    optimized: int.nonnegative().max(2_000_000),
    baseline: int.nonnegative().max(2_000_000),
    /** The optimized template's wtxids (0: none known). */
    wtxids: int.nonnegative().max(2_000_000).default(0),
  }),
  witnessCommitment: z
    .string()
    .regex(/^6a24aa21a9ed[0-9a-f]{64}$/)
    .nullable()
    .default(null),
  cycle: int.positive(),
  kind: z.enum(['full', 'incremental']),
  cachedAt: num,
  height: int.nonnegative(),
  previousBlockHash: hash,
  weightLimitWu: int.positive(),
  maxTxCount: int.positive().nullable(),
  snapshot: z.object({ txCount: int.nonnegative(), vsize: num, weightWu: num, feeSat: num, takenAt: num, source: z.string().max(200) }),
  optimized: totals,
  baseline: totals.extend({
    source: z.enum(['node_getblocktemplate', 'native_v31']),
    height: int.nonnegative(),
    previousBlockHash: hash,
    coinbaseValueSat: num.nullable(),
    weightLimitWu: int.positive(),
  }),
  nativeV31: totals,
  nativeV30: totals.nullable(),
  v31WithinRequestLimits: z.boolean(),
  sigopsBinding: z.boolean(),
  upperBound: z.object({
    feeSat: num,
    lpFeeSat: num,
    exact: z.boolean(),
    relaxedClusters: int.nonnegative(),
    solved: z.boolean(),
    freeClusters: int.nonnegative(),
    searchNodes: int.nonnegative(),
  }),
  comparison: ComparisonShape,
  projectedBlocks: z
    .array(
      z.object({
        txCount: int.nonnegative(),
        feeSat: num,
        weightWu: num,
        minFeeRateSatVb: num,
        medianFeeRateSatVb: num,
        maxFeeRateSatVb: num,
      }),
    )
    .max(64),
  clusters: ClusterStatsShape,
  nativeTimingsMs: z.object({
    validate: num,
    clusters: num,
    linearize: num,
    chunk: num,
    baselines: num,
    optimized: num,
    bound: num,
    projected: num,
    total: num,
  }),
  receipt: Receipt,
});
type Header = z.infer<typeof Header>;

/** What the leader knows beside the cache: its last cycles and its baseline's status. */
export interface LeaderState {
  history: CycleRecord[];
  baseline: BaselineStatus;
}

const NO_STATE: LeaderState = { history: [], baseline: { lastStatus: null, lastError: null, lastDurationMs: null, lastSuccessAt: null } };

/** A cache as read from the wire, with the replica that computed it and its state. */
export interface DecodedCache {
  leaderId: string;
  leader: LeaderState;
  cache: TemplateCache;
}

export class CacheDecodeError extends Error {
  override readonly name = 'CacheDecodeError';
}

function txidBytes(txids: readonly string[]): Buffer {
  const out = Buffer.allocUnsafe(txids.length * 32);
  txids.forEach((txid, i) => {
    if (out.write(txid, i * 32, 32, 'hex') !== 32) throw new RangeError(`not a txid: ${txid}`);
  });
  return out;
}

function bytesOf(view: ArrayBufferView): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}

/** Serializes a published cache. Synchronous: the leader runs it once per cycle. */
export function encodeCache(cache: TemplateCache, leaderId: string, leader: LeaderState = NO_STATE): Buffer {
  const { optimized, baseline } = cache;
  const header: Header = {
    schema: CACHE_WIRE_SCHEMA,
    leaderId,
    leader: { history: leader.history, baseline: leader.baseline },
    counts: {
      snapshot: cache.lookup.chunkFeeRateSatVb.length,
      optimized: optimized.txids.length,
      baseline: baseline.txids.length,
      wtxids: cache.witness?.wtxids.length ?? 0,
    },
    witnessCommitment: cache.witness?.commitment ?? null,
    cycle: cache.cycle,
    kind: cache.kind,
    cachedAt: cache.cachedAt,
    height: cache.height,
    previousBlockHash: cache.previousBlockHash,
    weightLimitWu: cache.weightLimitWu,
    maxTxCount: cache.maxTxCount,
    snapshot: cache.snapshot,
    optimized: { txCount: optimized.txCount, feeSat: optimized.feeSat, weightWu: optimized.weightWu, sigopCost: optimized.sigopCost },
    baseline: {
      source: baseline.source,
      txCount: baseline.txCount,
      feeSat: baseline.feeSat,
      weightWu: baseline.weightWu,
      sigopCost: baseline.sigopCost,
      height: baseline.height,
      previousBlockHash: baseline.previousBlockHash,
      coinbaseValueSat: baseline.coinbaseValueSat,
      weightLimitWu: baseline.weightLimitWu,
    },
    nativeV31: cache.nativeV31,
    nativeV30: cache.nativeV30,
    v31WithinRequestLimits: cache.v31WithinRequestLimits,
    sigopsBinding: cache.sigopsBinding,
    upperBound: cache.upperBound,
    comparison: cache.comparison,
    projectedBlocks: cache.projectedBlocks,
    clusters: cache.clusters,
    nativeTimingsMs: cache.nativeTimingsMs,
    receipt: cache.receipt,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  return Buffer.concat([
    MAGIC,
    length,
    json,
    bytesOf(cache.lookup.keys),
    bytesOf(cache.lookup.chunkFeeRateSatVb),
    bytesOf(cache.lookup.projectedBlock),
    txidBytes(optimized.txids),
    txidBytes(baseline.txids),
    txidBytes(cache.witness?.wtxids ?? []),
  ]);
}

/** Reads sections off a blob in order, copying each into its own (aligned) typed array. */
class Reader {
  constructor(
    private readonly blob: Buffer,
    private offset: number,
  ) {}

  private take(bytes: number, what: string): Buffer {
    if (this.offset + bytes > this.blob.length) throw new CacheDecodeError(`truncated: ${what} needs ${bytes} bytes at ${this.offset} of ${this.blob.length}`);
    const out = this.blob.subarray(this.offset, this.offset + bytes);
    this.offset += bytes;
    return out;
  }

  typed<T extends Float64Array | Int32Array | Uint32Array>(make: (n: number) => T, n: number, what: string): T {
    const out = make(n);
    new Uint8Array(out.buffer).set(this.take(out.byteLength, what));
    return out;
  }

  txids(n: number, what: string): Buffer {
    return this.take(n * 32, what);
  }

  end(): void {
    if (this.offset !== this.blob.length) throw new CacheDecodeError(`${this.blob.length - this.offset} bytes after the last section`);
  }
}

/** Hex txids from raw bytes, `SLICE` at a time with a yield in between. */
async function hexTxids(raw: Buffer, n: number): Promise<string[]> {
  const out = new Array<string>(n);
  for (let start = 0; start < n; start += SLICE) {
    if (start > 0) await yieldToLoop();
    const end = Math.min(n, start + SLICE);
    for (let i = start; i < end; i++) out[i] = raw.toString('hex', i * 32, i * 32 + 32);
  }
  return out;
}

/** Lookups are found by binary search: their keys must ascend strictly. */
function checkAscending(keys: Uint32Array): void {
  for (let i = LOOKUP_WORDS; i < keys.length; i += LOOKUP_WORDS) {
    const a0 = keys[i - LOOKUP_WORDS] ?? 0;
    const b0 = keys[i] ?? 0;
    if (a0 < b0 || (a0 === b0 && (keys[i - LOOKUP_WORDS + 1] ?? 0) < (keys[i + 1] ?? 0))) continue;
    throw new CacheDecodeError(`lookup keys not in ascending order at ${i / LOOKUP_WORDS}`);
  }
}

function checkRange(values: Int32Array | Uint32Array, min: number, max: number, what: string): void {
  for (const v of values) if (v < min || v > max) throw new CacheDecodeError(`${what}: ${v} outside [${min}, ${max}]`);
}

/** The template's wtxids with their commitment, checked against each other (the commitment is what a pool mines). */
async function decodeWitness(raw: Buffer, n: number, optimizedCount: number, commitment: string | null): Promise<TemplateWitness | null> {
  if (n === 0 && commitment === null) return null;
  if (n !== optimizedCount || commitment === null)
    throw new CacheDecodeError(`${n} wtxids and a ${commitment === null ? 'missing' : 'present'} commitment for ${optimizedCount} txs`);
  const wtxids = await hexTxids(raw, n);
  if (witnessCommitmentScript(wtxids) !== commitment) throw new CacheDecodeError('the witness commitment does not match the wtxids');
  return { wtxids, commitment };
}

/**
 * Parses and checks a blob written by `encodeCache`. Throws `CacheDecodeError` on anything
 * malformed, oversized or inconsistent (nothing of it is used then).
 */
export async function decodeCache(blob: Buffer): Promise<DecodedCache> {
  if (blob.length > CACHE_WIRE_MAX_BYTES) throw new CacheDecodeError(`${blob.length} bytes is over the ${CACHE_WIRE_MAX_BYTES}-byte limit`);
  if (blob.length < MAGIC.length + 4 || !blob.subarray(0, MAGIC.length).equals(MAGIC)) throw new CacheDecodeError('not a btc-intel cache blob');
  const headerLength = blob.readUInt32LE(MAGIC.length);
  const headerStart = MAGIC.length + 4;
  if (headerLength > MAX_HEADER_BYTES || headerStart + headerLength > blob.length) throw new CacheDecodeError(`bad header length ${headerLength}`);
  let raw: unknown;
  try {
    raw = JSON.parse(blob.toString('utf8', headerStart, headerStart + headerLength));
  } catch (e) {
    throw new CacheDecodeError(`header is not JSON: ${(e as Error).message}`);
  }
  const parsed = Header.safeParse(raw);
  if (!parsed.success) throw new CacheDecodeError(`header: ${z.prettifyError(parsed.error)}`);
  const h = parsed.data;
  const { counts } = h;

  const read = new Reader(blob, headerStart + headerLength);
  const keys = read.typed((n) => new Uint32Array(n), counts.snapshot * LOOKUP_WORDS, 'lookup keys');
  const chunkFeeRateSatVb = read.typed((n) => new Float64Array(n), counts.snapshot, 'chunk fee rates');
  const projectedBlock = read.typed((n) => new Int32Array(n), counts.snapshot, 'projected blocks');
  const optimizedRaw = read.txids(counts.optimized, 'optimized txids');
  const baselineRaw = read.txids(counts.baseline, 'baseline txids');
  const wtxidsRaw = read.txids(counts.wtxids, 'optimized wtxids');
  read.end();
  checkRange(projectedBlock, -1, h.projectedBlocks.length - 1, 'projected block');
  checkAscending(keys);

  const optimizedTxids = await hexTxids(optimizedRaw, counts.optimized);
  const baselineTxids = await hexTxids(baselineRaw, counts.baseline);
  // The lists the receipt signs must be the lists served.
  if (txidsDigest(optimizedTxids) !== h.receipt.payload.optimized.txidsSha256) throw new CacheDecodeError('optimized txids do not match the receipt');
  if (txidsDigest(baselineTxids) !== h.receipt.payload.baseline.txidsSha256) throw new CacheDecodeError('baseline txids do not match the receipt');
  const witness = await decodeWitness(wtxidsRaw, counts.wtxids, counts.optimized, h.witnessCommitment);

  const cache: TemplateCache = {
    cycle: h.cycle,
    kind: h.kind,
    cachedAt: h.cachedAt,
    height: h.height,
    previousBlockHash: h.previousBlockHash,
    weightLimitWu: h.weightLimitWu,
    maxTxCount: h.maxTxCount,
    snapshot: h.snapshot,
    optimized: { ...h.optimized, txids: optimizedTxids, txidSet: new Set(optimizedTxids) },
    witness,
    baseline: { ...h.baseline, txids: baselineTxids, txidSet: new Set(baselineTxids) },
    nativeV31: h.nativeV31,
    nativeV30: h.nativeV30,
    v31WithinRequestLimits: h.v31WithinRequestLimits,
    sigopsBinding: h.sigopsBinding,
    upperBound: h.upperBound,
    comparison: h.comparison,
    projectedBlocks: h.projectedBlocks,
    clusters: h.clusters,
    nativeTimingsMs: h.nativeTimingsMs,
    receipt: h.receipt,
    lookup: { keys, chunkFeeRateSatVb, projectedBlock },
    warm: null,
  };
  return { leaderId: h.leaderId, leader: h.leader, cache };
}
