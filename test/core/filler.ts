/**
 * Fills a regtest Core's mempool with a realistic, seeded mix made by the node's own wallet:
 * payments of many sizes and fee rates, batch payouts, consolidations, chains of unconfirmed
 * spends, CPFP children, `bumpfee` and conflicting replacements (some replaced twice), TRUC (v3)
 * parent/child pairs; by default more than one block's weight in total. The same seed makes the
 * same shapes, sizes and fee rates (txids differ: keys and signatures are the node's).
 */
import { parseAddress } from '../../src/bitcoin/address.js';
import { mulberry32 } from '../../src/util/mulberry32.js';
import type { Regtest } from './regtest.js';

export type FillProfile = 'mixed' | 'cpfp-heavy' | 'rbf-heavy';

export interface FillOptions {
  seed: number;
  profile?: FillProfile;
  /** Stop once the mempool holds this many vbytes (default 1.25 M: more than one block). */
  targetVsize?: number;
}

export interface Replacement {
  kind: 'bumpfee' | 'conflict';
  replacedTxid: string;
  replacementTxid: string;
}

export interface FillReport {
  txs: number;
  vsize: number;
  kinds: Record<string, number>;
  replacements: Replacement[];
  /** Pairs (parent, child) where the child pays for a low-rate parent. */
  cpfp: Array<{ parent: string; child: string }>;
  truc: Array<{ parent: string; child: string }>;
  /** Payments with a change output (its index) and no children: candidates for a later `bumpfee`. */
  bumpable: Array<{ txid: string; changeIndex: number }>;
}

interface Coin {
  txid: string;
  vout: number;
  sat: number;
  scriptPubKey: string;
}

interface Built {
  txid: string;
  vsize: number;
  feeSat: number;
  /** The outputs, as coins (all pay our own wallet). */
  outputs: Coin[];
}

const DUST_SAT = 1_000;
/** Receive addresses used: within the wallet's default keypool range (1,000), so all are its own. */
const ADDRESSES = 900;
/** Coins smaller than this are not spent: every kind of transaction can pay its outputs and fee from one. */
const MIN_COIN_SAT = 1_500_000;
const toBtc = (sat: number) => (sat / 1e8).toFixed(8);

/** Independent makers working at once (Core serves RPC on several threads); each has its own seed and coins. */
const LANES = 4;

/** The last fill started on each node. */
const fills = new WeakMap<Regtest, Promise<unknown>>();

/**
 * Fills the mempool; returns what was made. A fill starts only after the previous one on the same
 * node has ended: a test that timed out leaves its fill running, and a second fill listing the same
 * confirmed coins would spend them again (Core refuses the lower-fee spend: "insufficient fee").
 */
export function fillMempool(core: Regtest, options: FillOptions): Promise<FillReport> {
  const previous = fills.get(core) ?? Promise.resolve();
  const fill = previous.catch(() => undefined).then(() => fillNow(core, options));
  fills.set(core, fill);
  return fill;
}

async function fillNow(core: Regtest, options: FillOptions): Promise<FillReport> {
  const profile = options.profile ?? 'mixed';
  const target = options.targetVsize ?? 1_250_000;
  const addresses = (await walletAddresses(core, ADDRESSES)).map((a) => ({ address: a, scriptPubKey: parseAddress(a, 'regtest').scriptPubKeyHex }));
  const unspent = await core.rpc<Array<{ txid: string; vout: number; amount: number; scriptPubKey: string }>>('listunspent', 1);
  const coins = unspent
    .filter((u) => u.amount * 1e8 >= MIN_COIN_SAT)
    .map((u) => ({ txid: u.txid, vout: u.vout, sat: Math.round(u.amount * 1e8), scriptPubKey: u.scriptPubKey }))
    .sort((a, b) => b.sat - a.sat || a.txid.localeCompare(b.txid) || a.vout - b.vout);
  const report: FillReport = { txs: 0, vsize: 0, kinds: {}, replacements: [], cpfp: [], truc: [], bumpable: [] };
  const lanes = Array.from({ length: LANES }, (_, lane) =>
    runLane({ core, addresses, report, target, profile, rand: mulberry32(options.seed * 7919 + lane), pool: coins.filter((_, i) => i % LANES === lane) }),
  );
  // Every lane ends before the fill does, even when one fails: none keeps spending behind the next fill.
  const failed = (await Promise.allSettled(lanes)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  if (report.vsize < target) throw new Error(`filler ran out of confirmed coins at ${report.vsize} of ${target} vB: fund more (fundCoins)`);
  return report;
}

interface Lane {
  core: Regtest;
  addresses: Array<{ address: string; scriptPubKey: string }>;
  report: FillReport;
  target: number;
  profile: FillProfile;
  rand: () => number;
  /** This lane's confirmed coins. */
  pool: Coin[];
}

const KIND_WEIGHTS: Record<FillProfile, Record<string, number>> = {
  mixed: { payment: 50, batch: 8, consolidation: 5, chain: 8, cpfp: 8, bumpfee: 6, conflict: 6, truc: 5 },
  'cpfp-heavy': { payment: 10, batch: 10, consolidation: 3, chain: 12, cpfp: 50, bumpfee: 2, conflict: 3, truc: 10 },
  'rbf-heavy': { payment: 20, batch: 10, consolidation: 3, chain: 5, cpfp: 5, bumpfee: 20, conflict: 35, truc: 2 },
};

async function runLane({ core, addresses, report, target, profile, rand, pool }: Lane): Promise<void> {
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  // Log-uniform fee rates from 1 to 150 sat/vB; one in ten between 0.1 and 1 (below the old floor).
  const rate = () => (rand() < 0.1 ? 0.1 + rand() * 0.9 : Math.exp(rand() * Math.log(150)));
  shuffle(pool, rand);
  const take = (n: number): Coin[] => {
    if (pool.length < n) throw new Error(`lane out of coins (${pool.length} left, ${n} wanted)`);
    return pool.splice(pool.length - n, n);
  };
  const count = (kind: string, b: Built) => {
    report.kinds[kind] = (report.kinds[kind] ?? 0) + 1;
    report.txs++;
    report.vsize += b.vsize;
  };

  /** Builds, signs and relays a transaction paying `amounts` (the change, if any, last). */
  const send = async (inputs: Coin[], amounts: number[], feeRate: number, version = 2): Promise<Built> => {
    // Consecutive addresses from a random start: distinct, as createrawtransaction requires.
    const start = Math.floor(rand() * addresses.length);
    const payees = [...amounts, 0].map((_, i) => addresses[(start + i) % addresses.length] ?? { address: '', scriptPubKey: '' });
    const inSat = inputs.reduce((s, c) => s + c.sat, 0);
    const paid = amounts.reduce((s, a) => s + a, 0);
    let fee = Math.ceil(feeRate * p2wpkhVsize(inputs.length, amounts.length + 1));
    let change = inSat - paid - fee;
    if (change < DUST_SAT) {
      // No change output: what is left is the fee (a little more than the rate asks).
      change = 0;
      fee = inSat - paid;
    }
    if (fee < 0) throw new Error('filler transaction pays more than its inputs');
    const values = change > 0 ? [...amounts, change] : amounts;
    const outputs = values.map((sat, i) => ({ [payees[i]?.address ?? '']: toBtc(sat) }));
    const raw = await core.rpc<string>(
      'createrawtransaction',
      inputs.map((c) => ({ txid: c.txid, vout: c.vout })),
      outputs,
      0,
      true,
      version,
    );
    const prevtxs = inputs.map((c) => ({ txid: c.txid, vout: c.vout, scriptPubKey: c.scriptPubKey, amount: toBtc(c.sat) }));
    const signed = await core.rpc<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', raw, prevtxs);
    if (!signed.complete) throw new Error('wallet could not sign a filler transaction');
    const txid = await core.rpc<string>('sendrawtransaction', signed.hex, 0);
    return {
      txid,
      vsize: p2wpkhVsize(inputs.length, values.length),
      feeSat: fee,
      outputs: values.map((sat, vout) => ({ txid, vout, sat, scriptPubKey: payees[vout]?.scriptPubKey ?? '' })),
    };
  };

  /** Splits `coins` into `n` payments of random shares of about `share` of their value. */
  const split = (coins: Coin[], n: number, share: number) => {
    const total = coins.reduce((s, c) => s + c.sat, 0) * share;
    const weights = Array.from({ length: n }, () => 0.2 + rand());
    const sum = weights.reduce((s, w) => s + w, 0);
    return weights.map((w) => Math.max(DUST_SAT * 2, Math.floor((total * w) / sum)));
  };

  const table = Object.entries(KIND_WEIGHTS[profile]);
  const totalWeight = table.reduce((s, [, w]) => s + w, 0);
  const nextKind = () => {
    let x = rand() * totalWeight;
    for (const [kind, w] of table) if ((x -= w) < 0) return kind;
    return 'payment';
  };

  while (report.vsize < target) {
    const kind = nextKind();
    if (pool.length < 40) return; // the other lanes go on; fillMempool says if the target was missed
    switch (kind) {
      case 'payment': {
        const ins = take(between(1, 3));
        const amounts = split(ins, between(1, 2), 0.3 + rand() * 0.5);
        const payment = await send(ins, amounts, rate());
        count(kind, payment);
        if (payment.outputs.length > amounts.length) report.bumpable.push({ txid: payment.txid, changeIndex: amounts.length });
        break;
      }
      case 'batch': {
        const ins = take(between(2, 4));
        count(kind, await send(ins, split(ins, between(20, 250), 0.8), rate()));
        break;
      }
      case 'consolidation': {
        const ins = take(between(5, 30));
        count(kind, await send(ins, split(ins, 1, 0.98), Math.min(rate(), 5)));
        break;
      }
      case 'chain': {
        // Each spend pays from the previous one's change: a chain of 2 to 10 unconfirmed txs.
        let coins = take(1);
        for (let depth = between(2, 10); depth > 0; depth--) {
          const b = await send(coins, split(coins, 1, 0.2), rate());
          count(kind, b);
          const last = b.outputs.at(-1);
          if (!last || last.sat < 50_000) break;
          coins = [last];
        }
        break;
      }
      case 'cpfp': {
        const parent = await send(take(1), [], 0.1 + rand() * 0.4);
        count(kind, parent);
        const child = await send(parent.outputs.slice(-1), [], 20 + rand() * 100);
        count(kind, child);
        report.cpfp.push({ parent: parent.txid, child: child.txid });
        break;
      }
      case 'bumpfee': {
        const original = await send(take(1), [between(100_000, 1_000_000)], 1 + rand() * 5);
        // Counted once: the replacement takes the original's place (same size, one more sat/vB or so).
        count(kind, original);
        await core.rpc('syncwithvalidationinterfacequeue');
        const bumped = await bumpFee(core, original.txid, original.outputs.length - 1, Math.ceil(original.feeSat / original.vsize + 5 + rand() * 20));
        report.replacements.push({ kind: 'bumpfee', replacedTxid: original.txid, replacementTxid: bumped.txid });
        break;
      }
      case 'conflict': {
        // Spends the same coin again with other outputs and a higher fee; now and then twice.
        const coin = take(1);
        let previous = await send(coin, split(coin, 1, 0.5), 1 + rand() * 10);
        count(kind, previous);
        for (let round = rand() < 0.3 ? 2 : 1; round > 0; round--) {
          const nextRate = (previous.feeSat / previous.vsize) * 1.5 + 2;
          const replacement = await send(coin, split(coin, between(1, 2), 0.4), nextRate);
          report.replacements.push({ kind: 'conflict', replacedTxid: previous.txid, replacementTxid: replacement.txid });
          report.vsize -= previous.vsize;
          report.txs--;
          count(kind, replacement);
          previous = replacement;
        }
        break;
      }
      case 'truc': {
        const parent = await send(take(1), [between(100_000, 1_000_000)], 0.1 + rand(), 3);
        count(kind, parent);
        const child = await send(parent.outputs.slice(-1), [], 10 + rand() * 60, 3);
        count(kind, child);
        report.truc.push({ parent: parent.txid, child: child.txid });
        break;
      }
      default:
        throw new Error(`unknown filler kind ${kind}`);
    }
  }
}

/**
 * `bumpfee` on a transaction the wallet paid: its change output (`changeIndex`, sent to a receive
 * address, so named) pays the higher fee. Returns the replacement.
 */
export async function bumpFee(core: Regtest, txid: string, changeIndex: number, feeRateSatVb: number): Promise<{ txid: string }> {
  // The wallet learns of relayed transactions asynchronously.
  await core.rpc('syncwithvalidationinterfacequeue');
  return core.rpc<{ txid: string }>('bumpfee', txid, { fee_rate: feeRateSatVb, original_change_index: changeIndex });
}

/** Splits the wallet's coins into `count` confirmed coins (one fan-out per coinbase, then a block). */
export async function fundCoins(core: Regtest, count: number): Promise<void> {
  const addresses = await walletAddresses(core, ADDRESSES);
  const mature = await core.rpc<Array<{ txid: string; vout: number; amount: number }>>('listunspent', 100);
  const perCoinbase = 700;
  const needed = Math.ceil(count / perCoinbase);
  if (mature.length < needed) await core.mine(needed - mature.length);
  const coinbases = (await core.rpc<Array<{ txid: string; vout: number; amount: number }>>('listunspent', 100)).slice(0, needed);
  for (const [k, cb] of coinbases.entries()) {
    const each = toBtc(Math.floor(((cb.amount - 0.01) * 1e8) / perCoinbase));
    const outputs = Object.fromEntries(Array.from({ length: perCoinbase }, (_, i) => [addresses[(k * perCoinbase + i) % addresses.length], each]));
    const raw = await core.rpc<string>('createrawtransaction', [{ txid: cb.txid, vout: cb.vout }], outputs);
    const signed = await core.rpc<{ hex: string }>('signrawtransactionwithwallet', raw);
    await core.rpc('sendrawtransaction', signed.hex, 0);
  }
  await core.mine(1);
}

/** `count` receive addresses of the wallet, derived in one call from its bech32 descriptor. */
async function walletAddresses(core: Regtest, count: number): Promise<string[]> {
  const { descriptors } = await core.rpc<{ descriptors: Array<{ desc: string; internal?: boolean; active: boolean }> }>('listdescriptors');
  const wpkh = descriptors.find((d) => d.active && !d.internal && d.desc.startsWith('wpkh('));
  if (!wpkh) throw new Error('wallet has no active wpkh receive descriptor');
  return core.rpc<string[]>('deriveaddresses', wpkh.desc, [0, count - 1]);
}

/**
 * vsize of a transaction of P2WPKH inputs and outputs, with the 71-byte low-R signatures Core's
 * wallet makes (a rare 70-byte one makes the real size a quarter vbyte smaller, the rate higher).
 */
function p2wpkhVsize(inputs: number, outputs: number): number {
  const varint = (n: number) => (n < 253 ? 1 : 3);
  const base = 4 + varint(inputs) + 41 * inputs + varint(outputs) + 31 * outputs + 4;
  const witness = 2 + 107 * inputs;
  return Math.ceil((4 * base + witness) / 4);
}

function shuffle<T>(xs: T[], rand: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
}
