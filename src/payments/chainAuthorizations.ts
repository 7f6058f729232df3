/**
 * The chain's truth about an EIP-3009 authorization (issue 22.2): the token's
 * `authorizationState(authorizer, nonce)`, read through the network's JSON-RPC endpoint
 * (X402_CHAIN_RPC_URLS). Used after a crash, when a re-settle of a pending payment is refused:
 * "already used" then means our first settle went through. `unknown` when no endpoint is
 * configured for the network or it does not answer (the payment then stays pending).
 *
 * The token records a cancelled authorization (`cancelAuthorization`) as used too; telling the two
 * apart needs the token's `AuthorizationUsed` / `AuthorizationCanceled` logs (not read here).
 */
import type { FastifyBaseLogger } from 'fastify';
import { createPublicClient, getAddress, http, parseAbi, type PublicClient } from 'viem';

const ABI = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']);

export type AuthorizationState = 'used' | 'unused' | 'unknown';

/** `eip155:8453=https://…,eip155:84532=https://…` → network → URL. */
export function parseChainRpcUrls(value: string | undefined): ReadonlyMap<string, string> {
  const urls = new Map<string, string>();
  for (const entry of value ? value.split(',') : []) {
    const at = entry.indexOf('=');
    urls.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return urls;
}

export class ChainAuthorizations {
  private readonly clients = new Map<string, PublicClient>();

  constructor(
    urls: ReadonlyMap<string, string>,
    timeoutMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    for (const [network, url] of urls) this.clients.set(network, createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) }));
  }

  get size(): number {
    return this.clients.size;
  }

  async state(network: string, token: string, authorizer: string, nonce: string): Promise<AuthorizationState> {
    const client = this.clients.get(network);
    if (!client || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return 'unknown';
    try {
      const used = await client.readContract({
        address: getAddress(token),
        abi: ABI,
        functionName: 'authorizationState',
        args: [getAddress(authorizer), nonce as `0x${string}`],
      });
      return used ? 'used' : 'unused';
    } catch (err) {
      // The URL may hold an API key: the network is named, never the endpoint.
      this.log.warn({ network, detail: err instanceof Error ? err.name : 'error' }, 'payments: could not read an authorization state from the chain');
      return 'unknown';
    }
  }
}
