/** An address as the Bitcoin reads take it: parsed and checked against the node's network, before payment. */
import { parseAddress, type ParsedAddress } from '../../bitcoin/address.js';
import type { ErrorCode } from '../../errors.js';
import type { ApiContext } from '../define.js';

/** What an address lookup can answer besides success (balance, UTXOs, eth_getBalance). */
export const ADDRESS_ERRORS: readonly ErrorCode[] = [
  'INVALID_ADDRESS',
  'WRONG_NETWORK_ADDRESS',
  'ADDRESS_SOURCE_UNAVAILABLE',
  'NODE_UNAVAILABLE',
  'NODE_TIMEOUT',
];

/** The address, checked against the node's network (400 `WRONG_NETWORK_ADDRESS` / `INVALID_ADDRESS`). */
export async function address(ctx: ApiContext, raw: string): Promise<ParsedAddress> {
  return parseAddress(raw, await ctx.chain.network());
}
