import { z } from 'zod';
import { defineRpcMethod, hexQuantity } from './rpcMethod.js';

/**
 * `eth_chainId` → the endpoint's chain id (hex): `RPC_CHAIN_ID`, or one derived from the Bitcoin
 * network (main 8333, test 18333, testnet4 48333, signet 38333, regtest 18444). Free; EVM client
 * libraries call it when they connect.
 */
export const ethChainId = defineRpcMethod({
  name: 'eth_chainId',
  params: z.tuple([]),
  run: async (ctx) => hexQuantity(await ctx.chainId()),
});

/** `net_version` → the same chain id as a decimal string. */
export const netVersion = defineRpcMethod({
  name: 'net_version',
  params: z.tuple([]),
  run: async (ctx) => String(await ctx.chainId()),
});
