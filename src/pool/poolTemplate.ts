/**
 * The optimized template in `getblocktemplate` form (BIP 22/23/9/141), for the operator's pool:
 * the node's own template with its header fields kept (version, bits, curtime, rules, target …)
 * and its transactions, `coinbasevalue` and `default_witness_commitment` replaced by the
 * optimized template's. Raw transactions come from the node (its template's `data`, else
 * `getrawtransaction`), never made up; `hash` is the wtxid of that data, and the commitment is
 * computed over those hashes. When the optimized template cannot be served as it is (none yet,
 * built on another tip, a transaction gone from the node), the node's template is served
 * unchanged, with the reason.
 */
import { wtxidOfRaw, witnessCommitmentScript } from '../bitcoin/witness.js';
import type { MirrorTx } from '../mempool/mirrorTx.js';
import type { BlockTemplate } from '../node/schemas.js';
import type { TemplateCache } from '../optimizer/cache/templateCache.js';

type CoreTx = BlockTemplate['transactions'][number];

export interface PoolTemplateInputs {
  /** The node's `getblocktemplate` answer, as parsed (unknown fields kept). */
  node: BlockTemplate;
  cache: TemplateCache | undefined;
  /** A transaction of the mempool view. */
  txOf: (txid: string) => MirrorTx | undefined;
  /** `getrawtransaction` for the transactions the node's template does not hold; unknown ones absent. */
  fetchRaw: (txids: readonly string[]) => Promise<Map<string, string>>;
}

export type PoolTemplate =
  | { source: 'optimized'; template: BlockTemplate; cycle: number; feeSat: number; nodeFeeSat: number }
  | { source: 'node'; template: BlockTemplate; reason: string; nodeFeeSat: number };

/** O(template) plus one batched node call for the transactions Core did not pick. */
export async function poolTemplate({ node, cache, txOf, fetchRaw }: PoolTemplateInputs): Promise<PoolTemplate> {
  const nodeFeeSat = node.transactions.reduce((sum, t) => sum + t.fee, 0);
  const fallback = (reason: string): PoolTemplate => ({ source: 'node', template: node, reason, nodeFeeSat });
  if (!cache) return fallback('no optimized template yet');
  if (cache.previousBlockHash !== node.previousblockhash)
    return fallback(`the optimized template is for parent ${cache.previousBlockHash}, the node is on ${node.previousblockhash}`);
  const core = new Map<string, CoreTx>(node.transactions.map((t) => [t.txid, t]));
  const txids = cache.optimized.txids;
  const missing = txids.filter((txid) => !core.has(txid));
  for (const txid of missing) if (!txOf(txid)) return fallback(`transaction ${txid} left the mempool`);
  const raws = missing.length > 0 ? await fetchRaw(missing) : new Map<string, string>();
  const position = new Map(txids.map((txid, k) => [txid, k + 1]));
  const transactions: CoreTx[] = [];
  let feeSat = 0;
  for (const txid of txids) {
    const known = core.get(txid);
    const tx = txOf(txid);
    const data = known?.data ?? raws.get(txid);
    if (data === undefined) return fallback(`the node no longer has transaction ${txid}`);
    const parents = tx ? tx.parents : (known?.depends ?? []).map((k) => node.transactions[k - 1]?.txid ?? '');
    const depends = parents
      .map((p) => position.get(p))
      .filter((k): k is number => k !== undefined)
      .sort((a, b) => a - b);
    // Base fees (what the coinbase may claim), as the node states them; the view's for the others.
    const fee = known?.fee ?? tx?.feeSat ?? 0;
    feeSat += fee;
    transactions.push({
      data,
      txid,
      hash: known?.hash ?? wtxidOfRaw(data),
      depends,
      fee,
      // The node's count when it picked the tx too; else the lower bound the mempool view implies (docs/mining.md).
      sigops: known?.sigops ?? tx?.sigopCostLowerBound ?? 0,
      weight: known?.weight ?? tx?.weight ?? 0,
    });
  }
  const subsidySat = node.coinbasevalue - nodeFeeSat;
  const template: BlockTemplate = {
    ...node,
    transactions,
    coinbasevalue: subsidySat + feeSat,
    default_witness_commitment: witnessCommitmentScript(transactions.map((t) => t.hash)),
  };
  return { source: 'optimized', template, cycle: cache.cycle, feeSat, nodeFeeSat };
}
