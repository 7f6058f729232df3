/**
 * The simulator's wallet: its addresses and the coins it can spend right now, split into confirmed
 * (mature, unspent on chain and in the mempool) and unconfirmed (outputs of mempool transactions
 * not spent in the mempool). It follows the mempool and the chain through events, so any
 * transaction that pays its addresses — its own or one a test relays — funds it.
 * Invariant: a coin is in at most one pool, and every pooled coin is spendable at the next block.
 */
import type { Chain, ChainBlock } from '../chain/chain.js';
import type { Coin } from '../chain/coin.js';
import { CoinPool } from './coinPool.js';
import { COINBASE_MATURITY } from '../consensus/params.js';
import { scriptHex } from '../tx/hash.js';
import type { SimAddress } from './keys.js';
import type { Mempool, MempoolEntry, MempoolListener, RemovalReason } from '../mempool/mempool.js';
import { outpointKey } from '../tx/txCodec.js';
import { at } from '../../util/at.js';

export interface WalletCoin extends Coin {
  owner: SimAddress;
}

export class Wallet implements MempoolListener {
  readonly confirmed = new CoinPool<WalletCoin>();
  readonly unconfirmed = new CoinPool<WalletCoin>();
  private readonly byScript = new Map<string, SimAddress>();
  /** Owned coinbase outputs waiting for maturity, oldest first. */
  private readonly immature: WalletCoin[] = [];

  constructor(
    readonly addresses: readonly SimAddress[],
    private readonly chain: Chain,
    private readonly mempool: Mempool,
  ) {
    for (const a of addresses) this.byScript.set(a.scriptHex, a);
    mempool.listen(this);
  }

  /** The wallet address paying to `script`, if it is one of ours. */
  owner(script: Uint8Array): SimAddress | undefined {
    return this.byScript.get(scriptHex(script));
  }

  ownerByHex(scriptHex: string): SimAddress | undefined {
    return this.byScript.get(scriptHex);
  }

  added(entry: MempoolEntry): void {
    for (const input of entry.tx.inputs) {
      const key = outpointKey(input.txid, input.vout);
      this.confirmed.delete(key);
      this.unconfirmed.delete(key);
    }
    entry.tx.outputs.forEach((o, vout) => {
      const owner = this.owner(o.script);
      if (!owner) return;
      this.unconfirmed.add(outpointKey(entry.tx.txid, vout), {
        txid: entry.tx.txid,
        vout,
        valueSat: o.valueSat,
        script: o.script,
        height: -1,
        coinbase: false,
        owner,
      });
    });
  }

  removed(entries: readonly MempoolEntry[], reason: RemovalReason): void {
    if (reason === 'block') {
      // Mined: still-unspent outputs become confirmed coins (the block is already connected).
      for (const e of entries) {
        e.tx.outputs.forEach((_, vout) => {
          const key = outpointKey(e.tx.txid, vout);
          const coin = this.unconfirmed.delete(key);
          if (coin) this.confirmed.add(key, { ...coin, height: this.chain.height });
        });
      }
      return;
    }
    for (const e of entries) e.tx.outputs.forEach((_, vout) => this.unconfirmed.delete(outpointKey(e.tx.txid, vout)));
    // Coins the evicted transactions spent are spendable again unless something else spends them.
    for (const e of entries) {
      for (const input of e.tx.inputs) {
        const key = outpointKey(input.txid, input.vout);
        if (this.mempool.spender(key)) continue;
        const onChain = this.chain.coin(key);
        if (onChain) {
          const owner = this.owner(onChain.script);
          if (owner && (!onChain.coinbase || this.isMature(onChain.height))) this.confirmed.add(key, { ...onChain, owner });
          continue;
        }
        const inMempool = this.mempool.outputCoin(input.txid, input.vout);
        const owner = inMempool && this.owner(inMempool.script);
        if (inMempool && owner) this.unconfirmed.add(key, { ...inMempool, height: -1, owner });
      }
    }
  }

  /** Records the coinbase of a newly connected block and promotes coinbases that just matured. */
  blockConnected(block: ChainBlock): void {
    const coinbase = at(block.txs, 0);
    coinbase.outputs.forEach((o, vout) => {
      const owner = this.owner(o.script);
      if (owner && o.valueSat > 0)
        this.immature.push({ txid: coinbase.txid, vout, valueSat: o.valueSat, script: o.script, height: block.height, coinbase: true, owner });
    });
    for (let coin = this.immature[0]; coin && this.isMature(coin.height); coin = this.immature[0]) {
      this.immature.shift();
      const key = outpointKey(coin.txid, coin.vout);
      if (this.chain.coin(key) && !this.mempool.spender(key)) this.confirmed.add(key, coin);
    }
  }

  /** A coinbase from `height` can be spent in the next block. */
  private isMature(height: number): boolean {
    return this.chain.height + 1 - height >= COINBASE_MATURITY;
  }

  /** Total spendable value, satoshis. */
  balanceSat(): { confirmed: number; unconfirmed: number; immature: number } {
    const sum = (coins: readonly WalletCoin[]): number => coins.reduce((s, c) => s + c.valueSat, 0);
    return { confirmed: sum(this.confirmed.values()), unconfirmed: sum(this.unconfirmed.values()), immature: sum(this.immature) };
  }
}
