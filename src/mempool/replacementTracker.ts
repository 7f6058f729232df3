/**
 * Records RBF replacements from the mempool mirror's diffs, and answers a tx's replacement history:
 * what it replaced (recursively: the whole tree of earlier versions) and what replaced it (the chain
 * of later versions up to the newest).
 */
import { isoFromUnix } from '../bitcoin/units.js';
import { round } from '../util/round.js';
import type { MempoolDiff, MempoolMirror, MirrorTx } from './mirror.js';
import type { ReplacementEvent, ReplacementSide, ReplacementStore } from './replacementStore.js';

/** One version as answers show it: `firstSeen` in ISO 8601 (stored as unix seconds). */
export interface ReplacementVersion extends Omit<ReplacementSide, 'firstSeen'> {
  firstSeen: string;
}

/** A node of the "replaces" tree: an earlier version and what it had replaced in turn. */
export interface ReplacedNode extends ReplacementVersion {
  /** ISO time our poll saw this version being replaced. */
  replacedAt: string;
  replaces: ReplacedNode[];
}

export interface ReplacementHistory {
  txid: string;
  /** The replacement that evicted this tx, if any, with what it paid beyond this tx. */
  replacedBy: (ReplacementVersion & { replacedAt: string; feeDeltaSat: number; feeRateDeltaSatVb: number }) | null;
  /** The newest version in the chain of replacements starting at this tx (itself if never replaced). */
  latestTxid: string;
  /** Earlier versions this tx replaced, as a tree. */
  replaces: ReplacedNode[];
  /** Set when this tx left the mempool because an ancestor of it was replaced. */
  evictedWithReplacementOf: string | null;
  /** Number of replacement events that touch this tx. */
  eventCount: number;
}

const MAX_TREE_NODES = 200;
const MAX_CHAIN = 100;

export class ReplacementTracker {
  private readonly onDiff = (diff: MempoolDiff): void => this.record(diff);

  constructor(
    private readonly mirror: MempoolMirror,
    readonly store: ReplacementStore,
  ) {
    mirror.on('diff', this.onDiff);
  }

  detach(): void {
    this.mirror.off('diff', this.onDiff);
  }

  private record(diff: MempoolDiff): void {
    const added = new Map(diff.added.map((tx) => [tx.txid, tx]));
    const events: ReplacementEvent[] = [];
    for (const r of diff.removed) {
      if (r.reason !== 'replaced' || !r.replacedBy) continue;
      const replacement = added.get(r.replacedBy) ?? this.mirror.txs.get(r.replacedBy);
      if (!replacement) continue;
      const descendants = diff.removed.filter((d) => d.evictedWith === r.tx.txid).map((d) => d.tx.txid);
      events.push({ replaced: side(r.tx), replacement: side(replacement), detectedAt: diff.at, evictedDescendants: descendants });
    }
    this.store.add(events);
  }

  /** The replacement history of `txid` (empty lists when none was seen). */
  history(txid: string): ReplacementHistory {
    const replacedByEvents = this.store.replacedBy(txid);
    const first = replacedByEvents[0];
    let latest = txid;
    const seen = new Set([txid]);
    for (let i = 0; i < MAX_CHAIN; i++) {
      const next = this.store.replacedBy(latest)[0]?.replacement.txid;
      if (!next || seen.has(next)) break;
      seen.add(next);
      latest = next;
    }
    const budget = { nodes: MAX_TREE_NODES };
    const replaces = this.tree(txid, budget, new Set([txid]));
    const evicted = this.store.evicting(txid)[0];
    return {
      txid,
      replacedBy: first
        ? {
            ...version(first.replacement),
            replacedAt: new Date(first.detectedAt).toISOString(),
            feeDeltaSat: first.replacement.feeSat - first.replaced.feeSat,
            feeRateDeltaSatVb: round(first.replacement.feeRateSatVb - first.replaced.feeRateSatVb),
          }
        : null,
      latestTxid: latest,
      replaces,
      evictedWithReplacementOf: evicted ? evicted.replaced.txid : null,
      eventCount: replacedByEvents.length + countNodes(replaces) + (evicted ? 1 : 0),
    };
  }

  private tree(txid: string, budget: { nodes: number }, visited: Set<string>): ReplacedNode[] {
    const out: ReplacedNode[] = [];
    for (const event of this.store.replacing(txid)) {
      if (budget.nodes <= 0 || visited.has(event.replaced.txid)) continue;
      budget.nodes -= 1;
      visited.add(event.replaced.txid);
      out.push({
        ...version(event.replaced),
        replacedAt: new Date(event.detectedAt).toISOString(),
        replaces: this.tree(event.replaced.txid, budget, visited),
      });
    }
    return out;
  }
}

function side(tx: MirrorTx): ReplacementSide {
  return { txid: tx.txid, feeSat: tx.feeSat, vsize: tx.vsize, feeRateSatVb: round(tx.feeSat / tx.vsize), firstSeen: tx.time };
}

function version(side: ReplacementSide): ReplacementVersion {
  return { ...side, firstSeen: isoFromUnix(side.firstSeen) };
}

function countNodes(nodes: ReplacedNode[]): number {
  return nodes.reduce((n, node) => n + 1 + countNodes(node.replaces), 0);
}
