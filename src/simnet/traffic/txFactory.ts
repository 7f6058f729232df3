/**
 * Builds the simulator's traffic: signed transactions of the shapes a real mempool carries, from
 * the wallet's coins. Kinds (share of arrivals): payments (1–4 inputs, recipient + change), batch
 * payouts (8–120 outputs), consolidations (5–25 inputs, one output, low fee), low-fee payments that
 * later get CPFP children, CPFP children (package feerate 15–80 sat/vB), and links of unconfirmed
 * chains (up to 25 deep). Fee rates are log-normal (median 9 sat/vB) with an economy tail at 1–2.5,
 * clamped to [1, 600] sat/vB. All choices come from the seeded `Rng`.
 * Builders return `undefined` when the wallet cannot fund the shape (the caller tries another kind).
 */
import {
  CLUSTER_COUNT_LIMIT,
  CLUSTER_SIZE_LIMIT_VB,
  SEQUENCE_FINAL,
  SEQUENCE_LOCKTIME_ENABLED,
  SEQUENCE_RBF,
  SIM_MAX_CHAIN_DEPTH,
} from '../consensus/params.js';
import type { Chain } from '../chain/chain.js';
import type { SimAddress } from '../wallet/keys.js';
import type { Mempool } from '../mempool/mempool.js';
import { at } from '../../util/at.js';
import type { Rng } from '../util/random.js';
import { dustThresholdSat } from '../mempool/standardness.js';
import { outpointKey, type SimTx, type TxOutput } from '../tx/txCodec.js';
import { estimateWeight, signSpend } from '../wallet/txSigner.js';
import type { Wallet, WalletCoin } from '../wallet/wallet.js';

export const TX_KINDS = ['payment', 'batch', 'consolidation', 'lowfee', 'cpfp', 'chain'] as const;
export type TxKind = (typeof TX_KINDS)[number];
const KIND_WEIGHTS: Record<TxKind, number> = { payment: 60, chain: 13, lowfee: 8, cpfp: 7, batch: 7, consolidation: 5 };
/** Unconfirmed coins smaller than this are left alone by payments (they could not pay a high fee). */
const MIN_UNCONFIRMED_SPEND_SAT = 50_000;

export interface SpendPlan {
  coins: WalletCoin[];
  pay: TxOutput[];
  /** Change address; omitted to sweep everything into `pay` minus the fee. */
  change?: SimAddress;
  feeRateSatVb: number;
  /** Lower bound of the fee (replacements). */
  minFeeSat?: number;
  version?: number;
  lockTime?: number;
  sequence?: number;
}

export class TxFactory {
  /** Recent low-fee transactions (CPFP candidates), txids. */
  private readonly lowFeeParents: string[] = [];
  /** Ends of unconfirmed chains, outpoint keys of their change outputs. */
  private readonly chainHeads: string[] = [];

  constructor(
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    private readonly wallet: Wallet,
    private readonly rng: Rng,
  ) {}

  /** One transaction of a random kind; falls back to a payment, undefined only when the wallet is dry. */
  next(): { tx: SimTx; kind: TxKind } | undefined {
    const kind = at(TX_KINDS, this.rng.weighted(TX_KINDS.map((k) => KIND_WEIGHTS[k])));
    const tx = this.build(kind);
    if (tx) return { tx, kind };
    const fallback = this.build('payment');
    return fallback ? { tx: fallback, kind: 'payment' } : undefined;
  }

  build(kind: TxKind): SimTx | undefined {
    switch (kind) {
      case 'payment':
        return this.payment(this.drawFeeRate());
      case 'lowfee':
        return this.payment(round1(1 + this.rng.float()));
      case 'batch':
        return this.batch();
      case 'consolidation':
        return this.consolidation();
      case 'cpfp':
        return this.cpfp();
      case 'chain':
        return this.chainLink();
    }
  }

  /** Remembers what an accepted transaction offers to later ones (chain heads, CPFP parents). */
  accepted(tx: SimTx, kind: TxKind): void {
    const changeKey = outpointKey(tx.txid, tx.outputs.length - 1);
    if (kind === 'lowfee') pushBounded(this.lowFeeParents, tx.txid, 200);
    if ((kind === 'chain' || (kind === 'payment' && this.rng.chance(0.05))) && this.wallet.unconfirmed.has(changeKey)) {
      pushBounded(this.chainHeads, changeKey, 64);
    }
  }

  /** Draws a fee rate, sat/vB: 22 % economy (1–2.5), else log-normal around 9, within [1, 600]. */
  drawFeeRate(): number {
    if (this.rng.chance(0.22)) return round1(1 + 1.5 * this.rng.float());
    return round1(Math.min(600, Math.max(1, this.rng.logNormal(9, 1.0))));
  }

  /** Signs `plan`, setting the fee from the rate and the estimated size; undefined if unfundable. */
  spend(plan: SpendPlan): SimTx | undefined {
    const inSat = plan.coins.reduce((s, c) => s + c.valueSat, 0);
    const paySat = plan.pay.reduce((s, o) => s + o.valueSat, 0);
    if (plan.pay.some((o) => o.valueSat < dustThresholdSat(o.script))) return undefined;
    const types = plan.coins.map((c) => c.owner.type);
    const feeFor = (outputs: readonly TxOutput[]): number => Math.max(Math.ceil((plan.feeRateSatVb * estimateWeight(types, outputs)) / 4), plan.minFeeSat ?? 0);
    let outputs = plan.pay;
    if (plan.change) {
      const withChange = [...plan.pay, { valueSat: 0, script: plan.change.script }];
      const change = inSat - paySat - feeFor(withChange);
      if (change >= dustThresholdSat(plan.change.script)) outputs = [...plan.pay, { valueSat: change, script: plan.change.script }];
    }
    if (inSat - outputs.reduce((s, o) => s + o.valueSat, 0) < feeFor(outputs)) return undefined;
    const meta = this.meta();
    return signSpend({
      version: plan.version ?? meta.version,
      lockTime: plan.lockTime ?? meta.lockTime,
      inputs: plan.coins.map((c) => ({ txid: c.txid, vout: c.vout, sequence: plan.sequence ?? meta.sequence, prevout: c, owner: c.owner })),
      outputs,
    });
  }

  private meta(): { version: number; lockTime: number; sequence: number } {
    const version = this.rng.chance(0.92) ? 2 : 1;
    const lockTime = this.rng.chance(0.7) ? this.chain.height : 0; // anti-fee-sniping, as Core's wallet
    const sequence = this.rng.chance(0.85) ? SEQUENCE_RBF : lockTime ? SEQUENCE_LOCKTIME_ENABLED : SEQUENCE_FINAL;
    return { version, lockTime, sequence };
  }

  private randomAddress(): SimAddress {
    return this.rng.pick(this.wallet.addresses);
  }

  /** Up to `count` distinct confirmed coins, drawn uniformly. */
  private pickConfirmed(count: number): WalletCoin[] {
    const picked = new Map<string, WalletCoin>();
    for (let tries = 0; picked.size < count && tries < count * 3; tries++) {
      const c = this.wallet.confirmed.pick(this.rng);
      if (!c) break;
      picked.set(outpointKey(c.txid, c.vout), c);
    }
    return [...picked.values()];
  }

  /** An unconfirmed coin whose transaction leaves room for one more descendant, if one is found quickly. */
  private pickUnconfirmed(extraVsize: number): WalletCoin | undefined {
    for (let tries = 0; tries < 16; tries++) {
      const c = this.wallet.unconfirmed.pick(this.rng);
      if (!c) return undefined;
      if (this.roomFor([c.txid], extraVsize)) return c;
    }
    return undefined;
  }

  /** Whether a new child of `parents` keeps the cluster within v31 limits and the chain within 25. */
  private roomFor(parents: readonly string[], extraVsize: number): boolean {
    const cluster = new Set<string>();
    let vsize = 0;
    for (const p of parents) {
      if (!this.mempool.has(p)) continue;
      if (this.mempool.ancestors(p).size + 2 > SIM_MAX_CHAIN_DEPTH) return false;
      for (const t of this.mempool.cluster(p)) {
        if (cluster.has(t)) continue;
        cluster.add(t);
        vsize += this.mempool.entry(t).vsizeAdjusted;
      }
    }
    return cluster.size + 1 <= CLUSTER_COUNT_LIMIT && vsize + extraVsize <= CLUSTER_SIZE_LIMIT_VB;
  }

  private amount(total: number, min: number, max: number): number {
    const raw = total * (min + (max - min) * this.rng.float());
    return this.rng.chance(0.5) ? Math.max(1000, Math.round(raw / 1000) * 1000) : Math.round(raw);
  }

  /**
   * Inputs of a payment: usually confirmed coins; an unconfirmed change output 20 % of the time,
   * more often as confirmed coins run low (people spend unconfirmed change in busy times), so a
   * large mempool keeps growing from its own outputs.
   */
  private paymentInputs(count: number): WalletCoin[] {
    const scarcity = Math.max(0, 1 - this.wallet.confirmed.size / 2_000);
    if (this.rng.chance(0.2 + 0.75 * scarcity)) {
      const c = this.pickUnconfirmed(300);
      if (c && c.valueSat >= MIN_UNCONFIRMED_SPEND_SAT) return [c];
    }
    const coins = this.pickConfirmed(count);
    if (coins.length) return coins;
    const c = this.pickUnconfirmed(300);
    return c && c.valueSat >= MIN_UNCONFIRMED_SPEND_SAT ? [c] : [];
  }

  private payment(feeRateSatVb: number): SimTx | undefined {
    const coins = this.paymentInputs(1 + this.rng.weighted([72, 18, 7, 3]));
    const [first] = coins;
    if (!first) return undefined;
    const total = coins.reduce((s, c) => s + c.valueSat, 0);
    const pay: TxOutput[] = [{ valueSat: this.amount(total, 0.05, 0.85), script: this.randomAddress().script }];
    if (this.rng.chance(0.02)) pay.push({ valueSat: 0, script: opReturn(this.rng) });
    const change = this.rng.chance(0.7) ? first.owner : this.randomAddress();
    return this.spend({ coins, pay, change, feeRateSatVb });
  }

  private batch(): SimTx | undefined {
    const candidates = this.pickConfirmed(6).sort((a, b) => b.valueSat - a.valueSat);
    const coins = candidates.slice(0, this.rng.int(1, 3));
    const [first] = coins;
    if (!first) return undefined;
    const total = coins.reduce((s, c) => s + c.valueSat, 0);
    const n = Math.round(this.rng.logUniform(8, 120));
    const pay: TxOutput[] = [];
    let paid = 0;
    for (let i = 0; i < n; i++) {
      const v = this.amount(total, 0.001, 0.02);
      if (paid + v > total * 0.8) break;
      paid += v;
      pay.push({ valueSat: v, script: this.randomAddress().script });
    }
    if (pay.length < 2) return undefined;
    return this.spend({ coins, pay, change: first.owner, feeRateSatVb: this.drawFeeRate() });
  }

  private consolidation(): SimTx | undefined {
    const k = Math.round(this.rng.logUniform(5, 25));
    const coins = this.pickConfirmed(2 * k)
      .sort((a, b) => a.valueSat - b.valueSat)
      .slice(0, k);
    const [first] = coins;
    if (!first || coins.length < 2) return undefined;
    const to = first.owner;
    const total = coins.reduce((s, c) => s + c.valueSat, 0);
    const feeRateSatVb = round1(1 + 3 * this.rng.float());
    const fee = Math.ceil(
      (feeRateSatVb *
        estimateWeight(
          coins.map((c) => c.owner.type),
          [{ valueSat: 0, script: to.script }],
        )) /
        4,
    );
    return this.spend({ coins, pay: [{ valueSat: total - fee, script: to.script }], feeRateSatVb: 0, minFeeSat: fee });
  }

  private cpfp(): SimTx | undefined {
    for (let i = this.lowFeeParents.length - 1; i >= 0; i--) {
      const parentTxid = at(this.lowFeeParents, i);
      const parent = this.mempool.get(parentTxid);
      const coin = parent && parent.tx.outputs.map((_, vout) => this.wallet.unconfirmed.get(outpointKey(parentTxid, vout))).find((c) => c !== undefined);
      if (!parent || !coin) {
        this.lowFeeParents.splice(i, 1);
        continue;
      }
      if (!this.roomFor([parentTxid], 200)) continue;
      this.lowFeeParents.splice(i, 1);
      let packageFee = parent.feeSat;
      let packageVsize = parent.vsizeAdjusted;
      for (const a of this.mempool.ancestors(parentTxid)) {
        const ancestor = this.mempool.entry(a);
        packageFee += ancestor.feeSat;
        packageVsize += ancestor.vsizeAdjusted;
      }
      const coins = [coin, ...(coin.valueSat < 200_000 ? this.pickConfirmed(1) : [])];
      const to = this.randomAddress();
      const childVsize = Math.ceil(
        estimateWeight(
          coins.map((c) => c.owner.type),
          [{ valueSat: 0, script: to.script }],
        ) / 4,
      );
      const target = 15 + 65 * this.rng.float();
      const childFee = Math.max(Math.ceil(target * (packageVsize + childVsize) - packageFee), childVsize);
      const total = coins.reduce((s, c) => s + c.valueSat, 0);
      return this.spend({ coins, pay: [{ valueSat: total - childFee, script: to.script }], feeRateSatVb: 0, minFeeSat: childFee });
    }
    return undefined;
  }

  private chainLink(): SimTx | undefined {
    let coin: WalletCoin | undefined;
    while (this.chainHeads.length && !coin) {
      const i = this.rng.int(0, this.chainHeads.length - 1);
      const key = at(this.chainHeads, i);
      const c = this.wallet.unconfirmed.get(key);
      this.chainHeads.splice(i, 1);
      if (c && this.roomFor([c.txid], 300)) coin = c;
    }
    coin ??= this.pickUnconfirmed(300);
    if (!coin) return undefined;
    const pay = [{ valueSat: this.amount(coin.valueSat, 0.05, 0.5), script: this.randomAddress().script }];
    return this.spend({ coins: [coin], pay, change: coin.owner, feeRateSatVb: this.drawFeeRate() });
  }
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

function pushBounded<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.shift();
}

/** A small OP_RETURN (20 bytes of data), as commitments and protocol markers use. */
function opReturn(rng: Rng): Uint8Array {
  const out = new Uint8Array(22);
  out[0] = 0x6a;
  out[1] = 20;
  for (let i = 2; i < 22; i++) out[i] = rng.int(0, 255);
  return out;
}
