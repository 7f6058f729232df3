/**
 * Frames of the mempool stream (`GET /v1/mempool/stream`), built from the mirror's diffs and the
 * optimizer's cycles. Each frame is one JSON text message with `type` and the connection's
 * monotonic `seq` (added when sent). Names follow mempool.space's where theirs fit (`txid`, `fee`
 * in sats, `vsize`, `rate`).
 */
import type { MempoolDiff, MempoolMirror, MirrorTx } from '../mempool/mirror.js';
import type { BlockAudit, TemplateSide } from '../optimizer/blockAudit.js';
import { txChunkFeeRate, txProjectedPlacement, type TemplateCache } from '../optimizer/cache/templateCache.js';
import { round } from '../util/round.js';

export const FRAME_TYPES = ['hello', 'mempool', 'txs', 'removed', 'replacement', 'block', 'audit', 'template'] as const;
/** Answers to a client's own messages (`subscription.ts`), never broadcast. */
export const CONTROL_FRAME_TYPES = ['subscribed', 'error'] as const;
export type FrameType = (typeof FRAME_TYPES)[number] | (typeof CONTROL_FRAME_TYPES)[number];

/** A frame before its `seq`. */
export type Frame = { type: FrameType } & Record<string, unknown>;

/** What the optimizer's last cycle says of one tx: its chunk's rate and projected block (1 = next, as on every surface). */
export interface OptimizerView {
  effectiveRate(txid: string): number | null;
  projectedBlock(txid: string): number | null;
}

export function optimizerView(cache: TemplateCache | undefined): OptimizerView {
  return {
    effectiveRate(txid) {
      const rate = cache ? txChunkFeeRate(cache, txid) : undefined;
      return rate === undefined ? null : round(rate);
    },
    projectedBlock(txid) {
      const placement = cache ? txProjectedPlacement(cache, txid) : undefined;
      return placement === undefined || placement.beyond ? null : placement.block;
    },
  };
}

function txItem(tx: MirrorTx, view: OptimizerView) {
  const rate = round(tx.feeSat / tx.vsize);
  // Before the optimizer saw it: the node's chunk (v31) or its own rate.
  const chunk = tx.chunkFeeSat !== null && tx.chunkWeight ? round(tx.chunkFeeSat / (tx.chunkWeight / 4)) : rate;
  return {
    txid: tx.txid,
    fee: tx.feeSat,
    vsize: tx.vsize,
    rate,
    effectiveRate: view.effectiveRate(tx.txid) ?? chunk,
    projectedBlock: view.projectedBlock(tx.txid),
  };
}

/** The frames one diff makes, in order: replacements, removals, new txs, blocks. */
export function diffFrames(diff: MempoolDiff, view: OptimizerView): Frame[] {
  const frames: Frame[] = [];
  const added = new Map(diff.added.map((tx) => [tx.txid, tx]));
  for (const r of diff.removed) {
    if (r.reason !== 'replaced' || !r.replacedBy) continue;
    const by = added.get(r.replacedBy);
    frames.push({
      type: 'replacement',
      old: { txid: r.tx.txid, fee: r.tx.feeSat, vsize: r.tx.vsize, rate: round(r.tx.feeSat / r.tx.vsize) },
      new: by ? { txid: by.txid, fee: by.feeSat, vsize: by.vsize, rate: round(by.feeSat / by.vsize) } : { txid: r.replacedBy },
      feeDelta: by ? by.feeSat - r.tx.feeSat : null,
      evictedDescendants: diff.removed.filter((d) => d.evictedWith === r.tx.txid).map((d) => d.tx.txid),
    });
  }
  const removed = diff.removed.filter((r) => r.reason !== 'confirmed');
  if (removed.length > 0)
    frames.push({ type: 'removed', txs: removed.map((r) => ({ txid: r.tx.txid, reason: r.reason, ...(r.replacedBy ? { replacedBy: r.replacedBy } : {}) })) });
  if (diff.added.length > 0) frames.push({ type: 'txs', txs: diff.added.map((tx) => txItem(tx, view)) });
  for (const block of diff.blocks) {
    const mined = diff.removed.filter((r) => r.reason === 'confirmed' && r.blockHeight === block.height);
    frames.push({
      type: 'block',
      height: block.height,
      hash: block.hash,
      txCount: block.txCount,
      fees: mined.reduce((s, r) => s + r.tx.feeSat, 0),
      feesKnownTxs: mined.length,
    });
  }
  return frames;
}

/** A block next to our template and the baseline for its parent (blockAudit.ts), after its `block` frame. */
export function auditFrame(audit: BlockAudit): Frame {
  const side = (t: TemplateSide) => ({
    txCount: t.txCount,
    fee: t.feeSat,
    weight: t.weightWu,
    notInBlock: t.notInBlock,
    blockTxsNotInIt: t.blockTxsNotInIt,
    matchRate: round(t.matchRate, 6),
    feesLeftOnTable: t.feesLeftOnTableSat,
  });
  return {
    type: 'audit',
    height: audit.height,
    hash: audit.hash,
    block: { txCount: audit.block.txCount, fee: audit.block.feeSat, weight: audit.block.weightWu },
    optimized: audit.optimized ? { cycle: audit.optimized.cycle, ...side(audit.optimized) } : null,
    baseline: audit.baseline ? { source: audit.baseline.source, ...side(audit.baseline) } : null,
  };
}

export function mempoolFrame(mirror: MempoolMirror): Frame {
  let vsize = 0;
  let fee = 0;
  for (const tx of mirror.txs.values()) {
    vsize += tx.vsize;
    fee += tx.feeSat;
  }
  return { type: 'mempool', count: mirror.txs.size, vsize, totalFee: fee, height: mirror.tipHeight ?? null, tip: mirror.tipHash ?? null };
}

export function templateFrame(cache: TemplateCache): Frame {
  const totals = (t: { txCount: number; feeSat: number; weightWu: number }) => ({ txCount: t.txCount, fee: t.feeSat, weight: t.weightWu });
  return {
    type: 'template',
    cycle: cache.cycle,
    kind: cache.kind,
    height: cache.height,
    previousBlockHash: cache.previousBlockHash,
    optimized: totals(cache.optimized),
    baseline: { source: cache.baseline.source, ...totals(cache.baseline) },
    bound: { fee: cache.upperBound.feeSat, exact: cache.upperBound.exact },
    projectedBlocks: cache.projectedBlocks.map((b, k) => ({
      block: k + 1,
      txCount: b.txCount,
      fee: b.feeSat,
      weight: b.weightWu,
      minRate: round(b.minFeeRateSatVb),
      medianRate: round(b.medianFeeRateSatVb),
      maxRate: round(b.maxFeeRateSatVb),
    })),
  };
}
