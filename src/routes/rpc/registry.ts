/** Every JSON-RPC method served on `POST /v1/rpc`, by name. One file per method. */
import { ethBlockNumber } from './ethBlockNumber.js';
import { ethChainId, netVersion } from './ethChainId.js';
import { ethGasPrice } from './ethGasPrice.js';
import { ethGetBalance } from './ethGetBalance.js';
import { ethGetBlockByNumber } from './ethGetBlockByNumber.js';
import { ethGetTransactionByHash } from './ethGetTransactionByHash.js';
import type { RpcMethod } from './rpcMethod.js';

export function rpcRegistry(extra: readonly RpcMethod[] = []): ReadonlyMap<string, RpcMethod> {
  const methods = [ethBlockNumber, ethChainId, netVersion, ethGasPrice, ethGetBalance, ethGetBlockByNumber, ethGetTransactionByHash, ...extra] as RpcMethod[];
  return new Map(methods.map((m) => [m.name, m]));
}
