/**
 * What `added` events need from the node, read as the events arrive: entries and spent outpoints
 * (`fetchEventTxs`), and, for versions already gone when asked, a rebuild from the raw form the
 * event source kept (`rebuildGoneTxs`). Used by the mirror's event path (`mirror.ts`).
 */
import type { Transaction } from '@scure/btc-signer';
import type { FastifyBaseLogger } from 'fastify';
import { btcToSats } from '../bitcoin/units.js';
import { wtxidOfRaw } from '../bitcoin/witness.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { decodeInputs, decodeTransaction } from './decodeInputs.js';
import { toMirrorTx, type FetchedTx } from './mirrorTx.js';

/**
 * Entries and spent outpoints of `txids`, for `applyEvents`. Txs already gone from the node are
 * absent. Called when the events arrive, not when they are applied: a version replaced right
 * after it appeared is usually still there to be read.
 */
export async function fetchEventTxs(
  node: BitcoinNode,
  txids: readonly string[],
  rawOf?: (txid: string) => string | undefined,
  logger?: FastifyBaseLogger,
): Promise<Map<string, FetchedTx>> {
  const out = new Map<string, FetchedTx>();
  if (txids.length === 0) return out;
  // The raw form from the event source when it has it: one round trip fewer, and no race with a replacement.
  const known = new Map<string, string>();
  for (const txid of txids) {
    const raw = rawOf?.(txid);
    if (raw !== undefined) known.set(txid, raw);
  }
  const [entries, raws] = await Promise.all([node.getMempoolEntries(txids), node.getRawTransactionsHex(txids.filter((t) => !known.has(t)))]);
  for (const txid of txids) {
    const entry = entries.get(txid);
    if (!entry) continue;
    const raw = known.get(txid) ?? raws.get(txid) ?? rawOf?.(txid);
    let inputs: string[] | null = null;
    try {
      inputs = raw === undefined ? null : decodeInputs(raw);
    } catch (error) {
      logger?.warn({ err: error, txid }, 'mempool tx does not decode; its replacements are not tracked');
    }
    const tx = toMirrorTx(txid, entry);
    // Nodes that list no wtxid: the raw form has it.
    if (tx.wtxid === null && raw !== undefined) tx.wtxid = wtxidOfRaw(raw);
    out.set(txid, { tx: { ...tx, inputs }, spentby: entry.spentby });
  }
  return out;
}

/**
 * Txs already gone from the node, rebuilt from their raw form (`rawtx` topic): size from the
 * serialization, fee from the values of the outputs they spent (`getrawtransaction` of the
 * parents: in the mempool, or confirmed with `-txindex`; else `gettxout`). Txs whose fee cannot
 * be known are absent.
 */
export async function rebuildGoneTxs(
  node: BitcoinNode,
  raws: ReadonlyMap<string, string>,
  inView: (txid: string) => boolean,
  now: number,
): Promise<Map<string, FetchedTx>> {
  const decoded: Array<{ txid: string; tx: Transaction; inputs: string[] }> = [];
  for (const [txid, raw] of raws) {
    try {
      decoded.push({ txid, tx: decodeTransaction(raw), inputs: decodeInputs(raw) });
    } catch {
      // Not a transaction we can read: left out.
    }
  }
  const wtxidOf = new Map(decoded.map((d) => [d.txid, wtxidOfRaw(raws.get(d.txid) ?? '')]));
  const outpoints = [...new Set(decoded.flatMap((d) => d.inputs))];
  const parents = await node.getRawTransactionsVerbose([...new Set(outpoints.map((o) => o.slice(0, 64)))]);
  const values = new Map<string, number>();
  for (const o of outpoints) {
    const value = parents.get(o.slice(0, 64))?.vout.find((v) => v.n === Number(o.slice(65)))?.value;
    if (value !== undefined) values.set(o, btcToSats(value));
  }
  const unknown = outpoints.filter((o) => !values.has(o));
  if (unknown.length > 0) for (const [o, btc] of await node.getTxOutValues(unknown)) values.set(o, btcToSats(btc));
  const out = new Map<string, FetchedTx>();
  for (const { txid, tx, inputs } of decoded) {
    let inSat = 0;
    for (const o of inputs) inSat += values.get(o) ?? NaN;
    let outSat = 0;
    for (let i = 0; i < tx.outputsLength; i++) outSat += Number(tx.getOutput(i).amount ?? NaN);
    const feeSat = inSat - outSat;
    if (!Number.isFinite(feeSat)) continue;
    const parentsInView = [...new Set(inputs.map((o) => o.slice(0, 64)))].filter(inView);
    out.set(txid, {
      tx: {
        txid,
        wtxid: wtxidOf.get(txid) ?? null,
        feeSat,
        modifiedFeeSat: feeSat,
        vsize: tx.vsize,
        weight: tx.weight,
        time: Math.floor(now / 1000),
        parents: parentsInView,
        inputs,
        chunkFeeSat: null,
        chunkWeight: null,
        sigopCostLowerBound: 0,
        snapshotIndex: -1,
      },
      spentby: [],
    });
  }
  return out;
}
