/** Bitcoin networks as Core names them (`getblockchaininfo.chain`), and what we derive from each. */

export const NETWORK_NAMES = ['main', 'test', 'testnet4', 'signet', 'regtest'] as const;

export type NetworkName = (typeof NETWORK_NAMES)[number];

export function isNetworkName(chain: string): chain is NetworkName {
  return (NETWORK_NAMES as readonly string[]).includes(chain);
}

/**
 * Default `eth_chainId` of `/v1/rpc` per network: the network's P2P port, a number Bitcoin people
 * recognise (overridden by `RPC_CHAIN_ID`).
 */
export const DEFAULT_CHAIN_IDS: Readonly<Record<NetworkName, number>> = { main: 8333, test: 18333, testnet4: 48333, signet: 38333, regtest: 18444 };
