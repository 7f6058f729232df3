/**
 * Per-entry data of the verbose mempool RPCs (ancestor/descendant aggregates, chunk fee and
 * weight, BIP125 signalling) and the entry's serialized JSON, maintained incrementally.
 *
 * All of it depends only on the entry's cluster, so a mempool change only invalidates the
 * clusters it touches: an arrival dirties its (new) cluster, a removal the clusters of the removed
 * transactions' remaining neighbours. Dirty clusters are recomputed on demand — relatives by
 * walking the cluster, chunks by running the node's `MempoolPolicy` on the cluster alone (the policy's
 * chunks are a per-cluster property; singletons need no run). `getrawmempool true` on 50,000
 * entries then costs the changed clusters plus one concatenation.
 * Invariant: every entry not in `dirty` has an up-to-date `info` record.
 */
import { btcString } from '../consensus/amount.js';
import { diagramGraph } from '../../bitcoin/feerateDiagram.js';
import type { MempoolPolicy } from './policy.js';
import { at } from '../../util/at.js';
import type { Mempool, MempoolEntry, MempoolListener } from './mempool.js';
import { sigopAdjustedWeight } from '../../bitcoin/sigops.js';

export interface EntryInfo {
  ancestorCount: number;
  ancestorSize: number;
  ancestorFeeSat: number;
  descendantCount: number;
  descendantSize: number;
  descendantFeeSat: number;
  chunkFeeSat: number;
  chunkWeightWu: number;
  /** The tx or an in-mempool ancestor signals BIP125 (Core's `IsRBFOptIn`). */
  replaceable: boolean;
  clusterSize: number;
  /** The cluster's linearization is proven optimal. */
  clusterOptimal: boolean;
  /** Core's `entryToJSON` of this entry. */
  json: string;
}

export class EntryInfoCache implements MempoolListener {
  private readonly info = new Map<string, EntryInfo>();
  private readonly dirty = new Set<string>();
  /** Entries whose cluster's linearization is not proven optimal. */
  private unprovenMembers = 0;
  private verbose: { version: number; json: readonly string[] } | undefined;
  /**
   * The verbose answer is kept in pieces of `PIECE_SIZE` consecutive entry sequence numbers; a
   * change rebuilds only the pieces whose members were added, removed or recomputed.
   */
  private readonly pieces = new Map<number, string>();
  private readonly dirtyPieces = new Set<number>();

  constructor(
    private readonly mempool: Mempool,
    private readonly policy: MempoolPolicy,
  ) {
    mempool.listen(this);
    for (const e of mempool.all()) {
      this.dirty.add(e.tx.txid);
      this.dirtyPieces.add(pieceOf(e));
    }
  }

  added(entry: MempoolEntry): void {
    this.dirtyPieces.add(pieceOf(entry));
    for (const t of this.mempool.cluster(entry.tx.txid)) this.dirty.add(t);
  }

  removed(entries: readonly MempoolEntry[]): void {
    for (const e of entries) {
      this.dirtyPieces.add(pieceOf(e));
      this.forget(e.tx.txid);
    }
    for (const e of entries) {
      for (const n of [...e.parents, ...e.children]) {
        if (this.mempool.has(n) && !this.dirty.has(n)) for (const t of this.mempool.cluster(n)) this.dirty.add(t);
      }
    }
  }

  private forget(txid: string): void {
    const old = this.info.get(txid);
    if (old && !old.clusterOptimal) this.unprovenMembers--;
    this.info.delete(txid);
    this.dirty.delete(txid);
  }

  /** Up-to-date data of mempool entry `txid`. Precondition: it is in the mempool. Complexity: O(1) or one cluster. */
  get(txid: string): EntryInfo {
    const known = this.dirty.has(txid) ? undefined : this.info.get(txid);
    if (known) return known;
    this.computeCluster(txid);
    const info = this.info.get(txid);
    if (!info) throw new Error(`${txid} is not in the mempool`);
    return info;
  }

  /** Whether every cluster's linearization is proven optimal (`getmempoolinfo.optimal`). */
  allClustersOptimal(): boolean {
    this.refreshAll();
    return this.unprovenMembers === 0;
  }

  /**
   * `{ txid: entry, … }` of the whole mempool in entry order, as consecutive pieces of one JSON text
   * (large: sent as they are, never re-serialized), cached per mempool version.
   */
  verboseMempool(): readonly string[] {
    if (this.verbose?.version === this.mempool.version) return this.verbose.json;
    this.refreshAll();
    if (this.dirtyPieces.size) {
      // Entries iterate in sequence order, so each piece's members are consecutive.
      const rebuilt = new Map<number, string[]>();
      for (const e of this.mempool.all()) {
        const k = pieceOf(e);
        if (!this.dirtyPieces.has(k)) continue;
        let parts = rebuilt.get(k);
        if (!parts) rebuilt.set(k, (parts = []));
        parts.push(`"${e.tx.txid}":${this.get(e.tx.txid).json}`);
      }
      for (const k of this.dirtyPieces) {
        const parts = rebuilt.get(k);
        if (parts) this.pieces.set(k, parts.join(','));
        else this.pieces.delete(k);
      }
      this.dirtyPieces.clear();
    }
    const out: string[] = ['{'];
    for (const [, piece] of [...this.pieces].sort((a, b) => a[0] - b[0])) {
      if (out.length > 1) out.push(',');
      out.push(piece);
    }
    out.push('}');
    this.verbose = { version: this.mempool.version, json: out };
    return out;
  }

  private refreshAll(): void {
    for (const txid of [...this.dirty]) if (this.dirty.has(txid)) this.computeCluster(txid);
  }

  /**
   * Recomputes dirty clusters for at most `budgetMs` (the worker calls this when idle, so the
   * next verbose answer finds the cache warm). Returns whether work remains.
   */
  refreshSome(budgetMs: number): boolean {
    const deadline = performance.now() + budgetMs;
    for (const txid of this.dirty) {
      this.computeCluster(txid);
      if (performance.now() > deadline) break;
    }
    return this.dirty.size > 0;
  }

  private computeCluster(txid: string): void {
    const self = this.mempool.entry(txid);
    if (self.parents.size === 0 && self.children.size === 0) {
      // A singleton is its own chunk, ancestors and descendants (true for any linearization).
      const info: Omit<EntryInfo, 'json'> = {
        ancestorCount: 1,
        ancestorSize: self.vsizeAdjusted,
        ancestorFeeSat: self.feeSat,
        descendantCount: 1,
        descendantSize: self.vsizeAdjusted,
        descendantFeeSat: self.feeSat,
        chunkFeeSat: self.feeSat,
        chunkWeightWu: sigopAdjustedWeight(self.tx.weight, self.sigopCost),
        replaceable: self.signalsRbf,
        clusterSize: 1,
        clusterOptimal: true,
      };
      this.forget(txid);
      this.info.set(txid, { ...info, json: entryJson(self, info) });
      this.dirtyPieces.add(pieceOf(self));
      return;
    }
    const members = [...this.mempool.cluster(txid)].map((t) => this.mempool.entry(t));
    const chunks = chunkData(members, this.policy);
    const byTxid = new Map(members.map((e) => [e.tx.txid, e]));
    members.forEach((e, k) => {
      const anc = walk(byTxid, e, 'parents');
      const desc = walk(byTxid, e, 'children');
      let replaceable = e.signalsRbf;
      for (const a of anc) replaceable ||= a.signalsRbf;
      const info: Omit<EntryInfo, 'json'> = {
        ancestorCount: anc.length + 1,
        ancestorSize: anc.reduce((s, a) => s + a.vsizeAdjusted, e.vsizeAdjusted),
        ancestorFeeSat: anc.reduce((s, a) => s + a.feeSat, e.feeSat),
        descendantCount: desc.length + 1,
        descendantSize: desc.reduce((s, d) => s + d.vsizeAdjusted, e.vsizeAdjusted),
        descendantFeeSat: desc.reduce((s, d) => s + d.feeSat, e.feeSat),
        chunkFeeSat: at(chunks.fee, k),
        chunkWeightWu: at(chunks.weight, k),
        replaceable,
        clusterSize: members.length,
        clusterOptimal: chunks.optimal,
      };
      this.forget(e.tx.txid);
      if (!chunks.optimal) this.unprovenMembers++;
      this.info.set(e.tx.txid, { ...info, json: entryJson(e, info) });
      this.dirtyPieces.add(pieceOf(e));
    });
  }
}

const PIECE_SIZE = 2000;

function pieceOf(e: MempoolEntry): number {
  return Math.floor(e.sequence / PIECE_SIZE);
}

/** Chunk fee and weight of each member (aligned with `members`). */
function chunkData(members: readonly MempoolEntry[], policy: MempoolPolicy): { fee: ArrayLike<number>; weight: ArrayLike<number>; optimal: boolean } {
  const [e] = members;
  if (e && members.length === 1) {
    return { fee: [e.feeSat], weight: [sigopAdjustedWeight(e.tx.weight, e.sigopCost)], optimal: true };
  }
  const result = policy(
    diagramGraph(members.map((e) => ({ txid: e.tx.txid, feeSat: e.feeSat, weightWu: e.tx.weight, sigopCost: e.sigopCost, parents: [...e.parents] }))),
  );
  return { fee: result.txChunkFeeSat, weight: result.txChunkWeightWu, optimal: result.optimal };
}

/** In-cluster ancestors or descendants of `from` (excluding it). */
function walk(cluster: ReadonlyMap<string, MempoolEntry>, from: MempoolEntry, links: 'parents' | 'children'): MempoolEntry[] {
  const seen = new Set<string>();
  const out: MempoolEntry[] = [];
  const stack = [from];
  for (let current = stack.pop(); current; current = stack.pop()) {
    for (const t of current[links]) {
      if (seen.has(t)) continue;
      seen.add(t);
      const e = cluster.get(t);
      if (!e) continue;
      out.push(e);
      stack.push(e);
    }
  }
  return out;
}

/** Core's `entryToJSON` field order, as one template string (cheap to build 50,000 times). */
function entryJson(e: MempoolEntry, r: Omit<EntryInfo, 'json'>): string {
  return (
    `{"vsize_adjusted":${e.vsizeAdjusted},"vsize":${e.vsizeAdjusted},"vsize_bip141":${e.tx.vsize},"weight":${e.tx.weight},` +
    `"time":${e.time},"height":${e.height},"descendantcount":${r.descendantCount},"descendantsize":${r.descendantSize},` +
    `"ancestorcount":${r.ancestorCount},"ancestorsize":${r.ancestorSize},"wtxid":"${e.tx.wtxid}","chunkweight":${r.chunkWeightWu},` +
    `"fees":{"base":${btcString(e.feeSat)},"modified":${btcString(e.feeSat)},"ancestor":${btcString(r.ancestorFeeSat)},` +
    `"descendant":${btcString(r.descendantFeeSat)},"chunk":${btcString(r.chunkFeeSat)}},` +
    `"depends":[${txidList(e.parents)}],"spentby":[${txidList(e.children)}],` +
    `"unbroadcast":false,"bip125-replaceable":${r.replaceable}}`
  );
}

/** Sorted, as Core's `std::set<std::string>` of depends (and, for stability, spentby). */
function txidList(txids: ReadonlySet<string>): string {
  if (txids.size === 0) return '';
  const list = txids.size > 1 ? [...txids].sort() : [...txids];
  return `"${list.join('","')}"`;
}
