/**
 * The script checks of mempool acceptance, as Core's `MemPoolAccept` makes them:
 * - `checkSpendsVerifiable` with the input standardness checks (PreChecks): a spend the simulated
 *   node cannot verify is refused as non-standard, never accepted unverified;
 * - `checkInputScripts` last (PolicyScriptChecks): every input's signature, refused with Core's
 *   `mempool-script-verify-flag-failed (<script error>)` and `input N of <txid> (wtxid …), spending
 *   <outpoint>` (RPC -26), as v31 reports it.
 * A script cache keyed by wtxid (Core's script execution cache) spares the second verification of
 * `testmempoolaccept` followed by `sendrawtransaction`: an outpoint always names the same output, so
 * a wtxid that passed once passes again.
 */
import { SighashCache } from '../tx/sighash.js';
import { unverifiableSpend, verifyInput } from '../tx/inputScripts.js';
import type { SimTx, TxOutput } from '../tx/txCodec.js';
import type { Rejection } from './standardness.js';
import { at } from '../../util/at.js';

/** Wtxids whose scripts passed, the oldest forgotten first beyond `capacity`. */
export class ScriptCache {
  private readonly verified = new Set<string>();

  constructor(private readonly capacity = 50_000) {}

  has(wtxid: string): boolean {
    return this.verified.has(wtxid);
  }

  add(wtxid: string): void {
    if (this.verified.size >= this.capacity) {
      const oldest = this.verified.values().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.add(wtxid);
  }
}

/** The first input whose spend cannot be verified here, as Core's input standardness refusal. */
export function checkSpendsVerifiable(tx: SimTx, prevouts: readonly TxOutput[]): Rejection | undefined {
  for (const [index, input] of tx.inputs.entries()) {
    const refusal = unverifiableSpend(input, index, at(prevouts, index).script);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * Verifies every input's scripts and signatures (skipped for a wtxid in `cache`, added to it when
 * all pass). Complexity: one signature verification per input.
 */
export function checkInputScripts(tx: SimTx, prevouts: readonly (TxOutput & { txid: string; vout: number })[], cache?: ScriptCache): Rejection | undefined {
  if (cache?.has(tx.wtxid)) return undefined;
  const sighash = new SighashCache(tx, prevouts);
  for (let index = 0; index < tx.inputs.length; index++) {
    const error = verifyInput(tx, index, prevouts, sighash);
    if (error !== undefined) {
      const spent = at(prevouts, index);
      return {
        reason: `mempool-script-verify-flag-failed (${error})`,
        details: `input ${index} of ${tx.txid} (wtxid ${tx.wtxid}), spending ${spent.txid}:${spent.vout}`,
      };
    }
  }
  cache?.add(tx.wtxid);
  return undefined;
}
