import { z } from 'zod';
import { defineRpcMethod } from './rpcMethod.js';
import { BlockTag, resolveBlockTag } from './blockTag.js';
import { evmBlock } from './evmShapes.js';

/**
 * `eth_getBlockByNumber [blockTag, fullTransactions]` → a Bitcoin block in EVM shape (see
 * `evmShapes.ts`), or null above the tip (Ethereum semantics). Calls `getblockhash` + `getblock 1|2`.
 */
export const ethGetBlockByNumber = defineRpcMethod({
  name: 'eth_getBlockByNumber',
  params: z.union([z.tuple([BlockTag]), z.tuple([BlockTag, z.boolean()])]),
  run: async (ctx, [tag, full = false]) => {
    const { node } = ctx.deps;
    const height = await resolveBlockTag(node, tag);
    if (height > (await node.getBlockCount())) return null;
    const hash = await node.getBlockHash(height);
    const block = full ? await node.getBlock(hash, 2) : await node.getBlock(hash, 1);
    return evmBlock(block, await ctx.chainId());
  },
});
