/**
 * Reads what the planner needs from the node (fresh, not the mirror: a plan must match what the
 * node accepts now) and the optimizer cache: the entry, its ancestors, descendants and whole
 * cluster, the decoded transaction with which outputs are already spent, and `getmempoolinfo`.
 * About 5 to 7 node round trips for a transaction in the mempool.
 */
import { WITNESS_SCALE_FACTOR } from '../bitcoin/consensus.js';
import type { Chunker } from '../bitcoin/feerateDiagram.js';
import { CLUSTER_COUNT_LIMIT, CLUSTER_SIZE_LIMIT_VB, LEGACY_RELAY_FEE_SAT_KVB } from '../bitcoin/policy.js';
import { sigopCostFromVsize } from '../bitcoin/sigops.js';
import { btcToSats, feeRateSatVbOfWeight } from '../bitcoin/units.js';
import { effectiveFeeRate } from '../fees/effectiveFeeRate.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { MempoolEntry, MempoolInfo } from '../node/schemas.js';
import { txChunkFeeRate, txProjectedPlacement, type TemplateCache } from '../optimizer/cache/templateCache.js';
import type { BumpInputs, NodePolicy, PlanOutput, PlanTx, ProjectedBlockCutoff, TargetRate, TxStatus } from './types.js';

/** Clusters of older nodes are unbounded; the planner reads at most this many transactions of one. */
const MAX_CLUSTER_READ = 1_000;

export interface GatherContext {
  node: BitcoinNode;
  cache: TemplateCache | undefined;
  /** The optimizer cache's projected blocks as cutoffs (full or not). */
  projectedBlocks: readonly ProjectedBlockCutoff[];
  /** The txid that replaced `txid`, from the replacement history, if one was seen. */
  replacedBy(txid: string): string | null;
  chunker?: Chunker;
}

const isNotFound = (error: unknown, code: string): boolean => (error as { code?: unknown }).code === code;

export function nodePolicy(info: MempoolInfo, v31: boolean): NodePolicy {
  return {
    incrementalRelaySatKvb: info.incrementalrelayfee !== undefined ? btcToSats(info.incrementalrelayfee) : LEGACY_RELAY_FEE_SAT_KVB,
    minRelaySatKvb: btcToSats(info.minrelaytxfee),
    mempoolMinSatKvb: btcToSats(info.mempoolminfee),
    clusterCountLimit: info.limitclustercount ?? CLUSTER_COUNT_LIMIT,
    clusterSizeLimitVb: info.limitclustersize ?? CLUSTER_SIZE_LIMIT_VB,
    generation: v31 || info.limitclustercount !== undefined ? 'v31' : 'pre_v31',
  };
}

function planTx(txid: string, e: MempoolEntry, cache: TemplateCache | undefined): PlanTx {
  const vsize = Math.max(e.vsize, e.vsize_adjusted ?? 0);
  const weightWu = e.weight ?? vsize * WITNESS_SCALE_FACTOR;
  const sigopCost = sigopCostFromVsize(vsize, weightWu);
  const feeSat = btcToSats(e.fees.modified);
  const nodeChunk = e.fees.chunk !== undefined && e.chunkweight ? feeRateSatVbOfWeight(btcToSats(e.fees.chunk), e.chunkweight) : undefined;
  const chunkRateSatVb = nodeChunk ?? (cache ? txChunkFeeRate(cache, txid) : undefined) ?? feeSat / vsize;
  return { txid, feeSat, vsize, weightWu, sigopCost, parents: [...e.depends], chunkRateSatVb };
}

/** Every entry of the cluster of `seed` (ancestors and descendants already known), by walking depends/spentby. */
async function clusterOf(node: BitcoinNode, known: Map<string, MempoolEntry>): Promise<Map<string, MempoolEntry>> {
  let frontier = [...known.values()].flatMap((e) => [...e.depends, ...e.spentby]).filter((t) => !known.has(t));
  while (frontier.length > 0 && known.size < MAX_CLUSTER_READ) {
    const wanted = [...new Set(frontier)].slice(0, MAX_CLUSTER_READ - known.size);
    const entries = await node.getMempoolEntries(wanted);
    for (const [txid, e] of entries) known.set(txid, e);
    frontier = [...entries.values()].flatMap((e) => [...e.depends, ...e.spentby]).filter((t) => !known.has(t));
  }
  return known;
}

async function status(ctx: GatherContext, txid: string): Promise<TxStatus> {
  try {
    const raw = await ctx.node.getRawTransaction(txid);
    if ((raw.confirmations ?? 0) > 0) return { kind: 'confirmed', confirmations: raw.confirmations ?? 0, blockHash: raw.blockhash ?? null };
  } catch (error) {
    if (!isNotFound(error, 'TX_NOT_FOUND')) throw error;
  }
  const by = ctx.replacedBy(txid);
  return by !== null ? { kind: 'replaced', by } : { kind: 'not_found' };
}

/** The planner's inputs for `txid` with target `target` (already chosen by the caller). */
export async function gatherBumpInputs(ctx: GatherContext, txid: string, target: TargetRate): Promise<BumpInputs> {
  const { node, cache } = ctx;
  const infoP = node.getMempoolInfo();
  // Awaited below; if the entry fails first, this rejection must not go unhandled.
  infoP.catch(() => undefined);
  let entry: MempoolEntry;
  try {
    entry = await node.getMempoolEntry(txid);
  } catch (error) {
    if (!isNotFound(error, 'TX_NOT_IN_MEMPOOL')) throw error;
    const info = await infoP;
    return { txid, status: await status(ctx, txid), policy: nodePolicy(info, false), target, projection: { blocks: ctx.projectedBlocks, currentBlock: null } };
  }
  const [info, ancestors, descendants, raw] = await Promise.all([
    infoP,
    node.getMempoolAncestors(txid),
    node.getMempoolDescendants(txid),
    node.getRawTransaction(txid),
  ]);
  const known = new Map<string, MempoolEntry>([[txid, entry], ...Object.entries(ancestors), ...Object.entries(descendants)]);
  const cluster = await clusterOf(node, known);
  const children = await node.getRawTransactionsVerbose(entry.spentby);
  const spentBy = new Map<number, string>();
  for (const [child, tx] of children) for (const vin of tx.vin) if (vin.txid === txid && vin.vout !== undefined) spentBy.set(vin.vout, child);
  const outputs: PlanOutput[] = raw.vout.map((o) => ({
    n: o.n,
    valueSat: btcToSats(o.value),
    scriptType: o.scriptPubKey.type,
    address: o.scriptPubKey.address ?? null,
    spentBy: spentBy.get(o.n) ?? null,
  }));
  const tx = planTx(txid, entry, cache);
  const liveChunk = entry.fees.chunk !== undefined && entry.chunkweight ? { feeSat: btcToSats(entry.fees.chunk), weightWu: entry.chunkweight } : null;
  const effective = effectiveFeeRate({
    own: { feeSat: tx.feeSat, vsize: tx.vsize },
    liveNodeChunk: liveChunk,
    optimizerChunkRateSatVb: cache ? txChunkFeeRate(cache, txid) : null,
    packages: {
      ancestorFeeSat: btcToSats(entry.fees.ancestor),
      ancestorVsize: entry.ancestorsize,
      descendantFeeSat: btcToSats(entry.fees.descendant),
      descendantVsize: entry.descendantsize,
    },
  });
  const placement = cache ? txProjectedPlacement(cache, txid) : undefined;
  return {
    txid,
    status: { kind: 'mempool' },
    mempool: {
      tx: { ...tx, version: raw.version, vsizeBip141: Math.ceil(tx.weightWu / WITNESS_SCALE_FACTOR) },
      inputs: raw.vin.filter((i) => i.txid !== undefined).map((i) => `${i.txid}:${i.vout}`),
      outputs,
      ancestors: Object.entries(ancestors).map(([t, e]) => planTx(t, e, cache)),
      descendants: Object.entries(descendants).map(([t, e]) => planTx(t, e, cache)),
      cluster: [...cluster].map(([t, e]) => planTx(t, e, cache)),
      effectiveRate: { satVb: effective.satVb, source: effective.source },
    },
    policy: nodePolicy(info, entry.fees.chunk !== undefined),
    target,
    projection: { blocks: ctx.projectedBlocks, currentBlock: placement && !placement.beyond ? placement.block : null },
    ...(ctx.chunker ? { chunker: ctx.chunker } : {}),
  };
}
