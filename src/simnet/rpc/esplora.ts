/**
 * Esplora (electrs) address routes on the simulated node, so the service's Esplora path can be
 * exercised without another server: `GET /address/:addr` (chain and mempool stats) and
 * `GET /address/:addr/utxo` (confirmed and mempool outputs not spent in the mempool),
 * `GET /address/:addr/txs/mempool` (mempool transactions touching it), plus
 * `/blocks/tip/height` and `/blocks/tip/hash`. Shapes and error texts as electrs answers them.
 */
import { Address, OutScript } from '@scure/btc-signer';
import { z } from 'zod';
import { emptyStats, type ScriptStats } from '../chain/addressIndex.js';
import { REGTEST_NETWORK } from '../consensus/params.js';
import { scriptHex } from '../tx/hash.js';
import type { Simulator } from '../node/simulator.js';
import { outpointKey } from '../tx/txCodec.js';
import { at } from '../../util/at.js';

export interface EsploraReply {
  status: number;
  contentType: 'application/json' | 'text/plain';
  body: string;
}

const AddressParam = z
  .string()
  .min(14)
  .max(100)
  .regex(/^[a-zA-Z0-9]+$/);

const text = (status: number, body: string): EsploraReply => ({ status, contentType: 'text/plain', body });
const json = (body: unknown): EsploraReply => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });

/** Answers `path` (below the `/esplora` prefix, without query string). */
export function esploraRoute(sim: Simulator, path: string): EsploraReply {
  if (path === '/blocks/tip/height') return text(200, String(sim.chain.height));
  if (path === '/blocks/tip/hash') return text(200, sim.chain.tip.hash);
  const match = /^\/address\/([^/]+)(\/utxo|\/txs\/mempool)?$/.exec(path);
  const [, encoded, suffix] = match ?? [];
  if (encoded === undefined) return text(404, 'Not Found');
  let address: string;
  try {
    address = decodeURIComponent(encoded);
  } catch {
    return text(400, 'Invalid Bitcoin address');
  }
  const script = addressScript(address);
  if (typeof script === 'string') return text(400, script);
  const hex = scriptHex(script);
  if (suffix === '/utxo') return json(utxos(sim, hex));
  if (suffix === '/txs/mempool') return json(mempoolTxs(sim, hex));
  return json({ address, chain_stats: sim.chain.addresses.stats(hex), mempool_stats: mempoolStats(sim, hex) });
}

/** scriptPubKey of a regtest address, or electrs' error text. */
function addressScript(address: string): Uint8Array | string {
  if (!AddressParam.safeParse(address).success) return 'Invalid Bitcoin address';
  try {
    return OutScript.encode(Address(REGTEST_NETWORK).decode(address));
  } catch {
    // A well-formed address of another network is "on invalid network" in electrs.
    return /^(bc1|tb1|[13mn2])/i.test(address) ? 'Address on invalid network' : 'Invalid Bitcoin address';
  }
}

function mempoolStats(sim: Simulator, hex: string): ScriptStats {
  const stats = emptyStats();
  for (const txid of sim.mempool.touching(hex)) {
    const e = sim.mempool.entry(txid);
    stats.tx_count++;
    for (const o of e.tx.outputs) {
      if (scriptHex(o.script) !== hex) continue;
      stats.funded_txo_count++;
      stats.funded_txo_sum += o.valueSat;
    }
    for (const c of e.prevouts) {
      if (scriptHex(c.script) !== hex) continue;
      stats.spent_txo_count++;
      stats.spent_txo_sum += c.valueSat;
    }
  }
  return stats;
}

/** electrs caps the mempool list of an address at 50 transactions, newest first. */
const MEMPOOL_TXS_MAX = 50;

/** `GET /address/:addr/txs/mempool`: mempool transactions paying to or spending from it (txid and status only of electrs' shape). */
function mempoolTxs(sim: Simulator, hex: string): Array<{ txid: string; status: { confirmed: false } }> {
  const entries = [...sim.mempool.touching(hex)].map((t) => sim.mempool.entry(t));
  entries.sort((a, b) => b.sequence - a.sequence);
  return entries.slice(0, MEMPOOL_TXS_MAX).map((e) => ({ txid: e.tx.txid, status: { confirmed: false } }));
}

interface EsploraUtxo {
  txid: string;
  vout: number;
  status: { confirmed: boolean; block_height?: number; block_hash?: string; block_time?: number };
  value: number;
}

function utxos(sim: Simulator, hex: string): EsploraUtxo[] {
  const out: EsploraUtxo[] = [];
  for (const txid of sim.mempool.touching(hex)) {
    const e = sim.mempool.entry(txid);
    e.tx.outputs.forEach((o, vout) => {
      if (scriptHex(o.script) !== hex || sim.mempool.spender(outpointKey(txid, vout))) return;
      out.push({ txid, vout, status: { confirmed: false }, value: o.valueSat });
    });
  }
  const confirmed: Array<{ height: number; utxo: EsploraUtxo }> = [];
  for (const key of sim.chain.addresses.utxoKeys(hex)) {
    if (sim.mempool.spender(key)) continue;
    const coin = sim.chain.coin(key);
    if (!coin) continue;
    const block = at(sim.chain.blocks, coin.height);
    confirmed.push({
      height: coin.height,
      utxo: {
        txid: coin.txid,
        vout: coin.vout,
        status: { confirmed: true, block_height: coin.height, block_hash: block.hash, block_time: block.time },
        value: coin.valueSat,
      },
    });
  }
  confirmed.sort((a, b) => b.height - a.height);
  return [...out, ...confirmed.map((c) => c.utxo)];
}
