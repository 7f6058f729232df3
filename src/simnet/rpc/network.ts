/**
 * Node-identity RPCs some clients call first: `getnetworkinfo` (a v31 node with no peers, relay
 * fees as the mempool applies them) and `uptime`.
 */
import { Btc } from '../consensus/amount.js';
import { INCREMENTAL_RELAY_FEE_SAT_KVB, MIN_RELAY_FEE_SAT_KVB } from '../consensus/params.js';
import type { MethodTable } from './rpcMethod.js';

/** The Core release the simulated node answers as. */
export const SIMULATED_VERSION = 310000;

export function networkMethods(startedAtMs: number): MethodTable {
  return {
    getnetworkinfo: {
      params: [],
      description: 'Returns an object containing various state info regarding P2P networking.',
      run: () => ({
        version: SIMULATED_VERSION,
        subversion: '/Satoshi:31.0.0(simnet)/',
        protocolversion: 70016,
        localservices: '0000000000000c09',
        localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED', 'P2P_V2'],
        localrelay: true,
        timeoffset: 0,
        networkactive: true,
        connections: 0,
        connections_in: 0,
        connections_out: 0,
        networks: [],
        relayfee: new Btc(MIN_RELAY_FEE_SAT_KVB),
        incrementalfee: new Btc(INCREMENTAL_RELAY_FEE_SAT_KVB),
        localaddresses: [],
        warnings: [],
      }),
    },
    uptime: {
      params: [],
      description: 'Returns the total uptime of the server.',
      run: () => Math.floor((Date.now() - startedAtMs) / 1000),
    },
  };
}
