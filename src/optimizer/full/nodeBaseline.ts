/**
 * The baseline template: the node's own `getblocktemplate` (Bitcoin Core's miner), fetched with its
 * own timeout (`BASELINE_TIMEOUT_SEC`). When it fails the cycle falls back to our native
 * re-implementation of Core v31 and says so (`baseline.source`).
 */
import { MAX_BLOCK_WEIGHT_WU } from '../../bitcoin/consensus.js';
import type { BitcoinNode } from '../../node/bitcoinNode.js';
import type { NodeBaseline } from '../cache/templateCache.js';

/** `getblocktemplate` → txids in block order and totals. Rejects on timeout or node failure. */
export async function fetchNodeBaseline(node: BitcoinNode, timeoutMs: number): Promise<NodeBaseline> {
  const gbt = await node.getBlockTemplate({ timeoutMs });
  let feeSat = 0;
  let weightWu = 0;
  let sigopCost = 0;
  const txids = gbt.transactions.map((tx) => {
    feeSat += tx.fee;
    weightWu += tx.weight;
    sigopCost += tx.sigops;
    return tx.txid;
  });
  return {
    txids,
    feeSat,
    weightWu,
    sigopCost,
    height: gbt.height,
    previousBlockHash: gbt.previousblockhash,
    coinbaseValueSat: gbt.coinbasevalue,
    weightLimitWu: gbt.weightlimit ?? MAX_BLOCK_WEIGHT_WU,
  };
}
