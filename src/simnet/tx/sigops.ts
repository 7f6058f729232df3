/**
 * Sigop cost of a transaction (`GetTransactionSigOpCost` in src/consensus/tx_verify.cpp): legacy
 * sigops of scriptSigs and output scripts × 4, P2SH redeem-script sigops × 4, and witness sigops
 * (P2WPKH 1, P2WSH the witness script's). It feeds the sigop-adjusted size and the block sigop limit.
 */
import { OP } from '@scure/btc-signer';
import { WITNESS_SCALE_FACTOR } from '../consensus/params.js';
import { outputType, parseScript, parseScriptPrefix, witnessProgram } from './script.js';
import type { TxFields, TxOutput } from './txCodec.js';
import { at } from '../../util/at.js';

const MAX_PUBKEYS_PER_MULTISIG = 20;

/** Sigops in one script; `accurate` counts `OP_n CHECKMULTISIG` as n instead of 20. Complexity: O(length). */
export function scriptSigOps(script: Uint8Array, accurate: boolean): number {
  const { ops } = parseScriptPrefix(script);
  let count = 0;
  let last = 0xff;
  for (const op of ops) {
    if (op.opcode === OP.CHECKSIG || op.opcode === OP.CHECKSIGVERIFY) count++;
    else if (op.opcode === OP.CHECKMULTISIG || op.opcode === OP.CHECKMULTISIGVERIFY) {
      count += accurate && last >= OP.OP_1 && last <= OP.OP_16 ? last - OP.OP_1 + 1 : MAX_PUBKEYS_PER_MULTISIG;
    }
    last = op.opcode;
  }
  return count;
}

/** Last push of a push-only scriptSig (the P2SH redeem script), if any. */
function lastPush(scriptSig: Uint8Array): Uint8Array | undefined {
  const ops = parseScript(scriptSig);
  if (!ops || ops.length === 0 || ops.some((o) => o.opcode > OP.OP_16)) return undefined;
  return ops.at(-1)?.data;
}

function witnessSigOps(program: { version: number; program: Uint8Array }, witness: Uint8Array[]): number {
  if (program.version !== 0) return 0;
  if (program.program.length === 20) return 1;
  const witnessScript = witness.at(-1);
  if (program.program.length === 32 && witnessScript) return scriptSigOps(witnessScript, true);
  return 0;
}

/**
 * Sigop cost of `tx` spending `prevouts` (in input order). Coinbases count only legacy sigops.
 * Complexity: O(total script length).
 */
export function transactionSigOpCost(tx: TxFields, prevouts: readonly TxOutput[] | undefined): number {
  let legacy = 0;
  for (const i of tx.inputs) legacy += scriptSigOps(i.scriptSig, false);
  for (const o of tx.outputs) legacy += scriptSigOps(o.script, false);
  let cost = legacy * WITNESS_SCALE_FACTOR;
  if (!prevouts) return cost;
  tx.inputs.forEach((input, index) => {
    const prev = at(prevouts, index).script;
    let program = witnessProgram(prev);
    if (outputType(prev) === 'scripthash') {
      const redeem = lastPush(input.scriptSig);
      if (redeem) {
        cost += scriptSigOps(redeem, true) * WITNESS_SCALE_FACTOR;
        program = witnessProgram(redeem);
      }
    }
    if (program) cost += witnessSigOps(program, input.witness);
  });
  return cost;
}
