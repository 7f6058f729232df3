/**
 * The only module that loads the native template optimizer (`build/Release/optimizer.node`).
 *
 * Shapes are checked here first, with precise messages; the addon re-checks lengths and checks
 * every element (fees, weights, indices, cycles) and throws an `OptimizerError` naming the first
 * bad entry. Errors keep the caller's stack. The addon is loaded lazily on first use, so importing
 * this module never throws; a missing or broken build says how to rebuild it.
 *
 * Units: fees in integer satoshis, weights in BIP141 weight units, fee rates in sat/vB
 * (1 vB = 4 WU). The call is synchronous and CPU-bound: run it in a worker thread.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { packStrings } from '../../util/packedStrings.js';
import { OPTION_RANGES, type OptionRange } from './optionRanges.js';

/** One mempool as structure-of-arrays. Index i is the same transaction in every array. */
export interface OptimizerInput {
  /** Per tx, integer satoshis in [0, 2^53): Core's modified fee, used for ordering and totals. */
  feeSat: Float64Array;
  /** Per tx, BIP141 weight (>= 1). */
  weightWu: Uint32Array;
  /** Per tx sigop cost (optional; 0 when unknown). Core sizes a tx as max(weight, 20 * sigops). */
  sigopCost?: Uint32Array;
  /** CSR parent lists: parents of i are parentIndices[parentOffsets[i] .. parentOffsets[i+1]). Length n+1. */
  parentOffsets: Uint32Array;
  /** CSR parent indices, each in [0, n). Duplicates are ignored; a cycle is an error. */
  parentIndices: Uint32Array;
  /** Rank of each tx in Core's txid order (a permutation of 0..n-1); see `computeTxidRank` in snapshot.ts. */
  txidRank: Uint32Array;
  /**
   * Optional warm start: a previous linearization in this input's indices, e.g. the previous
   * cycle's `linearization` mapped through txids (`warmOrderFromPrevious` in snapshot.ts). Any
   * subset of the transactions in any order, no duplicates. For each cluster, its transactions
   * in this order (missing ones after them, in topological order) seed the linearizer when that
   * order is topological; otherwise the hint is ignored for that cluster. The result is never
   * worse than the hint.
   */
  warmOrder?: Uint32Array;
}

/** Options of one cycle. Defaults are Bitcoin Core's where Core has one. */
export interface OptimizerOptions {
  /** Block weight limit (Core -blockmaxweight). @default 4_000_000 */
  weightLimitWu?: number;
  /** Weight reserved for the coinbase and header (Core -blockreservedweight). @default 8_000 */
  coinbaseReserveWu?: number;
  /** Block sigop limit (MAX_BLOCK_SIGOPS_COST); 400 of it are reserved for the coinbase, as Core. @default 80_000 */
  maxSigopCost?: number;
  /** Sigops reserved for the coinbase (Core's DEFAULT_COINBASE_OUTPUT_MAX_ADDITIONAL_SIGOPS). @default 400 */
  coinbaseSigopCost?: number;
  /** Maximum transactions in the optimized template (not applied to the baselines). @default 4_000 */
  maxTxCount?: number;
  /** Minimum chunk fee rate of the optimized template, sat/vB (0.001 resolution); baselines use Core's blockmintxfee 1 sat/kvB. @default 1 */
  minFeeRateSatVb?: number;
  /** Number of projected blocks (block 1 = the optimized template). @default 8 */
  projectedBlocks?: number;
  /** Linearization work per cluster, in Core's cost units (ACCEPTABLE_COST). @default 75_000 */
  linearizeBudget?: number;
  /** Extra cost units shared by clusters not proven optimal after their first budget. @default 5_000_000 */
  linearizeExtraBudget?: number;
  /** Search nodes of the exact tail search of the optimized template (block 1). @default 200_000 */
  tailSearchBudget?: number;
  /** Search nodes of the tail search of each projected block 2..N. @default 2_000 */
  projectedSearchBudget?: number;
  /** Tail search window: chunks whose rate is within this many percent above the cutoff. @default 10 */
  tailWindowPct?: number;
  /** RNG seed for SFL (same input + seed => same result). Integer in [0, 2^53). @default 0 */
  seed?: number;
  /** Native threads: 2 runs the v30 baseline and half the linearization on a helper thread (same result as 1). @default 2 */
  threads?: number;
}

/** One block template. `indices` are in block order (parents first). */
export interface TemplateSelection {
  indices: Uint32Array;
  txCount: number;
  feeSat: number;
  /** Real (BIP141) weight of the transactions, without the coinbase. */
  weightWu: number;
  /** Sum of sigop-adjusted weights (what Core's v31 fit test uses). */
  adjustedWeightWu: number;
  sigopCost: number;
}

export interface ProjectedBlock {
  txCount: number;
  feeSat: number;
  weightWu: number;
  /** Chunk fee rates of the block (fee / (adjusted weight / 4)). */
  minFeeRateSatVb: number;
  /** Weight-weighted median chunk fee rate: the rate at the block's middle weight unit. */
  medianFeeRateSatVb: number;
  maxFeeRateSatVb: number;
}

export interface OptimizerResult {
  /**
   * Consensus-valid template under the request limits, built over chunks ordered by real weight
   * with the sigop cost as its own limit; never below baselineV31 when v31WithinRequestLimits.
   */
  optimized: TemplateSelection;
  /** Bitcoin Core v31 `addChunks`, exactly (given optimal linearizations). */
  baselineV31: TemplateSelection;
  /** Bitcoin Core v30 ancestor-score `addPackageTxs`. */
  baselineV30: TemplateSelection;
  /**
   * Whether the v31 template itself satisfies maxTxCount and minFeeRateSatVb (the no-worse
   * guarantee applies). Its transactions are judged by the consensus chunks (real weight), as the
   * optimized template and the bound are, not by Core's sigop-adjusted chunks.
   */
  v31WithinRequestLimits: boolean;
  /**
   * Upper bound on the fee of any template within the same limits as the optimized one (weight,
   * sigop cost, maxTxCount; only transactions of chunks paying minFeeRateSatVb), floored.
   * `exact` (= `solved`): the bound IS the optimum of that problem (the best fee of any set of
   * eligible transactions closed under parents within those limits); the optimized template reaches
   * it exactly when its fee equals the bound. Otherwise the bound is the smallest proven one: the LP
   * refined by branching, the Lagrangian LP with both limits when sigops bind, and the deepening
   * solve's "no template earns more than LP - delta" (native/bound_deepen.h); valid, with a gap.
   * `relaxedClusters`: clusters whose linearization was not proven optimal, bounded with their
   * precedence dropped in the LP (still valid, looser).
   */
  upperBound: {
    feeSat: number;
    /**
     * The LP / hull value under the weight limit alone. feeSat is never above it: when `solved`,
     * it is the optimum (reduced-cost fixing against the optimized fee, then the clusters left
     * solved exactly over their closed sets under every limit); otherwise the LP refined by
     * branching on binary items at the block's edge.
     */
    lpFeeSat: number;
    exact: boolean;
    relaxedClusters: number;
    /** The exact residual solve finished within its (deterministic) budget. */
    solved: boolean;
    /** Clusters it could not fix to a single closed set (solved exactly among their candidates). */
    freeClusters: number;
    /** Its search nodes and DP states. */
    searchNodes: number;
  };
  /** Per tx: its chunk's fee (Core's fees.chunk, in sat). */
  txChunkFeeSat: Float64Array;
  /** Per tx: its chunk's sigop-adjusted weight (Core's chunkweight), clamped to 2^32-1. */
  txChunkWeightWu: Uint32Array;
  /** Per tx: 0-based projected block, -1 beyond the projected blocks. */
  txProjectedBlock: Int32Array;
  projectedBlocks: ProjectedBlock[];
  /** All txs, cluster by cluster, in linearization order (usable as the next cycle's warmOrder). */
  linearization: Uint32Array;
  clusters: {
    count: number;
    largest: number;
    /** Clusters whose (sigop-adjusted, Core's) linearization is proven optimal; real-weight ones not proven optimal show in upperBound.relaxedClusters. */
    optimalCount: number;
    over64Count: number;
    linearizeCost: number;
    chunkCount: number;
    /** Clusters with a sigop-adjusted transaction, re-linearized by real weight for the optimized template and the bound. */
    realWeightRelinearized: number;
    /** Clusters unchanged since the previous incremental cycle whose linearization was reused (0 on a from-scratch cycle). */
    reusedCount: number;
  };
  tailSearch: {
    /** Search nodes spent on block 1 and whether its window was searched exhaustively. */
    nodes: number;
    complete: boolean;
    windowChunks: number;
    /** Fee of the greedy pass of block 1, and what the search added to it. */
    greedyFeeSat: number;
    improvedSat: number;
    /** The v31 template beat the search and was used as the optimized template. */
    usedBaselineV31: boolean;
    /**
     * The bound's exact solve found a template earning more than the search's (its parts need not
     * be whole chunks), and it is the optimized template; `improvedSat` then counts it.
     */
    usedBoundTemplate: boolean;
    /** The sigop limit bound block 1: a chunk that fit by weight was skipped for its sigop cost. */
    sigopsBinding: boolean;
    /** Search nodes over all projected blocks. */
    projectedNodes: number;
  };
  /**
   * Native wall time per phase. `validate` includes finding the clusters (union-find over the
   * input's parent links, beside the checks and copies of the arrays); `clusters` is the topological
   * renumbering and cycle check; `linearize` includes chunking; `chunk` the sort into mining order
   * and the order by real weight (the re-linearization of sigop-adjusted clusters runs on the
   * helper thread beside the sort); `baselines` = v31 + v30. With threads: 2, v30 runs on the
   * helper thread overlapping chunk/optimized, and `bound` runs there too, beside `projected` (it
   * needs only block 1's fee), so the phases can add up to more than `total`. `optimized` is block 1
   * (greedy + tail search), `projected` blocks 2..N.
   */
  timingsMs: {
    validate: number;
    clusters: number;
    linearize: number;
    chunk: number;
    baselines: number;
    optimized: number;
    bound: number;
    projected: number;
    total: number;
  };
}

/** Detail of one cluster (debugging and tests). */
export interface ClusterDetail {
  linearization: Uint32Array;
  chunkSizes: Uint32Array;
  optimal: boolean;
  cost: number;
}

export type OptimizerErrorCode =
  | 'ERR_OPTIMIZER_INVALID_ARGUMENT'
  | 'ERR_OPTIMIZER_LENGTH_MISMATCH'
  | 'ERR_OPTIMIZER_INDEX_OUT_OF_RANGE'
  | 'ERR_OPTIMIZER_CYCLE'
  | 'ERR_OPTIMIZER_INVALID_FEE'
  | 'ERR_OPTIMIZER_INVALID_WEIGHT'
  | 'ERR_OPTIMIZER_INVALID_RANK'
  | 'ERR_OPTIMIZER_INVALID_WARM_ORDER'
  | 'ERR_OPTIMIZER_OUT_OF_MEMORY'
  | 'ERR_OPTIMIZER_INTERNAL'
  | 'ERR_OPTIMIZER_LOAD_FAILED';

/** An optimizer failure: bad input (the message names the array and index), or a load failure. */
export class OptimizerError extends Error {
  readonly code: OptimizerErrorCode;
  constructor(code: OptimizerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OptimizerError';
    this.code = code;
  }
}

interface NativeBinding {
  buildTemplates(input: OptimizerInput, options: OptimizerOptions): OptimizerResult;
  inspectClusters(input: OptimizerInput, options: OptimizerOptions): ClusterDetail[];
  selfCheck(input: OptimizerInput, options: OptimizerOptions, every: number): string;
  version(): string;
  IncrementalEngine: new () => NativeIncrementalEngine;
  /** The getrawmempool reader (native/snapshot_wrap.h; typed by snapshot/nativeScan.ts); absent from builds before it. */
  scanCoreMempool?: (bytes: Uint8Array) => unknown;
  /** The same, on a file it maps into memory (null: not mapped, the caller reads it). */
  scanCoreMempoolFile?: (path: string) => unknown;
  /** Bitcoin's merkle root (native/merkle_wrap.h): ids in display hex, concatenated (a string, or its bytes); absent from builds before it. */
  merkleRoot?: (idsHex: string | Uint8Array) => string;
}

/** The native incremental engine's methods (see incrementalEngine.ts for the typed wrapper). */
export interface NativeIncrementalEngine {
  apply(diff: unknown): number;
  build(options: OptimizerOptions, full: boolean, withV30: boolean): unknown;
  size(): number;
  clear(): void;
}

let binding: NativeBinding | undefined;

/** The directory holding package.json and binding.gyp, from src/optimizer or dist/optimizer. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'binding.gyp'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new OptimizerError('ERR_OPTIMIZER_LOAD_FAILED', `no package.json with binding.gyp above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** The loaded native module. @throws OptimizerError ERR_OPTIMIZER_LOAD_FAILED */
export function loadBinding(): NativeBinding {
  if (binding) return binding;
  const root = packageRoot();
  const require = createRequire(import.meta.url);
  const tried: string[] = [];
  // OPTIMIZER_NATIVE_BUILD=Debug picks the sanitizer build (npm run build:native:debug) even when
  // a release build exists; it needs libasan preloaded (scripts/test-native-debug.sh does that).
  const builds = process.env.OPTIMIZER_NATIVE_BUILD === 'Debug' ? ['Debug'] : ['Release', 'Debug'];
  for (const candidate of builds.map((b) => join(root, 'build', b, 'optimizer.node'))) {
    if (!existsSync(candidate)) {
      tried.push(`${candidate}: not found`);
      continue;
    }
    try {
      binding = require(candidate) as NativeBinding;
      return binding;
    } catch (err) {
      tried.push(`${candidate}: ${(err as Error).message}`);
    }
  }
  throw new OptimizerError(
    'ERR_OPTIMIZER_LOAD_FAILED',
    [
      'Could not load the native template optimizer.',
      ...tried.map((t) => `  - ${t}`),
      'Likely causes and fixes:',
      `  - not built yet, or built for another Node version: run \`npm run build:native\` in ${root}`,
      '  - node-gyp cannot find Node headers: set npm config nodedir=/usr (or install Node headers) and rebuild',
      '  - no C++20 compiler: install g++ 10 or newer (build-essential) and rebuild',
    ].join('\n'),
  );
}

/**
 * The merkle root (display hex) of ids in display hex, hashed natively (OpenSSL's SHA-256 in the
 * addon: a template's tree is thousands of sha256d, too many for one `createHash` each on the event
 * loop); undefined when the addon cannot be loaded or predates it (the caller hashes in JavaScript).
 */
export function nativeMerkleRoot(ids: readonly string[]): string | undefined {
  let merkleRoot: NativeBinding['merkleRoot'];
  try {
    merkleRoot = loadBinding().merkleRoot;
  } catch {
    return undefined;
  }
  return merkleRoot?.(packStrings(ids));
}

function invalid(name: string, expected: string, actual: unknown): OptimizerError {
  const got =
    actual === null
      ? 'null'
      : ArrayBuffer.isView(actual)
        ? `${actual.constructor.name}(${(actual as Uint8Array).length})`
        : typeof actual === 'object' || typeof actual === 'function'
          ? typeof actual
          : `${typeof actual} ${typeof actual === 'string' ? actual : inspect(actual)}`;
  return new OptimizerError('ERR_OPTIMIZER_INVALID_ARGUMENT', `Expected ${expected} for ${name} but received ${got}`);
}

function checkArray(name: string, value: unknown, ctor: Float64ArrayConstructor | Uint32ArrayConstructor, length: number | undefined): void {
  if (!(value instanceof ctor)) throw invalid(name, ctor.name, value);
  if (length !== undefined && value.length !== length) {
    throw new OptimizerError('ERR_OPTIMIZER_LENGTH_MISMATCH', `Expected ${name} of length ${length} but received length ${value.length}`);
  }
}

// Every option has a range (a compile error otherwise).
const RANGES: Record<keyof OptimizerOptions, OptionRange> = OPTION_RANGES;

/** Shape checks with precise messages (element checks happen natively). */
function checkInput(input: OptimizerInput, options: OptimizerOptions): void {
  if (typeof input !== 'object' || input === null) throw invalid('input', 'an object', input);
  checkArray('input.feeSat', input.feeSat, Float64Array, undefined);
  const n = input.feeSat.length;
  checkArray('input.weightWu', input.weightWu, Uint32Array, n);
  if (input.sigopCost !== undefined) checkArray('input.sigopCost', input.sigopCost, Uint32Array, n);
  checkArray('input.parentOffsets', input.parentOffsets, Uint32Array, n + 1);
  checkArray('input.parentIndices', input.parentIndices, Uint32Array, undefined);
  checkArray('input.txidRank', input.txidRank, Uint32Array, n);
  if (input.warmOrder !== undefined) {
    checkArray('input.warmOrder', input.warmOrder, Uint32Array, undefined);
    if (input.warmOrder.length > n) throw invalid('input.warmOrder', `at most ${n} entries`, input.warmOrder);
  }
  checkOptions(options);
}

/** Option checks shared with the incremental engine. */
export function checkOptions(options: OptimizerOptions): void {
  if (typeof options !== 'object' || options === null) throw invalid('options', 'an object', options);
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const range = Object.hasOwn(RANGES, key) ? RANGES[key as keyof OptimizerOptions] : undefined;
    if (!range) throw invalid(`options.${key}`, 'a known option', key);
    const { min, max, integer } = range;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      throw invalid(`options.${key}`, `${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`, value);
    }
  }
  if ((options.coinbaseReserveWu ?? 8_000) >= (options.weightLimitWu ?? 4_000_000)) {
    throw invalid('options.coinbaseReserveWu', 'less than weightLimitWu', options.coinbaseReserveWu);
  }
}

/** Re-throw a native error as an OptimizerError created here, so the stack is the caller's. */
export function rethrow(err: unknown): never {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' && e.code.startsWith('ERR_OPTIMIZER_') ? (e.code as OptimizerErrorCode) : 'ERR_OPTIMIZER_INTERNAL';
  throw new OptimizerError(code, typeof e.message === 'string' ? e.message : String(err), { cause: err });
}

/**
 * Run one optimizer cycle: clusters, SFL linearization, chunks, the v31 and v30 baselines, the
 * optimized template with its exact tail search, the upper bound and the projected blocks.
 * Synchronous and CPU-bound (about 50 ms per 100k transactions): call it from a worker thread.
 *
 * @throws OptimizerError with code ERR_OPTIMIZER_INVALID_ARGUMENT, _LENGTH_MISMATCH,
 *   _INDEX_OUT_OF_RANGE, _CYCLE, _INVALID_FEE, _INVALID_WEIGHT, _INVALID_RANK,
 *   _INVALID_WARM_ORDER, _OUT_OF_MEMORY, _INTERNAL or _LOAD_FAILED.
 * @example
 * const snap = await readSnapshotFile('mempool.json.gz');
 * const r = buildTemplates(snap.input, { maxTxCount: 4000 });
 * r.optimized.feeSat - r.baselineV31.feeSat; // >= 0 when r.v31WithinRequestLimits
 */
export function buildTemplates(input: OptimizerInput, options: OptimizerOptions = {}): OptimizerResult {
  checkInput(input, options);
  const native = loadBinding();
  try {
    return native.buildTemplates(input, options);
  } catch (err) {
    rethrow(err);
  }
}

/** Per-cluster linearizations, chunk sizes, optimal flags and costs (tests and debugging). */
export function inspectClusters(input: OptimizerInput, options: OptimizerOptions = {}): ClusterDetail[] {
  checkInput(input, options);
  const native = loadBinding();
  try {
    return native.inspectClusters(input, options);
  } catch (err) {
    rethrow(err);
  }
}

/**
 * Run the native SanityCheck of every cached structure (clusters, each SFL state every `every`
 * steps, chunks). Returns '' when all pass, else the first failure. Slow: tests only.
 */
export function selfCheck(input: OptimizerInput, options: OptimizerOptions = {}, every = 1): string {
  checkInput(input, options);
  const native = loadBinding();
  try {
    return native.selfCheck(input, options, every);
  } catch (err) {
    rethrow(err);
  }
}

/** Version of the loaded native module, e.g. "1.0.0". @throws OptimizerError ERR_OPTIMIZER_LOAD_FAILED */
export function nativeVersion(): string {
  return loadBinding().version();
}
