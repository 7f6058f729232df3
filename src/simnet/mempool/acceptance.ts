/**
 * Mempool acceptance (`MemPoolAccept::AcceptSingleTransaction` of Core v31), used by
 * `sendrawtransaction`, `testmempoolaccept` and the simulator's own traffic alike. Checks in Core's
 * order, each failure with Core's reject reason: CheckTransaction, coinbase, standardness,
 * finality, already known, conflicts, missing inputs, BIP68, input values and coinbase maturity,
 * sigops, min relay fee, replacement rules (`rbf.ts`), cluster limits (64 txs / 101 kvB).
 *
 * TRUC (v3) topology rules (`truc.ts`, with sibling eviction) are checked before the replacement rules.
 *
 * Input scripts and signatures are verified last, as Core's PolicyScriptChecks (`scriptCheck.ts`);
 * spends the node cannot verify are refused as non-standard with the input checks.
 *
 * Not checked: ephemeral dust,
 * and mempool trimming (the mempool never reaches `-maxmempool` in practice, so the minimum
 * mempool fee stays the relay minimum).
 */
import {
  CLUSTER_COUNT_LIMIT,
  CLUSTER_SIZE_LIMIT_VB,
  COINBASE_MATURITY,
  feeForVsize,
  MAX_MONEY_SAT,
  MAX_STANDARD_TX_SIGOPS_COST,
  MIN_RELAY_FEE_SAT_KVB,
  SEQUENCE_LOCKTIME_ENABLED,
} from '../consensus/params.js';
import { sigopAdjustedVsize } from '../../bitcoin/sigops.js';
import type { Chain } from '../chain/chain.js';
import type { Coin } from '../chain/coin.js';
import { MEMPOOL_HEIGHT, type Mempool, type MempoolEntry } from './mempool.js';
import type { MempoolPolicy } from './policy.js';
import { checkDiagram, checkReplacementFees, evictionSet, type ReplacementCandidate } from './rbf.js';
import { outputType } from '../tx/script.js';
import { transactionSigOpCost } from '../tx/sigops.js';
import { checkStandard, checkTransaction, isFinal, type Rejection } from './standardness.js';
import { checkTruc } from './truc.js';
import { checkInputScripts, checkSpendsVerifiable, type ScriptCache } from './scriptCheck.js';
import { isCoinbaseTx, outpointKey, type SimTx } from '../tx/txCodec.js';
import { formatMoney } from '../consensus/amount.js';
import { at } from '../../util/at.js';

export interface AcceptContext {
  chain: Chain;
  mempool: Mempool;
  /** Linearization for RBF rule 6. */
  policy: MempoolPolicy;
  /** Current time, Unix seconds (entry time). */
  now(): number;
  /** Wtxids whose scripts already passed (none: every call verifies). */
  scriptCache?: ScriptCache;
}

export interface AcceptOptions {
  /** Validate only (testmempoolaccept). */
  testOnly: boolean;
  /** Client `maxfeerate`, sat/kvB; 0 = no limit. */
  maxFeeRateSatKvb: number;
}

export type AcceptOutcome =
  | {
      ok: true;
      tx: SimTx;
      feeSat: number;
      vsizeAdjusted: number;
      /** Evicted transactions (direct conflicts and descendants), empty when nothing was replaced. */
      replaced: string[];
      entry?: MempoolEntry;
    }
  | {
      ok: false;
      tx: SimTx;
      /** `missing-inputs` → RPC -25; `already-in-mempool` → sendrawtransaction succeeds; `max-fee` → -25; others -26. */
      kind: 'missing-inputs' | 'already-in-mempool' | 'max-fee' | 'rejected';
      reason: string;
      /** Core's `TxValidationState::ToString()`: reason, then ", details" when there are any. */
      message: string;
    };

function reject(tx: SimTx, r: Rejection, kind: 'missing-inputs' | 'already-in-mempool' | 'rejected' = 'rejected'): AcceptOutcome {
  return { ok: false, tx, kind, reason: r.reason, message: r.details ? `${r.reason}, ${r.details}` : r.reason };
}

/** Validates `tx` against the chain tip and the mempool and, unless `testOnly`, adds it. */
export function acceptTransaction(ctx: AcceptContext, tx: SimTx, options: AcceptOptions): AcceptOutcome {
  const { chain, mempool } = ctx;
  const fail = checkTransaction(tx) ?? (isCoinbaseTx(tx) ? { reason: 'coinbase' } : undefined) ?? checkStandard(tx);
  if (fail) return reject(tx, fail);
  const nextHeight = chain.height + 1;
  if (!isFinal(tx, nextHeight, chain.medianTimePast())) return reject(tx, { reason: 'non-final' });
  if (mempool.hasWtxid(tx.wtxid)) return reject(tx, { reason: 'txn-already-in-mempool' }, 'already-in-mempool');
  if (mempool.has(tx.txid)) return reject(tx, { reason: 'txn-same-nonwitness-data-in-mempool' }, 'already-in-mempool');

  const directConflicts = new Set<string>();
  const prevouts: Coin[] = [];
  const parents = new Set<string>();
  for (const input of tx.inputs) {
    const key = outpointKey(input.txid, input.vout);
    const spender = mempool.spender(key);
    if (spender) directConflicts.add(spender);
    const coin = chain.coin(key) ?? mempool.outputCoin(input.txid, input.vout);
    if (!coin) {
      // Are the inputs missing because the transaction is already confirmed?
      if (tx.outputs.some((_, vout) => chain.coin(outpointKey(tx.txid, vout)))) return reject(tx, { reason: 'txn-already-known' });
      return reject(tx, { reason: 'bad-txns-inputs-missingorspent' }, 'missing-inputs');
    }
    if (coin.height === MEMPOOL_HEIGHT) parents.add(coin.txid);
    prevouts.push(coin);
  }
  const lock = checkSequenceLocks(ctx, tx, prevouts);
  if (lock) return reject(tx, lock);
  const inputs = checkInputs(tx, prevouts, nextHeight);
  if (typeof inputs !== 'number') return reject(tx, inputs);
  const feeSat = inputs;
  if (prevouts.some((c) => outputType(c.script) === 'nonstandard')) return reject(tx, { reason: 'bad-txns-nonstandard-inputs' });
  const unverifiable = checkSpendsVerifiable(tx, prevouts);
  if (unverifiable) return reject(tx, unverifiable);

  const sigopCost = transactionSigOpCost(tx, prevouts);
  if (sigopCost > MAX_STANDARD_TX_SIGOPS_COST) return reject(tx, { reason: 'bad-txns-too-many-sigops', details: String(sigopCost) });
  const vsizeAdjusted = sigopAdjustedVsize(tx.weight, sigopCost);
  const minFee = feeForVsize(MIN_RELAY_FEE_SAT_KVB, vsizeAdjusted);
  if (feeSat < minFee) return reject(tx, { reason: 'min relay fee not met', details: `${feeSat} < ${minFee}` });

  const truc = checkTruc(mempool, tx, vsizeAdjusted, parents, directConflicts);
  if (!truc.ok) return reject(tx, truc.rejection);
  if (truc.siblingToEvict !== null) directConflicts.add(truc.siblingToEvict);

  const candidate: ReplacementCandidate = { tx, feeSat, vsizeAdjusted, sigopCost, parents };
  const originals = directConflicts.size ? evictionSet(mempool, directConflicts) : new Set<string>();
  if (directConflicts.size) {
    const rbf = checkReplacementFees(mempool, candidate, directConflicts, originals);
    if (rbf) return reject(tx, rbf);
  }
  const cluster = clusterAfter(mempool, parents, originals);
  if (cluster.count + 1 > CLUSTER_COUNT_LIMIT || cluster.vsize + vsizeAdjusted > CLUSTER_SIZE_LIMIT_VB) {
    return reject(tx, { reason: 'too-large-cluster' });
  }
  if (directConflicts.size) {
    const diagram = checkDiagram(mempool, candidate, directConflicts, originals, ctx.policy);
    if (diagram) return reject(tx, diagram);
  }
  const scripts = checkInputScripts(tx, prevouts, ctx.scriptCache);
  if (scripts) return reject(tx, scripts);
  if (options.maxFeeRateSatKvb > 0 && feeSat > feeForVsize(options.maxFeeRateSatKvb, vsizeAdjusted)) {
    return { ok: false, tx, kind: 'max-fee', reason: 'max-fee-exceeded', message: 'max-fee-exceeded' };
  }
  if (options.testOnly) return { ok: true, tx, feeSat, vsizeAdjusted, replaced: [...originals] };

  if (originals.size) mempool.remove(orderForRemoval(mempool, originals), 'replaced');
  const entry = mempool.add({
    tx,
    feeSat,
    sigopCost,
    vsizeAdjusted,
    time: ctx.now(),
    height: chain.height,
    prevouts,
    signalsRbf: tx.inputs.some((i) => i.sequence < SEQUENCE_LOCKTIME_ENABLED),
  });
  return { ok: true, tx, feeSat, vsizeAdjusted, replaced: [...originals], entry };
}

/** `Consensus::CheckTxInputs`: maturity and value ranges; returns the fee or a rejection. */
function checkInputs(tx: SimTx, prevouts: readonly Coin[], spendHeight: number): number | Rejection {
  let valueIn = 0;
  for (const coin of prevouts) {
    if (coin.coinbase && spendHeight - coin.height < COINBASE_MATURITY) {
      return { reason: 'bad-txns-premature-spend-of-coinbase', details: `tried to spend coinbase at depth ${spendHeight - coin.height}` };
    }
    valueIn += coin.valueSat;
    if (valueIn > MAX_MONEY_SAT) return { reason: 'bad-txns-inputvalues-outofrange' };
  }
  const valueOut = tx.outputs.reduce((s, o) => s + o.valueSat, 0);
  if (valueIn < valueOut) return { reason: 'bad-txns-in-belowout', details: `value in (${formatMoney(valueIn)}) < value out (${formatMoney(valueOut)})` };
  return valueIn - valueOut;
}

/** BIP68 relative lock-times against the next block (`CheckSequenceLocksAtTip`). */
function checkSequenceLocks(ctx: AcceptContext, tx: SimTx, prevouts: readonly Coin[]): Rejection | undefined {
  if (tx.version < 2) return undefined;
  const nextHeight = ctx.chain.height + 1;
  const tipMtp = ctx.chain.medianTimePast();
  for (const [i, { sequence: seq }] of tx.inputs.entries()) {
    if (seq & 0x80000000) continue; // disable flag
    const prevHeight = at(prevouts, i).height;
    const coinHeight = prevHeight === MEMPOOL_HEIGHT ? nextHeight : prevHeight;
    if (seq & 0x00400000) {
      const minTime = ctx.chain.medianTimePast(Math.max(coinHeight - 1, 0)) + (seq & 0xffff) * 512 - 1;
      if (minTime >= tipMtp) return { reason: 'non-BIP68-final' };
    } else if (coinHeight + (seq & 0xffff) - 1 >= nextHeight) {
      return { reason: 'non-BIP68-final' };
    }
  }
  return undefined;
}

/** Size of the cluster the new transaction would join: its parents' clusters without the evicted. */
function clusterAfter(mempool: Mempool, parents: ReadonlySet<string>, evicted: ReadonlySet<string>): { count: number; vsize: number } {
  const seen = new Set<string>();
  const stack = [...parents].filter((p) => !evicted.has(p));
  for (const p of stack) seen.add(p);
  let vsize = 0;
  for (let txid = stack.pop(); txid !== undefined; txid = stack.pop()) {
    const e = mempool.entry(txid);
    vsize += e.vsizeAdjusted;
    for (const next of [...e.parents, ...e.children]) {
      if (seen.has(next) || evicted.has(next)) continue;
      seen.add(next);
      stack.push(next);
    }
  }
  return { count: seen.size, vsize };
}

/** Descendants before ancestors, so each removal leaves a consistent mempool. */
function orderForRemoval(mempool: Mempool, txids: ReadonlySet<string>): string[] {
  return [...txids].sort((a, b) => mempool.ancestors(b).size - mempool.ancestors(a).size);
}
