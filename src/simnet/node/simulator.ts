/**
 * The simulated Bitcoin network: chain, mempool, wallet, traffic and miner in one object, with the
 * operations the worker exposes (mine now, add transactions now, replace one, build a spend for a
 * test) and the state the RPC methods read. Deterministic: every random choice uses the seeded
 * `Rng`, time is virtual unless automatic activity is on, and signatures are deterministic.
 * Block times follow Core's rules (later than the median time past) and, like every time the node
 * reports, are never later than the wall clock (`SimClock`): when those two leave no valid time for
 * the next block (more than about six blocks within one second), mining waits for the wall clock.
 * Single-threaded by design (it lives in its own worker thread).
 */
import { acceptTransaction, type AcceptOptions, type AcceptOutcome } from '../mempool/acceptance.js';
import { assembleBlock, buildCoinbase } from '../chain/block.js';
import { Chain, type ChainBlock } from '../chain/chain.js';
import { SimClock } from './clock.js';
import { blockSubsidySat, DEFAULT_MAX_RAW_TX_FEE_RATE_SAT_KVB } from '../consensus/params.js';
import { EntryInfoCache } from '../mempool/entryInfo.js';
import { FeeEstimator } from '../mining/feeEstimator.js';
import { deriveAddresses } from '../wallet/keys.js';
import { Mempool } from '../mempool/mempool.js';
import { MempoolView } from '../mining/mempoolView.js';
import { checkedPolicy, type MempoolPolicy } from '../mempool/policy.js';
import { ScriptCache } from '../mempool/scriptCheck.js';
import { Rng } from '../util/random.js';
import { buildChild, buildReplacement } from '../traffic/replacementFactory.js';
import { SIGNING_BACKEND } from '../tx/signer.js';
import { outpointKey, txHex, type SimTx } from '../tx/txCodec.js';
import { at } from '../../util/at.js';
import { TxFactory, type TxKind } from '../traffic/txFactory.js';
import { Wallet } from '../wallet/wallet.js';

export interface SimulatorOptions {
  seed: number;
  /** Mean block interval, seconds; also the virtual time a mined block takes. */
  blockIntervalSec: number;
  /** Mean arrival rate, tx/s; also sets how far virtual time moves per added transaction. */
  txPerSec: number;
  /** Unix seconds at which the pre-built history ends; not after the wall clock. */
  startTime: number;
  /** Number of wallet addresses. */
  addressCount: number;
  /**
   * The mining policy (template order and chunks), handed in by whoever builds the node; the
   * simulator has none of its own. Checked on every call (`checkedPolicy`).
   */
  policy: MempoolPolicy;
}

export interface CreateSpendOptions {
  /** The transaction to replace (`kind: 'replacement'`) or whose outputs to spend (`kind: 'child'`). */
  fromTxid: string;
  /** Fee rate of the new transaction, sat/vB (exact: no rule is enforced, so too-cheap spends can be built). */
  feeRateSatVb: number;
  /** Exact absolute fee, sat (overrides `feeRateSatVb`): for tests of plans tight to the satoshi. */
  feeSat?: number;
  /** For `kind: 'child'`: spend only this output (default every output the simulator owns). */
  vout?: number;
  /** Transaction version (default: the replaced tx's, 2 for a child); 3 makes a TRUC transaction. */
  version?: number;
  /** Default 'replacement'. */
  kind?: 'replacement' | 'child';
}

export interface CreatedSpend {
  hex: string;
  txid: string;
  wtxid: string;
  feeSat: number;
  vsize: number;
  weight: number;
  /** Mempool transactions it conflicts with (the replaced one), empty for a child. */
  conflictsWith: string[];
}

export interface WalletAddressInfo {
  address: string;
  type: string;
  confirmedSat: number;
  unconfirmedSat: number;
}

export interface SimulatorStats {
  height: number;
  mempoolSize: number;
  utxoCount: number;
  mempoolVsize: number;
  walletConfirmedCoins: number;
  walletUnconfirmedCoins: number;
  signingBackend: string;
}

/** Fraction of automatic/added arrivals that are RBF replacements of an earlier transaction. */
const REPLACEMENT_SHARE = 0.04;

export class Simulator {
  readonly chain = new Chain();
  readonly mempool = new Mempool();
  readonly wallet: Wallet;
  readonly clock: SimClock;
  readonly estimator = new FeeEstimator();
  /** Per-entry RPC data, recomputed only for clusters that changed. */
  readonly entryInfo: EntryInfoCache;
  readonly policy: MempoolPolicy;
  readonly rng: Rng;
  readonly factory: TxFactory;
  /** Called after each block joins the chain and its transactions left the mempool (the ZMQ publisher's `C`). */
  readonly blockListeners: Array<(block: ChainBlock) => void> = [];
  /** Wtxids whose signatures were verified (testmempoolaccept, then sendrawtransaction, verify once). */
  private readonly scriptCache = new ScriptCache();
  private view: MempoolView | undefined;
  /** Recent simulator-made txids (replacement candidates). */
  private readonly recent: string[] = [];

  constructor(readonly options: SimulatorOptions) {
    this.policy = checkedPolicy(options.policy);
    this.entryInfo = new EntryInfoCache(this.mempool, this.policy);
    this.rng = new Rng(options.seed, 'simulator');
    this.clock = new SimClock(options.startTime);
    this.wallet = new Wallet(deriveAddresses(options.seed, options.addressCount, new Rng(options.seed, 'keys')), this.chain, this.mempool);
    this.factory = new TxFactory(this.chain, this.mempool, this.wallet, this.rng);
  }

  /** The array-form mempool of the current version (rebuilt after any change). */
  currentView(): MempoolView {
    if (!this.view || this.view.version !== this.mempool.version) this.view = new MempoolView(this.mempool, this.policy);
    return this.view;
  }

  /** Validates and (unless `testOnly`) adds a transaction, as `sendrawtransaction` does. */
  submit(tx: SimTx, options: Partial<AcceptOptions> = {}): AcceptOutcome {
    const ctx = { chain: this.chain, mempool: this.mempool, policy: this.policy, now: () => this.clock.now(), scriptCache: this.scriptCache };
    return acceptTransaction(ctx, tx, {
      testOnly: options.testOnly ?? false,
      maxFeeRateSatKvb: options.maxFeeRateSatKvb ?? DEFAULT_MAX_RAW_TX_FEE_RATE_SAT_KVB,
    });
  }

  /**
   * Milliseconds until the next block can be mined without a time in the future: its time must be
   * later than the tip's median time past (0 when that is already the past).
   */
  msUntilBlockTime(): number {
    return this.clock.msUntil(this.chain.medianTimePast() + 1);
  }

  /**
   * Mines one block from the current template. On the virtual clock, the block first takes an
   * exponential interval (mean `blockIntervalSec`, 600 s when 0) unless `advanceClock` is false.
   * Its time is the clock's, or the tip's median time past + 1 if that is later.
   * Precondition: `msUntilBlockTime()` is 0 (else the block's time would be in the future).
   * Complexity: template + O(block size).
   */
  mineBlock(advanceClock = true): ChainBlock {
    if (advanceClock && !this.clock.isWall) this.clock.advance(this.rng.exponential(this.options.blockIntervalSec || 600));
    const time = Math.max(this.clock.now(), this.chain.medianTimePast() + 1);
    if (this.clock.msUntil(time) > 0) throw new Error(`the next block's earliest valid time ${time} is still in the future`);
    const view = this.currentView();
    const entries = Array.from(view.policy.templateIndices, (i) => at(view.entries, i));
    const height = this.chain.height + 1;
    const fees = entries.reduce((s, e) => s + e.feeSat, 0);
    const payout = at(this.wallet.addresses, height % this.wallet.addresses.length);
    const coinbase = buildCoinbase(
      height,
      blockSubsidySat(height) + fees,
      payout.script,
      entries.map((e) => e.tx.wtxid),
    );
    const block = this.chain.connect(assembleBlock(this.chain.tip.hash, time, [coinbase, ...entries.map((e) => e.tx)]));
    this.mempool.remove(entries.map((e) => e.tx.txid).reverse(), 'block');
    this.wallet.blockConnected(block);
    for (const listener of this.blockListeners) listener(block);
    this.estimator.recordBlock(block);
    return block;
  }

  /** Mines `n` blocks, waiting for the wall clock only when a block would otherwise need a future time. */
  async mineBlocks(n: number): Promise<string[]> {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) {
      // Automatic mining may add blocks meanwhile, so check again after each wait.
      for (let waitMs = this.msUntilBlockTime(); waitMs > 0; waitMs = this.msUntilBlockTime()) {
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
      hashes.push(this.mineBlock().hash);
    }
    return hashes;
  }

  /**
   * Adds one arrival of the realistic mix (sometimes a replacement). Returns the txid added, or
   * undefined when the wallet could not fund anything.
   * @param advanceSec virtual seconds this arrival takes (ignored on the wall clock)
   */
  addOne(advanceSec: number): string | undefined {
    this.clock.advance(advanceSec);
    if (this.rng.chance(REPLACEMENT_SHARE)) {
      const r = this.tryReplaceRandom();
      if (r) return r.replacement;
    }
    // A shape the wallet cannot fund right now, or a rare refusal, is retried with a fresh draw.
    for (let attempt = 0; attempt < 8; attempt++) {
      const made = this.factory.next();
      if (made && this.accept(made.tx, made.kind)) return made.tx.txid;
    }
    return undefined;
  }

  /** Adds `n` arrivals, yielding to the event loop every `yieldEvery` so the RPC server stays responsive. */
  async addTransactions(n: number, yieldEvery = 100): Promise<string[]> {
    const txids: string[] = [];
    const step = 1 / (this.options.txPerSec || 3);
    for (let i = 0, misses = 0; txids.length < n && misses < 10; i++) {
      const txid = this.addOne(this.rng.exponential(step));
      if (txid === undefined)
        misses++; // wallet (nearly) dry: give up after 10 misses in a row, report fewer
      else {
        misses = 0;
        txids.push(txid);
      }
      if ((i + 1) % yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return txids;
  }

  private accept(tx: SimTx, kind: TxKind | 'replacement'): boolean {
    const outcome = this.submit(tx, { maxFeeRateSatKvb: 0 });
    if (!outcome.ok) return false;
    if (kind !== 'replacement') this.factory.accepted(tx, kind);
    this.recent.push(tx.txid);
    if (this.recent.length > 1000) this.recent.shift();
    return true;
  }

  /**
   * Replaces `txid` (or a random recent simulator transaction) with a higher-fee version, raising
   * the fee until the replacement rules accept it (at most 4 tries).
   * @throws Error when no replacement can be made
   */
  replaceTransaction(txid?: string): { replaced: string[]; replacement: string } {
    if (txid !== undefined) {
      const target = this.mempool.get(txid);
      if (!target) throw new Error(`transaction ${txid} is not in the mempool`);
      const r = this.replace(txid);
      if (!r) throw new Error(`cannot replace ${txid}: its inputs are not the simulator's or it cannot raise the fee`);
      return r;
    }
    const r = this.tryReplaceRandom(40);
    if (!r) throw new Error('no replaceable simulator transaction in the mempool');
    return r;
  }

  private tryReplaceRandom(tries = 5): { replaced: string[]; replacement: string } | undefined {
    for (let i = 0; i < tries && this.recent.length; i++) {
      const candidate = this.rng.pick(this.recent);
      if (!this.mempool.has(candidate)) continue;
      const r = this.replace(candidate);
      if (r) return r;
    }
    return undefined;
  }

  private replace(txid: string): { replaced: string[]; replacement: string } | undefined {
    let rate: number | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      const target = this.mempool.get(txid);
      if (!target) return undefined;
      const tx = buildReplacement({ mempool: this.mempool, wallet: this.wallet, rng: this.rng }, target, rate === undefined ? {} : { feeRateSatVb: rate });
      if (!tx) return undefined;
      const outcome = this.submit(tx, { maxFeeRateSatKvb: 0 });
      if (outcome.ok) {
        this.recent.push(tx.txid);
        return { replaced: outcome.replaced, replacement: tx.txid };
      }
      rate = ((target.feeSat + 1) / target.vsizeAdjusted) * 2 ** (attempt + 1) + 1;
    }
    return undefined;
  }

  /** Builds (does not submit) a signed replacement of, or child of, `fromTxid` for tests. */
  createSpend(options: CreateSpendOptions): CreatedSpend {
    const ctx = { mempool: this.mempool, wallet: this.wallet, rng: this.rng };
    let tx: SimTx | undefined;
    let conflictsWith: string[] = [];
    if ((options.kind ?? 'replacement') === 'replacement') {
      const target = this.mempool.get(options.fromTxid);
      if (!target) throw new Error(`transaction ${options.fromTxid} is not in the mempool`);
      tx = buildReplacement(ctx, target, {
        feeRateSatVb: options.feeRateSatVb,
        exact: true,
        ...(options.feeSat !== undefined ? { feeSat: options.feeSat } : {}),
        ...(options.version !== undefined ? { version: options.version } : {}),
      });
      if (!tx) throw new Error(`cannot build a replacement of ${options.fromTxid} at ${options.feeRateSatVb} sat/vB`);
      conflictsWith = [options.fromTxid];
    } else {
      const source = this.mempool.get(options.fromTxid)?.tx ?? this.chain.locate(options.fromTxid)?.tx;
      if (!source) throw new Error(`transaction ${options.fromTxid} is unknown`);
      tx = buildChild(ctx, options.fromTxid, options.feeRateSatVb, source.outputs.length, {
        feeSat: options.feeSat,
        vout: options.vout,
        version: options.version,
      });
    }
    let inSat = 0;
    for (const i of tx.inputs) {
      const coin = this.chain.coin(outpointKey(i.txid, i.vout)) ?? this.mempool.outputCoin(i.txid, i.vout);
      if (!coin) throw new Error(`the spend built from ${options.fromTxid} spends an unknown output ${outpointKey(i.txid, i.vout)}`);
      inSat += coin.valueSat;
    }
    const feeSat = inSat - tx.outputs.reduce((s, o) => s + o.valueSat, 0);
    return { hex: txHex(tx), txid: tx.txid, wtxid: tx.wtxid, feeSat, vsize: tx.vsize, weight: tx.weight, conflictsWith };
  }

  /** Wallet addresses holding confirmed and/or unconfirmed funds. */
  walletAddresses(): WalletAddressInfo[] {
    const result: WalletAddressInfo[] = [];
    for (const a of this.wallet.addresses) {
      const confirmedSat = this.chain.addresses.utxoKeys(a.scriptHex).reduce((s, k) => s + (this.chain.coin(k)?.valueSat ?? 0), 0);
      let unconfirmedSat = 0;
      for (const txid of this.mempool.touching(a.scriptHex)) {
        for (const o of this.mempool.entry(txid).tx.outputs) if (Buffer.compare(o.script, a.script) === 0) unconfirmedSat += o.valueSat;
      }
      if (confirmedSat > 0 || unconfirmedSat > 0) result.push({ address: a.address, type: a.type, confirmedSat, unconfirmedSat });
    }
    return result;
  }

  stats(): SimulatorStats {
    return {
      height: this.chain.height,
      mempoolSize: this.mempool.size,
      utxoCount: this.chain.utxos.size,
      mempoolVsize: this.mempool.totalVsize,
      walletConfirmedCoins: this.wallet.confirmed.size,
      walletUnconfirmedCoins: this.wallet.unconfirmed.size,
      signingBackend: SIGNING_BACKEND,
    };
  }
}
