/** The chain id EVM clients see (`eth_chainId`, `net_version`, and the `chainId` of EVM-shaped transactions). */
import { DEFAULT_CHAIN_IDS } from '../../bitcoin/network.js';
import type { ApiContext } from '../define.js';

/** `eth_chainId` of this endpoint: `RPC_CHAIN_ID`, else one derived from the node's network. */
export async function chainId(ctx: ApiContext): Promise<number> {
  return ctx.config.RPC_CHAIN_ID ?? DEFAULT_CHAIN_IDS[await ctx.chain.network()];
}
