/**
 * What the service is called and where its descriptions live: the documents (`docs/`) and the MCP
 * server (`mcp/`) both introduce the service with these words and list the same documents.
 */
import { SERVICE_VERSION } from '../../version.js';
import type { Route } from '../define.js';

export const SERVICE_TITLE = 'Bitcoin data and fee-intelligence API';
/** The API's version in the OpenAPI and OpenRPC documents: the package's (a test keeps `SERVICE_VERSION` equal to package.json). */
export const API_VERSION = SERVICE_VERSION;
/** Where the OpenRPC document of the JSON-RPC methods is served (also by the method `rpc.discover`). */
export const OPENRPC_PATH = '/openrpc.json';
/** The MCP endpoint (Streamable HTTP). */
export const MCP_PATH = '/mcp';
export const SERVICE_SUMMARY =
  'Pay-per-request Bitcoin answers (block height, fee estimates, balances, UTXOs, transactions, mempool statistics, RBF history) and block-template intelligence from a native optimizer, as REST under /v1 and as EVM-style JSON-RPC at POST /v1/rpc. Paid per request with x402 v2 (USDC); no accounts, no API keys; non-custodial.';

/** The documents themselves, for the link lists (the registry's document routes; not the dashboard's scripts and feed). */
export function isDocument(route: Route): boolean {
  return route.kind === 'rest' && route.method === 'GET' && route.family === 'docs' && !['javascript', 'css', 'eventStream'].includes(route.content ?? 'json');
}
