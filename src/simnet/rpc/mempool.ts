/**
 * Mempool RPCs of the simulated node: `getrawmempool` (false/true, `mempool_sequence`),
 * `getmempoolentry`, `getmempoolinfo`, `getmempoolancestors`, `getmempooldescendants`. Entries
 * carry Core v31's fields (`entryToJSON`): sigop-adjusted `vsize`/`vsize_adjusted`, `vsize_bip141`,
 * `chunkweight` and `fees.chunk` (from the mining policy's linearization), ancestor and
 * descendant aggregates, plus `bip125-replaceable` as pre-v31 nodes (and v31 with
 * `-deprecatedrpc=bip125`) report it. Entry JSON is built once per mempool version and cached:
 * `getrawmempool true` on 50,000 entries serializes them once per change.
 */
import { Btc, btcString } from '../amount.js';
import {
  CLUSTER_COUNT_LIMIT,
  CLUSTER_SIZE_LIMIT_VB,
  DEFAULT_MAX_MEMPOOL_BYTES,
  INCREMENTAL_RELAY_FEE_SAT_KVB,
  MAX_DATACARRIER_BYTES,
  MIN_RELAY_FEE_SAT_KVB,
} from '../consensus.js';
import { RawJson } from '../coreJson.js';
import type { MempoolView } from '../mempoolView.js';
import { RPC_ERROR, RpcError } from '../rpcErrors.js';
import { parseHash } from '../rpcParams.js';
import type { Simulator } from '../simulator.js';
import type { MethodTable } from './rpcMethod.js';

/** Serialized entry `i` of `view` (Core's `entryToJSON` field order). */
function entryJson(view: MempoolView, i: number): string {
  const cache = view.cached('entry-json', () => new Array<string | undefined>(view.size));
  const hit = cache[i];
  if (hit !== undefined) return hit;
  const e = view.entries[i]!;
  const r = view.relatives;
  const p = view.policy;
  const depends = [...e.parents].sort();
  const spentby = [...e.children].sort();
  const json =
    `{"vsize_adjusted":${e.vsizeAdjusted},"vsize":${e.vsizeAdjusted},"vsize_bip141":${e.tx.vsize},"weight":${e.tx.weight},` +
    `"time":${e.time},"height":${e.height},"descendantcount":${r.descendantCount[i]},"descendantsize":${r.descendantSize[i]},` +
    `"ancestorcount":${r.ancestorCount[i]},"ancestorsize":${r.ancestorSize[i]},"wtxid":"${e.tx.wtxid}","chunkweight":${p.txChunkWeightWu[i]},` +
    `"fees":{"base":${btcString(e.feeSat)},"modified":${btcString(e.feeSat)},"ancestor":${btcString(r.ancestorFeeSat[i]!)},` +
    `"descendant":${btcString(r.descendantFeeSat[i]!)},"chunk":${btcString(p.txChunkFeeSat[i]!)}},` +
    `"depends":[${depends.map((t) => `"${t}"`).join(',')}],"spentby":[${spentby.map((t) => `"${t}"`).join(',')}],` +
    `"unbroadcast":false,"bip125-replaceable":${r.replaceable[i] ? 'true' : 'false'}}`;
  cache[i] = json;
  return json;
}

function entryIndex(view: MempoolView, txidParam: unknown): number {
  const i = view.index.get(parseHash(txidParam, 'txid'));
  if (i === undefined) throw new RpcError(RPC_ERROR.INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
  return i;
}

/** `{ txid: entry, … }` for `txids` (in the given order). */
function entriesObject(view: MempoolView, indices: Iterable<number>): RawJson {
  const parts: string[] = [];
  for (const i of indices) parts.push(`"${view.entries[i]!.tx.txid}":${entryJson(view, i)}`);
  return new RawJson(`{${parts.join(',')}}`);
}

function relativesOf(sim: Simulator, txidParam: unknown, verboseParam: unknown, direction: 'ancestors' | 'descendants'): unknown {
  const view = sim.currentView();
  const i = entryIndex(view, txidParam);
  const txid = view.entries[i]!.tx.txid;
  const set = direction === 'ancestors' ? sim.mempool.ancestors(txid) : sim.mempool.descendants(txid);
  const indices = [...set].map((t) => view.index.get(t)!).sort((a, b) => a - b);
  if (verboseParam !== true) return indices.map((k) => view.entries[k]!.tx.txid);
  return entriesObject(view, indices);
}

export const mempoolMethods: MethodTable = {
  getrawmempool: {
    params: [
      { name: 'verbose', type: 'bool' },
      { name: 'mempool_sequence', type: 'bool' },
    ],
    description: 'Returns all transaction ids in memory pool as a json array of string transaction ids.',
    run: ([verbose, sequence], sim) => {
      const view = sim.currentView();
      if (verbose === true) {
        if (sequence === true) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
        return view.cached('verbose', () => entriesObject(view, view.entries.keys()));
      }
      const txids = view.cached('txids', () => new RawJson(`[${view.entries.map((e) => `"${e.tx.txid}"`).join(',')}]`));
      return sequence === true ? { txids, mempool_sequence: sim.mempool.version } : txids;
    },
  },
  getmempoolentry: {
    params: [{ name: 'txid', type: 'string', required: true }],
    description: 'Returns mempool data for given transaction.',
    run: ([txid], sim) => {
      const view = sim.currentView();
      return new RawJson(entryJson(view, entryIndex(view, txid)));
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
      const view = sim.currentView();
      // With the stand-in linearization only clusters of one or two transactions are known to be optimal.
      const optimal = view.cached('optimal', () => view.relatives.clusterSize.every((c) => c <= 2));
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
