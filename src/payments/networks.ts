/**
 * The networks we accept payment on and the token each one pays in (USDC, 6 decimals).
 *
 * The EIP-712 domain (`name`, `version`, `chainId`, `verifyingContract = asset`) is OURS: signatures
 * are checked against this table, never against the `extra` a client echoes back (research/x402.md
 * §2.1). Addresses and domains are those of `@x402/evm` 2.27.0 `DEFAULT_ASSETS`; World Chain is not
 * a default asset anywhere, so it comes from configuration and is always offered last.
 */
import { getAddress, type Address } from 'viem';
import type { Config } from '../config.js';

export interface PaymentNetwork {
  /** CAIP-2 id, `eip155:<chainId>`. */
  network: `eip155:${number}`;
  chainId: number;
  label: string;
  /** Token contract (checksummed); also the EIP-712 `verifyingContract`. */
  asset: Address;
  /** EIP-712 domain name and version of the token. */
  name: string;
  version: string;
  /** Atomic units per token (USDC: 6). */
  decimals: number;
  testnet: boolean;
}

type BuiltIn = Omit<PaymentNetwork, 'network' | 'chainId'>;

/** Built-in USDC table by chain id. */
const BUILT_IN: ReadonlyMap<number, BuiltIn> = new Map([
  [8453, { label: 'Base', asset: getAddress('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'), name: 'USD Coin', version: '2', decimals: 6, testnet: false }],
  [137, { label: 'Polygon PoS', asset: getAddress('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'), name: 'USD Coin', version: '2', decimals: 6, testnet: false }],
  [
    42161,
    { label: 'Arbitrum One', asset: getAddress('0xaf88d065e77c8cC2239327C5EDb3A432268e5831'), name: 'USD Coin', version: '2', decimals: 6, testnet: false },
  ],
  [
    84532,
    {
      label: 'Base Sepolia (testnet)',
      asset: getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e'),
      name: 'USDC',
      version: '2',
      decimals: 6,
      testnet: true,
    },
  ],
]);

export const WORLD_CHAIN_ID = 480;

/**
 * The configured networks in challenge order: as listed in `X402_NETWORKS`, except that World
 * Chain always goes last (stock clients do not know its token and pay the first entry they can).
 * Complexity: O(n) for n configured networks.
 */
export function resolveNetworks(
  config: Pick<Config, 'X402_NETWORKS' | 'X402_WORLDCHAIN_ASSET' | 'X402_WORLDCHAIN_ASSET_NAME' | 'X402_WORLDCHAIN_ASSET_VERSION'>,
): PaymentNetwork[] {
  const out: PaymentNetwork[] = [];
  let world: PaymentNetwork | undefined;
  for (const id of config.X402_NETWORKS.split(',')) {
    const chainId = Number(id.slice('eip155:'.length));
    if (chainId === WORLD_CHAIN_ID) {
      world = {
        network: `eip155:${chainId}`,
        chainId,
        label: 'World Chain',
        asset: getAddress(config.X402_WORLDCHAIN_ASSET),
        name: config.X402_WORLDCHAIN_ASSET_NAME,
        version: config.X402_WORLDCHAIN_ASSET_VERSION,
        decimals: 6,
        testnet: false,
      };
      continue;
    }
    const known = BUILT_IN.get(chainId);
    // config.ts already refuses unknown ids; this guards direct callers.
    if (!known) throw new Error(`no built-in asset for ${id}`);
    out.push({ network: `eip155:${chainId}`, chainId, ...known });
  }
  if (world) out.push(world);
  return out;
}
