/**
 * Builds the world a simulator starts in, ending at `startTime`:
 * 1. 100 blocks whose coinbases pay the wallet (regtest coinbases need 100 confirmations);
 * 2. funding blocks: each spends the coinbase that just matured into a fan-out of a few hundred
 *    outputs over every address type, until the wallet holds `fundingUtxos` confirmed coins;
 * 3. a few blocks of ordinary traffic, so blocks, fee history and `estimatesmartfee` look lived-in;
 * 4. `initialTxs` arrivals left in the mempool, spread over the minutes before `startTime`.
 * Blocks sit on a 10-minute grid that ends where the mempool's span begins, each up to two minutes
 * early, so nothing is dated after `startTime` (which is not after the wall clock).
 * Complexity: dominated by signing (history traffic + initial mempool, ~0.1–0.3 ms per transaction
 * with libsecp256k1).
 */
import { SEQUENCE_RBF } from '../consensus/params.js';
import { Simulator, type SimulatorOptions } from './simulator.js';
import { signSpend } from '../wallet/txSigner.js';
import { outpointKey, type TxOutput } from '../tx/txCodec.js';
import type { WalletCoin } from '../wallet/wallet.js';
import { at } from '../../util/at.js';

export interface BootstrapOptions extends SimulatorOptions {
  /** Confirmed wallet coins to create; ~1.2 per mempool transaction the caller means to add. */
  fundingUtxos: number;
  /** Blocks of ordinary traffic after funding. */
  historyBlocks: number;
  /** Transactions per history block. */
  historyTxsPerBlock: number;
  /** Transactions in the mempool at the end. */
  initialTxs: number;
  /** Called between steps so a caller can keep its event loop alive. */
  yieldFn?: () => Promise<void>;
}

const MATURITY_BLOCKS = 100;
const BLOCK_SPACING_SEC = 600;
/** A history block is up to this much earlier than its grid point. */
const BLOCK_JITTER_SEC = 120;
/** At most this many outputs per fan-out transaction (~35 kWU each; keeps them standard). */
const MAX_FANOUT_OUTPUTS = 1500;

export async function bootstrapSimulator(options: BootstrapOptions): Promise<Simulator> {
  const yieldFn = options.yieldFn ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const rate = options.txPerSec || 3;
  const mempoolSpanSec = Math.min(3600, options.initialTxs / rate);
  // One coinbase matures per block; funding takes at least 100 blocks so the start height is 200+.
  const fundingBlocks = Math.max(100, Math.ceil(options.fundingUtxos / MAX_FANOUT_OUTPUTS));
  const totalBlocks = MATURITY_BLOCKS + fundingBlocks + options.historyBlocks;
  const historyEnd = options.startTime - mempoolSpanSec;
  const historyStart = historyEnd - totalBlocks * BLOCK_SPACING_SEC;

  const sim = new Simulator({ ...options, startTime: historyStart });
  let mined = 0;
  const mine = (): void => {
    mined++;
    sim.clock.advanceTo(historyStart + mined * BLOCK_SPACING_SEC - BLOCK_JITTER_SEC * sim.rng.float());
    sim.mineBlock(false);
  };

  // 1. Coinbases to mature.
  for (let i = 0; i < MATURITY_BLOCKS; i++) mine();
  // 2. Fan-outs of matured coinbases.
  let created = 0;
  const perBlock = Math.ceil(options.fundingUtxos / fundingBlocks);
  for (let b = 0; b < fundingBlocks && created < options.fundingUtxos; b++) {
    const coins = takeMatureCoinbases(sim, 1);
    if (coins.length === 0) break;
    const outputs = Math.min(perBlock, options.fundingUtxos - created);
    fanOut(sim, coins, outputs);
    created += outputs;
    mine();
    await yieldFn();
  }
  // 3. Ordinary traffic (arrivals share the block's timestamp slot; the block step moves time).
  for (let b = 0; b < options.historyBlocks; b++) {
    for (let i = 0; i < options.historyTxsPerBlock; i++) sim.addOne(0);
    mine();
    await yieldFn();
  }
  // 4. The mempool at start: arrivals until it holds `initialTxs` (replacements do not add one).
  // Replacements and refusals take a time step too, so steps stop at `startTime`.
  const perTx = options.initialTxs ? mempoolSpanSec / options.initialTxs : 0;
  for (let i = 0, misses = 0; sim.mempool.size < options.initialTxs && i < 2 * options.initialTxs && misses < 20; i++) {
    misses = sim.addOne(sim.clock.now() + perTx <= options.startTime ? perTx : 0) === undefined ? misses + 1 : 0;
    if ((i + 1) % 200 === 0) await yieldFn();
  }
  sim.clock.advanceTo(options.startTime);
  return sim;
}

/** The coinbase outputs that matured in the last `count` blocks (one matures per block). */
function takeMatureCoinbases(sim: Simulator, count: number): WalletCoin[] {
  const coins: WalletCoin[] = [];
  for (let k = 0; k < count; k++) {
    const block = sim.chain.blockAt(sim.chain.height + 1 - MATURITY_BLOCKS - k);
    const coin = block && block.height > 0 ? sim.wallet.confirmed.get(outpointKey(at(block.txs, 0).txid, 0)) : undefined;
    if (coin) coins.push(coin);
  }
  return coins;
}

/** Splits `coins` into `count` outputs of log-uniform sizes over random wallet addresses. */
function fanOut(sim: Simulator, coins: WalletCoin[], count: number): void {
  const total = coins.reduce((s, c) => s + c.valueSat, 0);
  const feeSat = 4 * (200 + 45 * count); // ~4 sat/vB on an upper bound of the size
  const weights = Array.from({ length: count }, () => sim.rng.logUniform(1, 200));
  const sum = weights.reduce((s, w) => s + w, 0);
  const outputs: TxOutput[] = weights.map((w) => ({
    valueSat: Math.max(20_000, Math.floor(((total - feeSat) * w) / sum)),
    script: sim.rng.pick(sim.wallet.addresses).script,
  }));
  const excess = outputs.reduce((s, o) => s + o.valueSat, 0) + feeSat - total;
  if (excess > 0) {
    const [largest] = outputs.sort((a, b) => b.valueSat - a.valueSat);
    if (largest) largest.valueSat -= excess;
  }
  const tx = signSpend({
    version: 2,
    lockTime: sim.chain.height,
    inputs: coins.map((c) => ({ txid: c.txid, vout: c.vout, sequence: SEQUENCE_RBF, prevout: c, owner: c.owner })),
    outputs,
  });
  const outcome = sim.submit(tx, { maxFeeRateSatKvb: 0 });
  if (!outcome.ok) throw new Error(`bootstrap fan-out refused: ${outcome.message} (${coins.map((c) => outpointKey(c.txid, c.vout)).join(',')})`);
}
