/**
 * The JSON-RPC endpoint itself (`POST /v1/rpc`, priced per call: a batch costs the sum of its
 * calls) and the methods EVM client libraries call when they connect (`eth_chainId`,
 * `net_version`: free).
 */
import { z } from 'zod';
import { defineJsonRpcRoute, defineRpcMethod, type ApiContext } from '../define.js';
import { HexQuantity } from '../schemas.js';
import { chainId } from '../shared/chainId.js';
import { hexQuantity } from '../shared/hex.js';

const Id = z.union([z.string().max(256), z.number(), z.null()]);

/** One call of a JSON-RPC 2.0 request (the body is one call or a batch of them). */
export const JsonRpcCall = z.object({
  jsonrpc: z.literal('2.0'),
  /** Omitted: a notification, which gets no answer. */
  id: Id.optional(),
  method: z.string().min(1).max(128),
  /** Default `[]`; the `svc_*` methods take one object element. */
  params: z.unknown().optional(),
});

const JsonRpcResponse = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: Id, result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: Id, error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) }),
]);

export const rpcRoutes = [
  defineJsonRpcRoute({
    family: 'rpc',
    method: 'POST',
    path: '/v1/rpc',
    summary: 'EVM-style JSON-RPC 2.0 (eth_* and svc_* methods); batches priced as the sum of their calls',
    description:
      'JSON-RPC 2.0 envelopes and batches; errors travel with HTTP 200 as Ethereum nodes do: -32700 parse, -32600 invalid request, -32601 unknown method, -32602 invalid params, -32603 internal, -32000 node or cache unavailable (data.retryAfterSeconds), -32001 not found. Invalid calls are answered for free; the 402 challenge prices the valid calls of the body. A notification (no id) gets no answer (HTTP 204 when the body holds nothing else).',
    body: z.union([JsonRpcCall, z.array(JsonRpcCall)]),
    response: z.union([JsonRpcResponse, z.array(JsonRpcResponse)]),
    errors: [],
    example: { body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, response: { jsonrpc: '2.0', id: 1, result: '0xcf850' } },
  }),
];

/** `eth_chainId` */
async function ethChainId(ctx: ApiContext): Promise<string> {
  return hexQuantity(await chainId(ctx));
}

/** `net_version` */
async function netVersion(ctx: ApiContext): Promise<string> {
  return String(await chainId(ctx));
}

export const rpcMethods = [
  defineRpcMethod({
    family: 'rpc',
    name: 'eth_chainId',
    price: 'free',
    summary: 'The endpoint’s chain id (hex): RPC_CHAIN_ID, else the network’s P2P port (main 8333, regtest 18444, …)',
    params: z.tuple([]),
    result: HexQuantity,
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [], result: '0x208d' },
  }).run(ethChainId),
  defineRpcMethod({
    family: 'rpc',
    name: 'net_version',
    price: 'free',
    summary: 'The same chain id as a decimal string',
    params: z.tuple([]),
    result: z.string().regex(/^\d+$/),
    errors: ['NODE_UNAVAILABLE', 'NODE_TIMEOUT'],
    example: { params: [], result: '8333' },
  }).run(netVersion),
];
