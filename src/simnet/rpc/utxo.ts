/**
 * UTXO-set RPCs of the simulated node: `scantxoutset` (`start` with `addr(…)` / `raw(…)`
 * descriptors over the confirmed UTXO set, as Core; the scan is instantaneous, so `status` is
 * always null and `abort` false) and `gettxout`.
 */
import { Btc } from '../consensus/amount.js';
import type { Coin } from '../chain/coin.js';
import { descriptorScript, DescriptorError, inferDescriptor } from '../tx/descriptor.js';
import { toHex } from '../tx/hash.js';
import { MEMPOOL_HEIGHT } from '../mempool/mempool.js';
import { RPC_ERROR, RpcError } from './errors.js';
import { parseHash, parseInt32 } from './params.js';
import type { Simulator } from '../node/simulator.js';
import { scriptPubKeyJson } from './txJson.js';
import type { MethodTable } from './rpcMethod.js';
import { at } from '../../util/at.js';

/** Scripts named by `scanobjects` (strings or `{ desc }` objects). @throws RpcError -5 / -8 */
function scanScripts(scanobjects: unknown[]): Uint8Array[] {
  return scanobjects.map((obj) => {
    const desc =
      typeof obj === 'string'
        ? obj
        : obj && typeof obj === 'object' && typeof (obj as { desc?: unknown }).desc === 'string'
          ? (obj as { desc: string }).desc
          : undefined;
    if (desc === undefined) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Scan object needs to be either a string or an object');
    try {
      return descriptorScript(desc);
    } catch (error) {
      throw new RpcError(RPC_ERROR.INVALID_ADDRESS_OR_KEY, error instanceof DescriptorError ? error.message : String(error));
    }
  });
}

function scan(sim: Simulator, scanobjects: unknown[]): unknown {
  const scripts = scanScripts(scanobjects);
  const tip = sim.chain.tip;
  const seen = new Set<string>();
  const unspents: Record<string, unknown>[] = [];
  let total = 0;
  for (const script of scripts) {
    const hex = toHex(script);
    if (seen.has(hex)) continue;
    seen.add(hex);
    for (const key of sim.chain.addresses.utxoKeys(hex)) {
      const coin = sim.chain.coin(key);
      if (!coin) continue;
      total += coin.valueSat;
      const block = at(sim.chain.blocks, coin.height);
      unspents.push({
        txid: coin.txid,
        vout: coin.vout,
        scriptPubKey: hex,
        desc: inferDescriptor(coin.script),
        amount: new Btc(coin.valueSat),
        coinbase: coin.coinbase,
        height: coin.height,
        blockhash: block.hash,
        confirmations: tip.height - coin.height + 1,
      });
    }
  }
  return { success: true, txouts: sim.chain.utxos.size, height: tip.height, bestblock: tip.hash, unspents, total_amount: new Btc(total) };
}

export const utxoMethods: MethodTable = {
  scantxoutset: {
    params: [
      { name: 'action', type: 'string', required: true },
      { name: 'scanobjects', type: 'array' },
    ],
    description: 'Scans the unspent transaction output set for entries that match certain output descriptors (start|abort|status).',
    run: ([action, scanobjects], sim) => {
      if (action === 'status') return null;
      if (action === 'abort') return false;
      if (action !== 'start') throw new RpcError(RPC_ERROR.INVALID_PARAMETER, `Invalid action '${String(action)}'`);
      if (scanobjects === undefined) throw new RpcError(RPC_ERROR.MISC_ERROR, 'scanobjects argument is required for the start action');
      return scan(sim, scanobjects as unknown[]);
    },
  },
  gettxout: {
    params: [
      { name: 'txid', type: 'string', required: true },
      { name: 'n', type: 'number', required: true },
      { name: 'include_mempool', type: 'bool' },
    ],
    description: 'Returns details about an unspent transaction output.',
    run: ([txidParam, nParam, includeMempool], sim) => {
      const txid = parseHash(txidParam, 'txid');
      const n = parseInt32(nParam);
      const key = `${txid}:${n}`;
      const useMempool = includeMempool !== false;
      let coin: Coin | undefined = sim.chain.coin(key);
      if (useMempool) {
        if (sim.mempool.spender(key)) return null;
        coin ??= sim.mempool.outputCoin(txid, n);
      }
      if (!coin) return null;
      return {
        bestblock: sim.chain.tip.hash,
        confirmations: coin.height === MEMPOOL_HEIGHT ? 0 : sim.chain.height - coin.height + 1,
        value: new Btc(coin.valueSat),
        scriptPubKey: scriptPubKeyJson(coin.script),
        coinbase: coin.coinbase,
      };
    },
  },
};
