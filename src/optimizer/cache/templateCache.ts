/**
 * The published optimizer cache: one immutable object per cycle, swapped atomically. Paid template
 * routes answer from it (membership checks, fee ladder, optimized txids); capabilities and
 * cache-stats describe it. `publishCache` builds it from a cycle's output (the incremental
 * engine's worker gives one directly; `buildTemplateCache` makes one from a mempool snapshot and
 * a native result) and the baseline, in O(template) work plus the signature.
 */
import { merkleRoot, witnessCommitmentOfRoot, ZERO_HASH } from '../../bitcoin/witness.js';
import { nativeMerkleRoot, type OptimizerResult, type TemplateSelection } from '../binding/native.js';
import { txidsDigest, type ReceiptSigner, type SignedReceipt } from './receipts.js';
import type { CycleSnapshot } from '../snapshot/mirrorSnapshot.js';
import { findTxidKey, lookupFromSnapshot, type TxLookup } from './txLookup.js';

/** `full`: a from-scratch cycle, compared with the node's getblocktemplate; `incremental`: a cycle of the changes since, compared with our Core v31 model of the same state. */
export type CacheKind = 'full' | 'incremental';

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

/** The optimized template's witness side (BIP 141), for pools and Stratum v2 job declaration. */
export interface TemplateWitness {
  /** wtxid of each optimized transaction, in template order (index-aligned with `optimized.txids`). */
  wtxids: string[];
  /** The coinbase output script committing to them (`default_witness_commitment`), hex. */
  commitment: string;
}

export interface TemplateCache {
  cycle: number;
  kind: CacheKind;
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
  /** Null when a template transaction's wtxid was not known (a node that lists none). */
  witness: TemplateWitness | null;
  baseline: BaselineTemplate;
  /** The native re-implementations of Core, for the comparison table. */
  nativeV31: Omit<TemplateSummary, 'txids' | 'txidSet'>;
  /** Full cycles only: null on incremental ones (v30's ancestor-set pass over the whole mempool is not incremental). */
  nativeV30: Omit<TemplateSummary, 'txids' | 'txidSet'> | null;
  v31WithinRequestLimits: boolean;
  /** The sigop limit bound the optimized template (a chunk that fit by weight was left out for its sigops). */
  sigopsBinding: boolean;
  upperBound: OptimizerResult['upperBound'];
  comparison: BaselineComparison;
  projectedBlocks: OptimizerResult['projectedBlocks'];
  clusters: OptimizerResult['clusters'];
  nativeTimingsMs: OptimizerResult['timingsMs'];
  receipt: SignedReceipt;
  /** Per-tx lookups over the whole snapshot, by txid (`txChunkFeeRate`, `txProjectedPlacement`). */
  lookup: TxLookup;
  /** Kept for the next full cycle's warm start (snapshot cycles only): the linearization, in indices of `snapshotTxids`. */
  warm: { linearization: Uint32Array; snapshotTxids: readonly string[] } | null;
}

/** A template as the cycle output carries it: txids in block order and totals. */
export interface SelectionTxids extends Omit<TemplateSelection, 'indices'> {
  txids: string[];
}

/** What a cycle produced, whatever ran it. */
export interface CycleOutput {
  kind: CacheKind;
  snapshot: CycleSnapshot['totals'] & { takenAt: number; source: string };
  tipHeight: number;
  tipHash: string;
  optimized: SelectionTxids;
  baselineV31: SelectionTxids;
  baselineV30: Omit<TemplateSelection, 'indices'> | null;
  v31WithinRequestLimits: boolean;
  upperBound: OptimizerResult['upperBound'];
  tailSearch: OptimizerResult['tailSearch'];
  projectedBlocks: OptimizerResult['projectedBlocks'];
  clusters: OptimizerResult['clusters'];
  timingsMs: OptimizerResult['timingsMs'];
  lookup: TxLookup;
  warm: TemplateCache['warm'];
}

function withTxids(selection: TemplateSelection, txids: readonly string[]): SelectionTxids {
  const list = Array.from(selection.indices, (i) => {
    const txid = txids[i];
    if (txid === undefined) throw new RangeError(`template index ${i} outside the snapshot of ${txids.length}`);
    return txid;
  });
  return {
    txids: list,
    txCount: selection.txCount,
    feeSat: selection.feeSat,
    weightWu: selection.weightWu,
    adjustedWeightWu: selection.adjustedWeightWu,
    sigopCost: selection.sigopCost,
  };
}

function summary(s: SelectionTxids): TemplateSummary {
  return { txids: s.txids, txidSet: new Set(s.txids), txCount: s.txCount, feeSat: s.feeSat, weightWu: s.weightWu, sigopCost: s.sigopCost };
}

function totals(selection: Omit<TemplateSelection, 'indices'>): Omit<TemplateSummary, 'txids' | 'txidSet'> {
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
  /** The wtxid of a snapshot transaction (the mempool view's); absent: no witness data. */
  wtxidOf?: WtxidOf;
}

/** The wtxid of a transaction by txid, when known. */
export type WtxidOf = (txid: string) => string | null | undefined;

/** The template's wtxids and witness commitment, or null when one wtxid is unknown. O(template). */
export function templateWitness(txids: readonly string[], wtxidOf: WtxidOf | undefined): TemplateWitness | null {
  if (!wtxidOf) return null;
  const wtxids: string[] = [];
  for (const txid of txids) {
    const wtxid = wtxidOf(txid);
    if (!wtxid) return null;
    wtxids.push(wtxid);
  }
  const leaves = [ZERO_HASH, ...wtxids];
  return { wtxids, commitment: witnessCommitmentOfRoot(nativeMerkleRoot(leaves) ?? merkleRoot(leaves)) };
}

/** The output of a from-scratch cycle on a snapshot (index-keyed native result → txids and a txid-keyed lookup). O(n). */
export function cycleOutputOf(snapshot: CycleSnapshot, result: OptimizerResult): CycleOutput {
  const { txids } = snapshot;
  return {
    kind: 'full',
    snapshot: { ...snapshot.totals, takenAt: snapshot.takenAt, source: snapshot.source },
    tipHeight: snapshot.tipHeight,
    tipHash: snapshot.tipHash,
    optimized: withTxids(result.optimized, txids),
    baselineV31: withTxids(result.baselineV31, txids),
    baselineV30: result.baselineV30,
    v31WithinRequestLimits: result.v31WithinRequestLimits,
    upperBound: result.upperBound,
    tailSearch: result.tailSearch,
    projectedBlocks: result.projectedBlocks,
    clusters: result.clusters,
    timingsMs: result.timingsMs,
    lookup: lookupFromSnapshot(txids, result.txChunkFeeSat, result.txChunkWeightWu, result.txProjectedBlock),
    warm: { linearization: result.linearization, snapshotTxids: txids },
  };
}

export function buildTemplateCache({ snapshot, result, ...rest }: BuildCacheParams): TemplateCache {
  return publishCache({ ...rest, output: cycleOutputOf(snapshot, result) });
}

export interface PublishParams {
  cycle: number;
  now: number;
  output: CycleOutput;
  /** The node's getblocktemplate (full cycles); null: our native v31 model of the same state is the baseline. */
  nodeBaseline: NodeBaseline | null;
  weightLimitWu: number;
  maxTxCount?: number;
  signer: ReceiptSigner;
  wtxidOf?: WtxidOf;
}

/** The cache of one cycle, with its signed receipt. O(template size + baseline size · log n). */
export function publishCache({ cycle, now, output, nodeBaseline, weightLimitWu, maxTxCount, signer, wtxidOf }: PublishParams): TemplateCache {
  const optimized = summary(output.optimized);
  const height = output.tipHeight + 1;
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
    : { source: 'native_v31', ...summary(output.baselineV31), height, previousBlockHash: output.tipHash, coinbaseValueSat: null, weightLimitWu };
  const comparison = compare(optimized, baseline, output, height);
  const cachedAt = now;
  const receipt = signer.sign({
    cycle,
    height,
    previousBlockHash: output.tipHash,
    cachedAt: new Date(cachedAt).toISOString(),
    optimized: { txidsSha256: txidsDigest(optimized.txids), txCount: optimized.txCount, feeSat: optimized.feeSat, weightWu: optimized.weightWu },
    baseline: {
      txidsSha256: txidsDigest(baseline.txids),
      txCount: baseline.txCount,
      feeSat: baseline.feeSat,
      weightWu: baseline.weightWu,
      source: baseline.source,
    },
    upperBound: { feeSat: output.upperBound.feeSat, exact: output.upperBound.exact },
  });
  return {
    cycle,
    kind: output.kind,
    cachedAt,
    height,
    previousBlockHash: output.tipHash,
    weightLimitWu,
    maxTxCount: maxTxCount ?? null,
    snapshot: output.snapshot,
    optimized,
    witness: templateWitness(optimized.txids, wtxidOf),
    baseline,
    nativeV31: totals(output.baselineV31),
    nativeV30: output.baselineV30 ? totals(output.baselineV30) : null,
    v31WithinRequestLimits: output.v31WithinRequestLimits,
    sigopsBinding: output.tailSearch.sigopsBinding,
    upperBound: output.upperBound,
    comparison,
    projectedBlocks: output.projectedBlocks,
    clusters: output.clusters,
    nativeTimingsMs: output.timingsMs,
    receipt,
    lookup: output.lookup,
    warm: output.warm,
  };
}

function compare(optimized: TemplateSummary, baseline: BaselineTemplate, output: CycleOutput, height: number): BaselineComparison {
  let overlap = 0;
  for (const txid of optimized.txids) if (baseline.txidSet.has(txid)) overlap++;
  const sameTip = baseline.previousBlockHash === output.tipHash;
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
    // Our v31 model's txids come from the snapshot itself: none can be missing, and 4,000 key
    // lookups (hex parsed each) are most of a publish's comparison.
    baselineTxidsNotInSnapshot: baseline.source === 'native_v31' ? 0 : baseline.txids.filter((txid) => findTxidKey(output.lookup.keys, txid) < 0).length,
    optimizedHeight: height,
    baselineHeight: baseline.height,
    previousBlockHash: output.tipHash,
  };
}

/** Chunk fee rate (sat/vB) of a snapshot transaction in the cycle's linearization, or undefined when not in the snapshot. O(log n). */
export function txChunkFeeRate(cache: TemplateCache, txid: string): number | undefined {
  const i = findTxidKey(cache.lookup.keys, txid);
  return i < 0 ? undefined : cache.lookup.chunkFeeRateSatVb[i];
}

/** Where a snapshot transaction lands in the cycle's projection. */
export interface ProjectedPlacement {
  /** 1-based projected block; past the last projected block: its count + 1. */
  block: number;
  /** True when the transaction is in none of the projected blocks. */
  beyond: boolean;
}

/** The projected block of a snapshot transaction, or undefined when not in the snapshot. O(log n). */
export function txProjectedPlacement(cache: TemplateCache, txid: string): ProjectedPlacement | undefined {
  const i = findTxidKey(cache.lookup.keys, txid);
  const block = i < 0 ? undefined : cache.lookup.projectedBlock[i];
  if (block === undefined) return undefined;
  return block < 0 ? { block: cache.projectedBlocks.length + 1, beyond: true } : { block: block + 1, beyond: false };
}
