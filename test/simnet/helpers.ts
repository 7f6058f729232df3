/**
 * Test helpers: the two clients the service uses against a simulated node — the raw `bitcoin-core`
 * client and the typed `BitcoinNode` (whose zod schemas every answer must pass).
 */
import BitcoinCoreClient from 'bitcoin-core';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { parseRpcUrl } from '../../src/node/rpcTransport.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';

/** The subset of the `bitcoin-core` client the tests call. */
export interface CoreClient {
  command(method: string, ...params: unknown[]): Promise<unknown>;
  command(batch: Array<{ method: string; parameters?: unknown[] }>): Promise<unknown[]>;
}

export function coreClient(rpcUrl: string): CoreClient {
  const { host, username, password } = parseRpcUrl(rpcUrl);
  return new BitcoinCoreClient({ host, username, password, timeout: 30_000 });
}

export function bitcoinNode(rpcUrl: string): BitcoinNode {
  return new BitcoinNode({ url: rpcUrl, timeoutMs: 30_000, scanTimeoutMs: 30_000 });
}

/** Calls `fn` and returns the thrown error (fails the test when nothing is thrown). */
export async function rejection(fn: () => Promise<unknown>): Promise<Error & { code?: unknown; rpcCode?: number }> {
  try {
    await fn();
  } catch (error) {
    return error as Error & { code?: unknown; rpcCode?: number };
  }
  throw new Error('expected a rejection');
}

/** Satoshis of a BTC amount as Core prints it (exact for 8 decimals). */
export function sats(btc: number | string): number {
  return Math.round(Number(btc) * 1e8);
}

/** The mining policy every test node uses (Core v31 through the native optimizer). */
export const POLICY = { policyModule: CORE_V31_POLICY_MODULE } as const;

/** Small, quick simulators for tests: fewer funding coins than the default. */
export const TEST_SIM = { fundingUtxos: 4_000, ...POLICY } as const;
