/**
 * Fee bumps of transactions the simulator can sign for: RBF replacements (same inputs, same
 * payments, the change output pays the difference, an extra confirmed input if change runs out)
 * and CPFP-style children that sweep a transaction's outputs.
 */
import { feeForVsize, INCREMENTAL_RELAY_FEE_SAT_KVB } from '../consensus/params.js';
import type { Mempool, MempoolEntry } from '../mempool/mempool.js';
import { at } from '../../util/at.js';
import type { Rng } from '../util/random.js';
import { dustThresholdSat } from '../mempool/standardness.js';
import { outpointKey, type SimTx, type TxOutput } from '../tx/txCodec.js';
import { estimateWeight, signSpend } from '../wallet/txSigner.js';
import type { Wallet, WalletCoin } from '../wallet/wallet.js';

export interface BumpContext {
  mempool: Mempool;
  wallet: Wallet;
  rng: Rng;
}

export interface ReplacementOptions {
  /**
   * Fee rate of the replacement, sat/vB. With `exact`, the fee is exactly this rate times the size
   * (rules not considered: tests build too-cheap replacements this way); otherwise it is raised as
   * needed to satisfy rules 3, 4 and (approximately) 6.
   */
  feeRateSatVb?: number;
  exact?: boolean;
  /** Exact absolute fee, sat (overrides the rate; rules not considered). */
  feeSat?: number;
  /** Version of the replacement (default the original's). */
  version?: number;
}

/** The inputs of `target` as wallet coins, or undefined when the simulator does not own them all. */
function ownedInputs(wallet: Wallet, target: MempoolEntry): WalletCoin[] | undefined {
  const coins: WalletCoin[] = [];
  for (const coin of target.prevouts) {
    const owner = wallet.owner(coin.script);
    if (!owner) return undefined;
    coins.push({ ...coin, owner });
  }
  return coins;
}

/**
 * A signed replacement of mempool entry `target`, or undefined when the simulator cannot build one
 * (inputs not its own, or no funds to raise the fee). Not submitted.
 */
export function buildReplacement(ctx: BumpContext, target: MempoolEntry, options: ReplacementOptions = {}): SimTx | undefined {
  const coins = ownedInputs(ctx.wallet, target);
  if (!coins) return undefined;
  const outputs: TxOutput[] = target.tx.outputs.map((o) => ({ ...o }));
  const changeIndex = outputs.findLastIndex((o) => ctx.wallet.owner(o.script) && o.valueSat > 0);
  const originals = [target.tx.txid, ...ctx.mempool.descendants(target.tx.txid)].map((t) => ctx.mempool.entry(t));
  const originalFee = originals.reduce((s, e) => s + e.feeSat, 0);
  const bestRate = Math.max(...originals.map((e) => e.feeSat / e.vsizeAdjusted));
  const targetRate = target.feeSat / target.vsizeAdjusted;
  const rate = options.feeRateSatVb ?? Math.max(targetRate * (1.3 + 1.2 * ctx.rng.float()), targetRate + 1);

  const attempt = (inputs: WalletCoin[], extraSat: number): SimTx | undefined => {
    const vsize = Math.ceil(
      estimateWeight(
        inputs.map((c) => c.owner.type),
        outputs,
      ) / 4,
    );
    const fee =
      options.feeSat !== undefined
        ? options.feeSat
        : options.exact
          ? Math.ceil(rate * vsize)
          : Math.max(Math.ceil(rate * vsize), originalFee + feeForVsize(INCREMENTAL_RELAY_FEE_SAT_KVB, vsize) + 1, Math.ceil(bestRate * 1.05 * vsize));
    if (changeIndex < 0) return undefined;
    const newOutputs = outputs.map((o) => ({ ...o }));
    const change = at(newOutputs, changeIndex);
    change.valueSat += target.feeSat + extraSat - fee;
    if (change.valueSat < dustThresholdSat(change.script)) return undefined;
    return signSpend({
      version: options.version ?? target.tx.version,
      lockTime: target.tx.lockTime,
      inputs: inputs.map((c, i) => ({
        txid: c.txid,
        vout: c.vout,
        sequence: (target.tx.inputs[i] ?? at(target.tx.inputs, 0)).sequence, // an added input signals as the first
        prevout: c,
        owner: c.owner,
      })),
      outputs: newOutputs,
    });
  };
  const direct = attempt(coins, 0);
  if (direct) return direct;
  const extra = ctx.wallet.confirmed.pick(ctx.rng);
  if (!extra || coins.some((c) => c.txid === extra.txid && c.vout === extra.vout)) return undefined;
  return attempt([...coins, extra], extra.valueSat);
}

/**
 * A signed transaction spending every output of `txid` the wallet owns (unconfirmed or confirmed)
 * (or only output `exact.vout`) into one wallet output at `feeRateSatVb` (or exactly `exact.feeSat`). Not submitted.
 * @throws Error when there is nothing to spend or the outputs cannot pay the fee
 */
export function buildChild(
  ctx: BumpContext,
  txid: string,
  feeRateSatVb: number,
  outputCount: number,
  exact: { feeSat?: number | undefined; vout?: number | undefined; version?: number | undefined } = {},
): SimTx {
  const coins: WalletCoin[] = [];
  for (let vout = 0; vout < outputCount; vout++) {
    if (exact.vout !== undefined && vout !== exact.vout) continue;
    const key = outpointKey(txid, vout);
    const coin = ctx.wallet.unconfirmed.get(key) ?? ctx.wallet.confirmed.get(key);
    if (coin) coins.push(coin);
  }
  const [first] = coins;
  if (!first) throw new Error(`no unspent simulator-owned outputs of ${txid}`);
  const to = first.owner;
  const vsize = Math.ceil(
    estimateWeight(
      coins.map((c) => c.owner.type),
      [{ valueSat: 0, script: to.script }],
    ) / 4,
  );
  const fee = exact.feeSat ?? Math.ceil(feeRateSatVb * vsize);
  const value = coins.reduce((s, c) => s + c.valueSat, 0) - fee;
  if (value < dustThresholdSat(to.script)) throw new Error(`outputs of ${txid} cannot pay ${fee} sat of fee`);
  return signSpend({
    version: exact.version ?? 2,
    lockTime: 0,
    inputs: coins.map((c) => ({ txid: c.txid, vout: c.vout, sequence: 0xfffffffd, prevout: c, owner: c.owner })),
    outputs: [{ valueSat: value, script: to.script }],
  });
}
