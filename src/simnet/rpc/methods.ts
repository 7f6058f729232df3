/** The simulated node's method table: every RPC it answers. Unknown names answer -32601. */
import { blockchainMethods } from './blockchain.js';
import { mempoolMethods } from './mempool.js';
import { miningMethods } from './mining.js';
import { networkMethods } from './network.js';
import { rawTransactionMethods } from './rawtransactions.js';
import type { MethodTable } from './rpcMethod.js';
import { utxoMethods } from './utxo.js';

export function simnetMethods(startedAtMs: number): MethodTable {
  return {
    ...blockchainMethods,
    ...mempoolMethods,
    ...rawTransactionMethods,
    ...miningMethods,
    ...utxoMethods,
    ...networkMethods(startedAtMs),
  };
}
