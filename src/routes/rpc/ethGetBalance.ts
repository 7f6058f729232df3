import { z } from 'zod';
import { parseAddress } from '../../bitcoin/address.js';
import { defineRpcMethod, hexQuantity } from './rpcMethod.js';
import { BlockTag } from './blockTag.js';

/**
 * `eth_getBalance [address, blockTag?]` → balance of a **Bitcoin** address in satoshis (hex).
 * `latest` (default) counts confirmed outputs; `pending` adds the net mempool change. An EVM `0x…`
 * address is invalid params: Bitcoin has no mapping from EVM accounts.
 */
export const ethGetBalance = defineRpcMethod({
  name: 'eth_getBalance',
  params: z.union([z.tuple([z.string().min(1).max(200)]), z.tuple([z.string().min(1).max(200), BlockTag])]),
  precheck: async (ctx, [address]) => {
    parseAddress(address, await ctx.chain.network());
  },
  run: async (ctx, [address, tag = 'latest']) => {
    const parsed = parseAddress(address, await ctx.chain.network());
    const balance = await ctx.deps.addressSource.balance(parsed);
    const pending = tag === 'pending' ? (balance.unconfirmedSat ?? 0) : 0;
    return hexQuantity(Math.max(0, balance.confirmedSat + pending));
  },
});
