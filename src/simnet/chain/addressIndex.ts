/**
 * Confirmed per-script history, kept up to date as blocks connect: what Esplora's `chain_stats`
 * report (funded/spent output counts and sums, transaction count) and the script's unspent
 * outputs (for `/address/:addr/utxo` and `scantxoutset`, which would otherwise walk the whole
 * UTXO set). Keyed by scriptPubKey hex.
 */
import { scriptHex } from '../tx/hash.js';
import type { Coin } from './coin.js';
import { outpointKey, type SimTx } from '../tx/txCodec.js';

export interface ScriptStats {
  funded_txo_count: number;
  funded_txo_sum: number;
  spent_txo_count: number;
  spent_txo_sum: number;
  tx_count: number;
}

interface ScriptEntry {
  stats: ScriptStats;
  /** Outpoint keys of the script's confirmed unspent outputs, in creation order. */
  utxos: Set<string>;
}

export function emptyStats(): ScriptStats {
  return { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 };
}

export class AddressIndex {
  private readonly scripts = new Map<string, ScriptEntry>();

  private entry(scriptHex: string): ScriptEntry {
    let e = this.scripts.get(scriptHex);
    if (!e) {
      e = { stats: emptyStats(), utxos: new Set() };
      this.scripts.set(scriptHex, e);
    }
    return e;
  }

  /** Records a connected block. `spent[i]` are the coins `txs[i]` spent. Complexity: O(inputs + outputs). */
  connectBlock(txs: readonly SimTx[], spent: readonly Coin[][], _height: number): void {
    txs.forEach((tx, i) => {
      const touched = new Set<string>();
      for (const coin of spent[i] ?? []) {
        const hex = scriptHex(coin.script);
        const e = this.entry(hex);
        e.stats.spent_txo_count++;
        e.stats.spent_txo_sum += coin.valueSat;
        e.utxos.delete(outpointKey(coin.txid, coin.vout));
        touched.add(hex);
      }
      tx.outputs.forEach((o, vout) => {
        if (o.script.length > 0 && o.script[0] === 0x6a) return;
        const hex = scriptHex(o.script);
        const e = this.entry(hex);
        e.stats.funded_txo_count++;
        e.stats.funded_txo_sum += o.valueSat;
        e.utxos.add(outpointKey(tx.txid, vout));
        touched.add(hex);
      });
      for (const hex of touched) this.entry(hex).stats.tx_count++;
    });
  }

  /** Confirmed stats of a script (zeros when never seen). */
  stats(scriptHex: string): ScriptStats {
    const e = this.scripts.get(scriptHex);
    return e ? { ...e.stats } : emptyStats();
  }

  /** Outpoint keys of the script's confirmed unspent outputs. */
  utxoKeys(scriptHex: string): readonly string[] {
    const e = this.scripts.get(scriptHex);
    return e ? [...e.utxos] : [];
  }
}
