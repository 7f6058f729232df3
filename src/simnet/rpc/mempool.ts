/**
 * Mempool RPCs of the simulated node: `getrawmempool` (false/true, `mempool_sequence`),
 * `getmempoolentry`, `getmempoolinfo`, `getmempoolancestors`, `getmempooldescendants`. Entries
 * carry Core v31's fields (`entryToJSON`): sigop-adjusted `vsize`/`vsize_adjusted`, `vsize_bip141`,
 * `chunkweight` and `fees.chunk` (from the mining policy's linearization), ancestor and
 * descendant aggregates, plus `bip125-replaceable` as pre-v31 nodes (and v31 with
 * `-deprecatedrpc=bip125`) report it. Entry data and JSON come from `EntryInfoCache`, which only
 * recomputes the clusters a change touched.
 */
import { Btc } from '../consensus/amount.js';
import {
  CLUSTER_COUNT_LIMIT,
  CLUSTER_SIZE_LIMIT_VB,
  DEFAULT_MAX_MEMPOOL_BYTES,
  INCREMENTAL_RELAY_FEE_SAT_KVB,
  MAX_DATACARRIER_BYTES,
  MIN_RELAY_FEE_SAT_KVB,
} from '../consensus/params.js';
import { RawJson } from './coreJson.js';
import { RPC_ERROR, RpcError } from './errors.js';
import { parseHash } from './params.js';
import type { Simulator } from '../node/simulator.js';
import type { MethodTable } from './rpcMethod.js';

/** `{ txid: entry, … }` for `txids`, in that order. */
function entriesObject(sim: Simulator, txids: Iterable<string>): RawJson {
  const parts: string[] = [];
  for (const t of txids) parts.push(`"${t}":${sim.entryInfo.get(t).json}`);
  return new RawJson(`{${parts.join(',')}}`);
}

function mempoolTxid(sim: Simulator, txidParam: unknown): string {
  const txid = parseHash(txidParam, 'txid');
  if (!sim.mempool.has(txid)) throw new RpcError(RPC_ERROR.INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
  return txid;
}

function relativesOf(sim: Simulator, txidParam: unknown, verboseParam: unknown, direction: 'ancestors' | 'descendants'): unknown {
  const txid = mempoolTxid(sim, txidParam);
  const set = direction === 'ancestors' ? sim.mempool.ancestors(txid) : sim.mempool.descendants(txid);
  const ordered = [...set].sort((a, b) => sim.mempool.entry(a).sequence - sim.mempool.entry(b).sequence);
  return verboseParam === true ? entriesObject(sim, ordered) : ordered;
}

export const mempoolMethods: MethodTable = {
  getrawmempool: {
    params: [
      { name: 'verbose', type: 'bool' },
      { name: 'mempool_sequence', type: 'bool' },
    ],
    description: 'Returns all transaction ids in memory pool as a json array of string transaction ids.',
    run: ([verbose, sequence], sim) => {
      if (verbose === true) {
        if (sequence === true) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
        return new RawJson(sim.entryInfo.verboseMempool());
      }
      const parts: string[] = [];
      for (const e of sim.mempool.all()) parts.push(e.tx.txid);
      const txids = new RawJson(parts.length ? `["${parts.join('","')}"]` : '[]');
      return sequence === true ? { txids, mempool_sequence: sim.mempool.mempoolSequence } : txids;
    },
  },
  getmempoolentry: {
    params: [{ name: 'txid', type: 'string', required: true }],
    description: 'Returns mempool data for given transaction.',
    run: ([txid], sim) => {
      return new RawJson(sim.entryInfo.get(mempoolTxid(sim, txid)).json);
    },
  },
  getmempoolancestors: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'verbose', type: 'bool' },
    ],
    description: 'If txid is in the mempool, returns all in-mempool ancestors.',
    run: ([txid, verbose], sim) => relativesOf(sim, txid, verbose, 'ancestors'),
  },
  getmempooldescendants: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'verbose', type: 'bool' },
    ],
    description: 'If txid is in the mempool, returns all in-mempool descendants.',
    run: ([txid, verbose], sim) => relativesOf(sim, txid, verbose, 'descendants'),
  },
  getmempoolinfo: {
    params: [],
    description: 'Returns details on the active state of the TX memory pool.',
    run: (_args, sim) => {
      const optimal = sim.entryInfo.allClustersOptimal();
      return {
        loaded: true,
        size: sim.mempool.size,
        bytes: sim.mempool.totalVsize,
        usage: sim.mempool.usage,
        total_fee: new Btc(sim.mempool.totalFeeSat),
        maxmempool: DEFAULT_MAX_MEMPOOL_BYTES,
        mempoolminfee: new Btc(MIN_RELAY_FEE_SAT_KVB),
        minrelaytxfee: new Btc(MIN_RELAY_FEE_SAT_KVB),
        incrementalrelayfee: new Btc(INCREMENTAL_RELAY_FEE_SAT_KVB),
        unbroadcastcount: 0,
        permitbaremultisig: true,
        maxdatacarriersize: MAX_DATACARRIER_BYTES,
        limitclustercount: CLUSTER_COUNT_LIMIT,
        limitclustersize: CLUSTER_SIZE_LIMIT_VB,
        optimal,
      };
    },
  },
};
