/**
 * An audit of every block: when the mempool view sees a new block, its transactions' fees and
 * weight (`getblock <hash> 2`, coinbase left out) next to our last optimized template and its
 * baseline for the same parent: the fees the block left on the table beside ours, the
 * transactions in ours and not in the block and the reverse, and a match rate. The last
 * `keep` audits are kept (oldest dropped first); each new one is announced (`audit`).
 */
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { btcToSats } from '../bitcoin/units.js';
import type { MempoolDiff, MempoolMirror } from '../mempool/mirror.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { BlockVerbose2 } from '../node/schemas.js';
import type { OptimizerService } from './optimizerService.js';
import type { BaselineSource, TemplateCache } from './cache/templateCache.js';

/** What is kept of the last template for one parent: its txids and totals, not the whole cache. */
export interface AuditedTemplate {
  cycle: number;
  cachedAt: number;
  txids: ReadonlySet<string>;
  txCount: number;
  feeSat: number;
  weightWu: number;
  baseline: { source: BaselineSource; txids: ReadonlySet<string>; txCount: number; feeSat: number; weightWu: number };
}

export interface TemplateSide {
  txCount: number;
  feeSat: number;
  weightWu: number;
  /** Its transactions the block did not include. */
  notInBlock: number;
  /** The block's transactions it did not include. */
  blockTxsNotInIt: number;
  /** Share of its transactions the block included (1 for an empty template). */
  matchRate: number;
  /** Its fees − the block's: what the block left on the table next to it (negative: the block earned more). */
  feesLeftOnTableSat: number;
}

export interface BlockAudit {
  height: number;
  hash: string;
  previousBlockHash: string;
  /** Block header time, unix seconds. */
  time: number;
  auditedAt: number;
  /** The block's transactions, coinbase left out: count, fees (the node's per-tx fees), weight. */
  block: { txCount: number; feeSat: number; weightWu: number };
  /** Our last optimized template for the same parent; null when we published none for it. */
  optimized: (TemplateSide & { cycle: number; cachedAt: number }) | null;
  /** That template's baseline (the node's getblocktemplate, or our Core v31 model). */
  baseline: (TemplateSide & { source: BaselineSource }) | null;
}

/** Parents whose last template is remembered (a block builds on one of the last few tips). */
const PARENTS_KEPT = 6;

export function auditedTemplate(cache: TemplateCache): AuditedTemplate {
  const b = cache.baseline;
  return {
    cycle: cache.cycle,
    cachedAt: cache.cachedAt,
    txids: cache.optimized.txidSet,
    txCount: cache.optimized.txCount,
    feeSat: cache.optimized.feeSat,
    weightWu: cache.optimized.weightWu,
    baseline: { source: b.source, txids: b.txidSet, txCount: b.txCount, feeSat: b.feeSat, weightWu: b.weightWu },
  };
}

function side(
  t: { txids: ReadonlySet<string>; txCount: number; feeSat: number; weightWu: number },
  mined: ReadonlySet<string>,
  blockFeeSat: number,
): TemplateSide {
  let overlap = 0;
  for (const txid of t.txids) if (mined.has(txid)) overlap++;
  return {
    txCount: t.txCount,
    feeSat: t.feeSat,
    weightWu: t.weightWu,
    notInBlock: t.txids.size - overlap,
    blockTxsNotInIt: mined.size - overlap,
    matchRate: t.txids.size === 0 ? 1 : overlap / t.txids.size,
    feesLeftOnTableSat: t.feeSat - blockFeeSat,
  };
}

/** The audit of `block` (verbosity 2) against `template` (the last one for its parent). Pure. */
export function auditBlock(block: BlockVerbose2, template: AuditedTemplate | undefined, auditedAt: number): BlockAudit {
  const txs = block.tx.slice(1);
  const mined = new Set(txs.map((t) => t.txid));
  const feeSat = txs.reduce((s, t) => s + btcToSats(t.fee ?? 0), 0);
  const weightWu = txs.reduce((s, t) => s + t.weight, 0);
  return {
    height: block.height,
    hash: block.hash,
    previousBlockHash: block.previousblockhash ?? '',
    time: block.time,
    auditedAt,
    block: { txCount: txs.length, feeSat, weightWu },
    optimized: template ? { ...side(template, mined, feeSat), cycle: template.cycle, cachedAt: template.cachedAt } : null,
    baseline: template ? { ...side(template.baseline, mined, feeSat), source: template.baseline.source } : null,
  };
}

export interface BlockAuditorOptions {
  mirror: MempoolMirror;
  node: BitcoinNode;
  optimizer: Pick<OptimizerService, 'on' | 'off'>;
  keep: number;
  logger?: FastifyBaseLogger;
  now?: () => number;
}

export class BlockAuditor extends EventEmitter<{ audit: [BlockAudit] }> {
  /** Newest first. */
  readonly audits: BlockAudit[] = [];
  failures = 0;
  private readonly byParent = new Map<string, AuditedTemplate>();
  private readonly pending = new Map<string, Promise<BlockAudit | null>>();
  private readonly onPublished = (cache: TemplateCache) => {
    this.byParent.delete(cache.previousBlockHash);
    this.byParent.set(cache.previousBlockHash, auditedTemplate(cache));
    while (this.byParent.size > PARENTS_KEPT) this.byParent.delete(this.byParent.keys().next().value ?? '');
  };
  private readonly onDiff = (d: MempoolDiff) => {
    for (const b of d.blocks) void this.audit(b.hash);
  };

  constructor(private readonly options: BlockAuditorOptions) {
    super();
    options.optimizer.on('published', this.onPublished);
    options.mirror.on('diff', this.onDiff);
  }

  /** The audit of a block the view saw (running or done), null when it failed. */
  audit(hash: string): Promise<BlockAudit | null> {
    const done = this.audits.find((a) => a.hash === hash);
    if (done) return Promise.resolve(done);
    let running = this.pending.get(hash);
    if (!running) {
      running = this.run(hash).finally(() => this.pending.delete(hash));
      this.pending.set(hash, running);
    }
    return running;
  }

  private async run(hash: string): Promise<BlockAudit | null> {
    const { node, keep, logger } = this.options;
    try {
      const block = await node.getBlock(hash, 2);
      const audit = auditBlock(block, this.byParent.get(block.previousblockhash ?? ''), (this.options.now ?? Date.now)());
      this.audits.unshift(audit);
      this.audits.sort((a, b) => b.height - a.height);
      this.audits.length = Math.min(this.audits.length, keep);
      this.emit('audit', audit);
      return audit;
    } catch (e) {
      this.failures += 1;
      logger?.warn({ err: e, hash }, 'block audit failed');
      return null;
    }
  }

  close(): void {
    this.options.optimizer.off('published', this.onPublished);
    this.options.mirror.off('diff', this.onDiff);
  }
}
