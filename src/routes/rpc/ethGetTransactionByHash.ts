import { z } from 'zod';
import { Txid } from '../schemas.js';
import { defineRpcMethod } from './rpcMethod.js';
import { evmTransaction } from './evmShapes.js';

/** A 32-byte hash, with or without `0x`. */
const Hash = z
  .string()
  .transform((s) => (s.startsWith('0x') ? s.slice(2) : s))
  .pipe(Txid);

/**
 * `eth_getTransactionByHash [txid]` → a Bitcoin transaction in EVM shape, or null when the node does
 * not know it (Ethereum semantics). Calls `getrawtransaction 2`, and `getblock 1` for its index.
 */
export const ethGetTransactionByHash = defineRpcMethod({
  name: 'eth_getTransactionByHash',
  params: z.tuple([Hash]),
  run: async (ctx, [txid]) => {
    const { node } = ctx.deps;
    const tx = await node.getRawTransaction(txid).catch((error: { code?: string }) => {
      if (error.code === 'TX_NOT_FOUND') return null;
      throw error;
    });
    if (!tx) return null;
    const chainId = await ctx.chainId();
    if (!tx.blockhash || !tx.confirmations) return evmTransaction(tx, { blockHash: null, blockHeight: null, index: null, chainId });
    const block = await node.getBlock(tx.blockhash, 1);
    return evmTransaction(tx, { blockHash: block.hash, blockHeight: block.height, index: block.tx.indexOf(txid), chainId });
  },
});
