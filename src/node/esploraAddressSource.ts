/**
 * Address balances and UTXOs from an Esplora API (`GET /address/:addr`, `GET /address/:addr/utxo`),
 * as electrs, Blockstream's Esplora and mempool.space serve it. Every call has a timeout; a slow or
 * failing Esplora answers 503 `ADDRESS_SOURCE_UNAVAILABLE`, an answer of the wrong shape 502.
 */
import { z } from 'zod';
import type { ParsedAddress } from '../bitcoin/address.js';
import { Errors } from '../errors.js';
import type { AddressBalance, AddressSource, AddressUtxo } from './addressSource.js';

const Stats = z.object({
  funded_txo_count: z.number().int().min(0),
  funded_txo_sum: z.number().int().min(0),
  spent_txo_count: z.number().int().min(0),
  spent_txo_sum: z.number().int().min(0),
  tx_count: z.number().int().min(0),
});
const AddressInfo = z.object({ address: z.string(), chain_stats: Stats, mempool_stats: Stats });
const Utxos = z.array(
  z.object({
    txid: z.string().regex(/^[0-9a-f]{64}$/),
    vout: z.number().int().min(0),
    value: z.number().int().min(0),
    status: z.object({ confirmed: z.boolean(), block_height: z.number().int().optional() }),
  }),
);

const MempoolTxs = z.array(z.looseObject({ txid: z.string().regex(/^[0-9a-f]{64}$/) }));

export class EsploraAddressSource implements AddressSource {
  readonly kind = 'esplora' as const;

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** `GET /address/:addr`: confirmed = chain funded − spent; unconfirmed = mempool funded − spent. */
  async balance(address: ParsedAddress): Promise<AddressBalance> {
    const info = await this.get(`/address/${address.address}`, AddressInfo);
    return {
      confirmedSat: info.chain_stats.funded_txo_sum - info.chain_stats.spent_txo_sum,
      unconfirmedSat: info.mempool_stats.funded_txo_sum - info.mempool_stats.spent_txo_sum,
      confirmedTxCount: info.chain_stats.tx_count,
      unconfirmedTxCount: info.mempool_stats.tx_count,
    };
  }

  /** `GET /address/:addr/utxo`: confirmed and mempool outputs not yet spent. */
  async utxos(address: ParsedAddress): Promise<AddressUtxo[]> {
    const utxos = await this.get(`/address/${address.address}/utxo`, Utxos);
    return utxos.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      valueSat: u.value,
      confirmed: u.status.confirmed,
      height: u.status.confirmed ? (u.status.block_height ?? null) : null,
    }));
  }

  /** `GET /address/:addr/txs/mempool`: the mempool transactions touching it (electrs lists up to 50). */
  async mempoolTxids(address: ParsedAddress): Promise<string[]> {
    const txs = await this.get(`/address/${address.address}/txs/mempool`, MempoolTxs);
    return txs.map((t) => t.txid);
  }

  private async get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
    const url = `${this.baseUrl.replace(/\/$/, '')}${path}`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : 'unreachable';
      throw new Errors.ADDRESS_SOURCE_UNAVAILABLE(`Esplora ${reason}`);
    }
    if (!response.ok) {
      throw new Errors.ADDRESS_SOURCE_UNAVAILABLE(`Esplora answered HTTP ${response.status}`);
    }
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new Errors.NODE_BAD_RESPONSE(`esplora ${path.split('/').slice(0, 2).join('/')}`, parsed.error.issues[0]?.message ?? 'invalid');
    return parsed.data;
  }
}
