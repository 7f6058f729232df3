/**
 * The published optimizer cache: one immutable object per cycle, swapped atomically. Paid template
 * routes answer from it (membership checks, fee ladder, optimized txids); capabilities and
 * cache-stats describe it. Built by `buildTemplateCache` from the mempool snapshot, the native
 * result and the baseline.
 */
import { feeRateSatVbOfWeight } from '../bitcoin/units.js';
import type { OptimizerResult, TemplateSelection } from './native.js';
import { txidsDigest, type ReceiptSigner, type SignedReceipt } from './receipts.js';
import type { CycleSnapshot } from './mirrorSnapshot.js';

export type BaselineSource = 'node_getblocktemplate' | 'native_v31';

export interface TemplateSummary {
  txids: string[];
  txidSet: ReadonlySet<string>;
  txCount: number;
  feeSat: number;
  weightWu: number;
  sigopCost: number | null;
}

export interface BaselineTemplate extends TemplateSummary {
  source: BaselineSource;
  /** Height of the block the template is for. */
  height: number;
  previousBlockHash: string;
  coinbaseValueSat: number | null;
  weightLimitWu: number;
}

export interface BaselineComparison {
  available: boolean;
  reason: string | null;
  /** The baseline was built on the same tip as our snapshot. */
  sameTip: boolean;
  optimizedOnlyTxidCount: number;
  overlapTxidCount: number;
  baselineOnlyTxidCount: number;
  optimizedFeeSat: number;
  baselineFeeSat: number;
  /** optimized − baseline, sat. */
  feeDeltaSat: number;
  /** Baseline txids absent from our snapshot (mined, replaced or evicted between the two reads). */
  baselineTxidsNotInSnapshot: number;
  optimizedHeight: number;
  baselineHeight: number;
  previousBlockHash: string;
}

export interface TemplateCache {
  cycle: number;
  /** ms since the epoch */
  cachedAt: number;
  /** Height of the block the templates are for (tip + 1). */
  height: number;
  previousBlockHash: string;
  weightLimitWu: number;
  /** The request's transaction cap, which every projected block obeys too; null when uncapped. */
  maxTxCount: number | null;
  snapshot: CycleSnapshot['totals'] & { takenAt: number; source: string };
  optimized: TemplateSummary;
  baseline: BaselineTemplate;
  /** The native re-implementations of Core, for the comparison table. */
  nativeV31: Omit<TemplateSummary, 'txids' | 'txidSet'>;
  nativeV30: Omit<TemplateSummary, 'txids' | 'txidSet'>;
  v31WithinRequestLimits: boolean;
  /** The sigop limit bound the optimized template (a chunk that fit by weight was left out for its sigops). */
  sigopsBinding: boolean;
  upperBound: OptimizerResult['upperBound'];
  comparison: BaselineComparison;
  projectedBlocks: OptimizerResult['projectedBlocks'];
  clusters: OptimizerResult['clusters'];
  nativeTimingsMs: OptimizerResult['timingsMs'];
  receipt: SignedReceipt;
  /** Per-tx lookups over the whole snapshot. */
  txIndex: ReadonlyMap<string, number>;
  txChunkFeeRateSatVb: Float64Array;
  txProjectedBlock: Int32Array;
  /** Kept for the next cycle's warm start: the linearization, in indices of `snapshotTxids`. */
  linearization: Uint32Array;
  snapshotTxids: readonly string[];
}

function summary(selection: TemplateSelection, txids: readonly string[]): TemplateSummary {
  const list = Array.from(selection.indices, (i) => {
    const txid = txids[i];
    if (txid === undefined) throw new RangeError(`template index ${i} outside the snapshot of ${txids.length}`);
    return txid;
  });
  return {
    txids: list,
    txidSet: new Set(list),
    txCount: selection.txCount,
    feeSat: selection.feeSat,
    weightWu: selection.weightWu,
    sigopCost: selection.sigopCost,
  };
}

function totals(selection: TemplateSelection): Omit<TemplateSummary, 'txids' | 'txidSet'> {
  return { txCount: selection.txCount, feeSat: selection.feeSat, weightWu: selection.weightWu, sigopCost: selection.sigopCost };
}

/** Node baseline as fetched (`getblocktemplate`), before comparison. */
export interface NodeBaseline {
  txids: string[];
  feeSat: number;
  weightWu: number;
  sigopCost: number;
  height: number;
  previousBlockHash: string;
  coinbaseValueSat: number;
  weightLimitWu: number;
}

export interface BuildCacheParams {
  cycle: number;
  now: number;
  snapshot: CycleSnapshot;
  result: OptimizerResult;
  nodeBaseline: NodeBaseline | null;
  weightLimitWu: number;
  /** `maxTxCount` the cycle ran with (a projected block that reached it is full). */
  maxTxCount?: number;
  signer: ReceiptSigner;
}

export function buildTemplateCache({ cycle, now, snapshot, result, nodeBaseline, weightLimitWu, maxTxCount, signer }: BuildCacheParams): TemplateCache {
  const { txids } = snapshot;
  const optimized = summary(result.optimized, txids);
  const height = snapshot.tipHeight + 1;
  const baseline: BaselineTemplate = nodeBaseline
    ? {
        source: 'node_getblocktemplate',
        txids: nodeBaseline.txids,
        txidSet: new Set(nodeBaseline.txids),
        txCount: nodeBaseline.txids.length,
        feeSat: nodeBaseline.feeSat,
        weightWu: nodeBaseline.weightWu,
        sigopCost: nodeBaseline.sigopCost,
        height: nodeBaseline.height,
        previousBlockHash: nodeBaseline.previousBlockHash,
        coinbaseValueSat: nodeBaseline.coinbaseValueSat,
        weightLimitWu: nodeBaseline.weightLimitWu,
      }
    : { source: 'native_v31', ...summary(result.baselineV31, txids), height, previousBlockHash: snapshot.tipHash, coinbaseValueSat: null, weightLimitWu };
  const txIndex = new Map<string, number>();
  txids.forEach((txid, i) => txIndex.set(txid, i));
  const comparison = compare(optimized, baseline, snapshot, height, txIndex);
  const txChunkFeeRateSatVb = new Float64Array(txids.length);
  for (let i = 0; i < txids.length; i++) txChunkFeeRateSatVb[i] = feeRateSatVbOfWeight(result.txChunkFeeSat[i] ?? 0, result.txChunkWeightWu[i] ?? 0);
  const cachedAt = now;
  const receipt = signer.sign({
    cycle,
    height,
    previousBlockHash: snapshot.tipHash,
    cachedAt: new Date(cachedAt).toISOString(),
    optimized: { txidsSha256: txidsDigest(optimized.txids), txCount: optimized.txCount, feeSat: optimized.feeSat, weightWu: optimized.weightWu },
    baseline: {
      txidsSha256: txidsDigest(baseline.txids),
      txCount: baseline.txCount,
      feeSat: baseline.feeSat,
      weightWu: baseline.weightWu,
      source: baseline.source,
    },
    upperBound: { feeSat: result.upperBound.feeSat, exact: result.upperBound.exact },
  });
  return {
    cycle,
    cachedAt,
    height,
    previousBlockHash: snapshot.tipHash,
    weightLimitWu,
    maxTxCount: maxTxCount ?? null,
    snapshot: { ...snapshot.totals, takenAt: snapshot.takenAt, source: snapshot.source },
    optimized,
    baseline,
    nativeV31: totals(result.baselineV31),
    nativeV30: totals(result.baselineV30),
    v31WithinRequestLimits: result.v31WithinRequestLimits,
    sigopsBinding: result.tailSearch.sigopsBinding,
    upperBound: result.upperBound,
    comparison,
    projectedBlocks: result.projectedBlocks,
    clusters: result.clusters,
    nativeTimingsMs: result.timingsMs,
    receipt,
    txIndex,
    txChunkFeeRateSatVb,
    txProjectedBlock: result.txProjectedBlock,
    linearization: result.linearization,
    snapshotTxids: txids,
  };
}

function compare(
  optimized: TemplateSummary,
  baseline: BaselineTemplate,
  snapshot: CycleSnapshot,
  height: number,
  inSnapshot: ReadonlyMap<string, number>,
): BaselineComparison {
  let overlap = 0;
  for (const txid of optimized.txids) if (baseline.txidSet.has(txid)) overlap++;
  const sameTip = baseline.previousBlockHash === snapshot.tipHash;
  return {
    available: sameTip,
    reason: sameTip ? null : 'the node built its template on another tip than our mempool snapshot (a block arrived during the cycle)',
    sameTip,
    optimizedOnlyTxidCount: optimized.txCount - overlap,
    overlapTxidCount: overlap,
    baselineOnlyTxidCount: baseline.txCount - overlap,
    optimizedFeeSat: optimized.feeSat,
    baselineFeeSat: baseline.feeSat,
    feeDeltaSat: optimized.feeSat - baseline.feeSat,
    baselineTxidsNotInSnapshot: baseline.txids.filter((txid) => !inSnapshot.has(txid)).length,
    optimizedHeight: height,
    baselineHeight: baseline.height,
    previousBlockHash: snapshot.tipHash,
  };
}

/** Chunk fee rate (sat/vB) of a snapshot transaction in the cycle's linearization, or undefined when not in the snapshot. O(1). */
export function txChunkFeeRate(cache: TemplateCache, txid: string): number | undefined {
  const i = cache.txIndex.get(txid);
  return i === undefined ? undefined : cache.txChunkFeeRateSatVb[i];
}

/** Where a snapshot transaction lands in the cycle's projection. */
export interface ProjectedPlacement {
  /** 1-based projected block; past the last projected block: its count + 1. */
  block: number;
  /** True when the transaction is in none of the projected blocks. */
  beyond: boolean;
}

/** The projected block of a snapshot transaction, or undefined when not in the snapshot. O(1). */
export function txProjectedPlacement(cache: TemplateCache, txid: string): ProjectedPlacement | undefined {
  const i = cache.txIndex.get(txid);
  const block = i === undefined ? undefined : cache.txProjectedBlock[i];
  if (block === undefined) return undefined;
  return block < 0 ? { block: cache.projectedBlocks.length + 1, beyond: true } : { block: block + 1, beyond: false };
}
