/**
 * The simulated node's active chain (a single chain: blocks only come from the simulator's own
 * miner, so there are no reorgs), its UTXO set, a transaction index (`txindex=1`) and, per
 * confirmed transaction, the coins it spent (Core's undo data), which verbose RPCs need for
 * `fee` and `prevout`.
 * Invariant: `utxos` holds exactly the outputs created and not spent by connected blocks, except
 * the genesis coinbase, which Core never adds to the UTXO set.
 */
import { blockWork, regtestGenesis, type AssembledBlock } from './block.js';
import { AddressIndex } from './addressIndex.js';
import type { Coin } from './coin.js';
import { outpointKey, type SimTx } from '../tx/txCodec.js';
import { at } from '../../util/at.js';

export interface ChainBlock extends AssembledBlock {
  height: number;
  /** Cumulative work up to and including this block. */
  chainWork: bigint;
  /** Median of the last 11 block times, this one included. */
  medianTime: number;
  /** Per transaction (aligned with `txs`): fee in sats (0 for the coinbase). */
  feesSat: number[];
  /** Per transaction: the coins its inputs spent (empty for the coinbase). */
  spent: Coin[][];
}

export interface TxLocation {
  block: ChainBlock;
  /** Position in `block.txs` (0 = the coinbase). */
  index: number;
  tx: SimTx;
}

export class Chain {
  readonly blocks: ChainBlock[] = [];
  private tipBlock: ChainBlock;
  private readonly byHash = new Map<string, ChainBlock>();
  private readonly txIndex = new Map<string, TxLocation>();
  readonly utxos = new Map<string, Coin>();
  readonly addresses = new AddressIndex();

  constructor() {
    const genesis = regtestGenesis();
    const block: ChainBlock = { ...genesis, height: 0, chainWork: blockWork(genesis.bits), medianTime: genesis.time, feesSat: [0], spent: [[]] };
    this.blocks.push(block);
    this.byHash.set(block.hash, block);
    this.tipBlock = block;
  }

  get height(): number {
    return this.blocks.length - 1;
  }

  get tip(): ChainBlock {
    return this.tipBlock;
  }

  blockByHash(hash: string): ChainBlock | undefined {
    return this.byHash.get(hash);
  }

  blockAt(height: number): ChainBlock | undefined {
    return this.blocks[height];
  }

  /** Where a confirmed transaction is (the genesis coinbase is not indexed, as in Core). */
  locate(txid: string): TxLocation | undefined {
    return this.txIndex.get(txid);
  }

  coin(key: string): Coin | undefined {
    return this.utxos.get(key);
  }

  /** Median time past of the block at `height` (Core's `GetMedianTimePast`). */
  medianTimePast(height: number = this.height): number {
    return at(this.blocks, Math.max(0, Math.min(height, this.height))).medianTime;
  }

  /**
   * Connects a block on top of the tip: spends its inputs and adds its outputs. The block must
   * have been validated by the caller (the simulator only mines its own templates).
   * @throws if `block` does not extend the tip or spends a missing coin (a simulator bug)
   * Complexity: O(inputs + outputs).
   */
  connect(block: AssembledBlock): ChainBlock {
    if (block.prevHash !== this.tip.hash) throw new Error(`block ${block.hash} does not extend the tip`);
    const height = this.height + 1;
    const feesSat: number[] = [];
    const spent: Coin[][] = [];
    for (const tx of block.txs) {
      const coins: Coin[] = [];
      if (tx !== block.txs[0]) {
        for (const input of tx.inputs) {
          const key = outpointKey(input.txid, input.vout);
          const coin = this.utxos.get(key);
          if (!coin) throw new Error(`block ${block.hash}: ${tx.txid} spends missing ${key}`);
          this.utxos.delete(key);
          coins.push(coin);
        }
      }
      tx.outputs.forEach((o, vout) => {
        if (o.script.length > 0 && o.script[0] === 0x6a) return; // OP_RETURN: provably unspendable, never a coin
        this.utxos.set(outpointKey(tx.txid, vout), { txid: tx.txid, vout, valueSat: o.valueSat, script: o.script, height, coinbase: tx === block.txs[0] });
      });
      const inSat = coins.reduce((s, c) => s + c.valueSat, 0);
      feesSat.push(tx === block.txs[0] ? 0 : inSat - tx.outputs.reduce((s, o) => s + o.valueSat, 0));
      spent.push(coins);
    }
    const times = this.blocks.slice(-10).map((b) => b.time);
    times.push(block.time);
    times.sort((a, b) => a - b);
    const connected: ChainBlock = {
      ...block,
      height,
      chainWork: this.tip.chainWork + blockWork(block.bits),
      medianTime: at(times, Math.floor(times.length / 2)),
      feesSat,
      spent,
    };
    this.blocks.push(connected);
    this.byHash.set(connected.hash, connected);
    this.tipBlock = connected;
    connected.txs.forEach((tx, index) => this.txIndex.set(tx.txid, { block: connected, index, tx }));
    this.addresses.connectBlock(connected.txs, spent, height);
    return connected;
  }
}
