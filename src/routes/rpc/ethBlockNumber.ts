import { z } from 'zod';
import { defineRpcMethod, hexQuantity } from './rpcMethod.js';

/**
 * `eth_blockNumber` → the Bitcoin tip height as a hex quantity. Calls `getblockcount`.
 * @example {"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]} → "0xcf3a1"
 */
export const ethBlockNumber = defineRpcMethod({
  name: 'eth_blockNumber',
  params: z.tuple([]),
  run: async (ctx) => hexQuantity(await ctx.deps.node.getBlockCount()),
});
