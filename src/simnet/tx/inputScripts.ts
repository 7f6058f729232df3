/**
 * Input script verification of the simulated node, for the spends its wallet, its traffic and
 * any relayed transaction of those kinds make, with Core's policy flags (`STANDARD_SCRIPT_VERIFY_FLAGS`)
 * and Core's script error strings (`ScriptErrorString`):
 * - P2PKH and P2PK (legacy sighash), P2WPKH, P2WSH whose witness script is `<pubkey> OP_CHECKSIG`,
 *   both also wrapped in P2SH (BIP143), P2TR key path (BIP341), P2A (nothing to sign), and every
 *   sighash type Core accepts;
 * - each spend is checked as Core's interpreter runs those scripts: the same checks in the same
 *   order (strict DER, low S, defined hash type, key encoding, NULLFAIL, clean stack, witness
 *   program rules), so a failure names the error Core names.
 *
 * Spends it cannot verify (bare multisig, other P2SH / P2WSH scripts, Taproot script path, an annex)
 * are refused as non-standard by `unverifiableSpend` rather than accepted unverified.
 */
import { OP } from '@scure/btc-signer';
import { hash160, sha256 } from './hash.js';
import { isPushOnly, isStrictDerSignature, outputType, parseScript, witnessProgram } from './script.js';
import { SIGHASH_ANYONECANPAY, SIGHASH_DEFAULT, type SighashCache } from './sighash.js';
import { verifyEcdsa, verifySchnorr } from './sigVerify.js';
import type { TxFields, TxInput, TxOutput } from './txCodec.js';
import { bytesToBigInt } from './signer.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

/** Core's `ScriptErrorString` texts for the errors these spends can raise. */
export const SCRIPT_ERROR = {
  EVAL_FALSE: 'Script evaluated without error but finished with a false/empty top stack element',
  EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SIG_DER: 'Non-canonical DER signature',
  SIG_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  SIG_PUSHONLY: 'Only push operators allowed in signatures',
  MINIMALDATA: 'Data push larger than necessary',
  PUSH_SIZE: 'Push value size limit exceeded',
  PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  CLEANSTACK: 'Stack size must be exactly one after execution',
  WITNESS_PROGRAM_WITNESS_EMPTY: 'Witness program was passed an empty witness',
  WITNESS_PROGRAM_MISMATCH: 'Witness program hash mismatch',
  WITNESS_MALLEATED: 'Witness requires empty scriptSig',
  WITNESS_MALLEATED_P2SH: 'Witness requires only-redeemscript scriptSig',
  WITNESS_PUBKEYTYPE: 'Using non-compressed keys in segwit',
  SCHNORR_SIG_SIZE: 'Invalid Schnorr signature size',
  SCHNORR_SIG_HASHTYPE: 'Invalid Schnorr signature hash type',
  SCHNORR_SIG: 'Invalid Schnorr signature',
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 'Witness version reserved for soft-fork upgrades',
  WITNESS_PROGRAM_WRONG_LENGTH: 'Witness program has incorrect length',
  BAD_OPCODE: 'Opcode missing or not understood',
} as const;

const MAX_SCRIPT_ELEMENT_SIZE = 520;
const HALF_N = secp256k1.Point.CURVE().n >> 1n;
const TRUE = Uint8Array.of(1);
const FALSE = new Uint8Array(0);

/** Why a spend is refused before its scripts run: Core's reject reason and a detail. */
export interface UnverifiableSpend {
  reason: 'bad-txns-nonstandard-inputs' | 'bad-witness-nonstandard';
  details: string;
}

/** The P2SH redeem script (last push of a push-only scriptSig), if any. */
function redeemScriptOf(scriptSig: Uint8Array): Uint8Array | undefined {
  const ops = parseScript(scriptSig);
  return ops?.at(-1)?.data;
}

/** `<33- or 65-byte key> OP_CHECKSIG`: the only P2WSH witness script verified here. */
function isPubkeyChecksig(script: Uint8Array): boolean {
  return outputType(script) === 'pubkey';
}

/**
 * Whether input `index` spending `prev` is a spend this node can verify; if not, the refusal
 * (Core's `AreInputsStandard` / `IsWitnessStandard` reasons; the simulator refuses what it cannot
 * check rather than accept it unverified). Cheap: no signature is checked.
 */
export function unverifiableSpend(input: TxInput, index: number, prev: Uint8Array): UnverifiableSpend | undefined {
  const type = outputType(prev);
  const cannot = (what: string): UnverifiableSpend => ({
    reason: 'bad-txns-nonstandard-inputs',
    details: `input ${index}: ${what} is not verified by the simulated node, so it is refused`,
  });
  const hasWitness = input.witness.length > 0;
  let program = witnessProgram(prev);
  if (type === 'scripthash') {
    const redeem = redeemScriptOf(input.scriptSig);
    if (!redeem) return { reason: 'bad-txns-nonstandard-inputs', details: `input ${index} P2SH redeemscript missing` };
    program = witnessProgram(redeem);
    if (!program || program.version !== 0) return cannot('a P2SH spend other than P2SH-P2WPKH / P2SH-P2WSH');
  } else if (type === 'multisig') {
    return cannot('a bare multisig spend');
  }
  if (!program) return hasWitness ? { reason: 'bad-witness-nonstandard', details: `input ${index}: witness on a non-witness spend` } : undefined;
  if (type === 'anchor' && hasWitness) return { reason: 'bad-witness-nonstandard', details: `input ${index}: witness on a P2A spend` };
  if (program.version === 0 && program.program.length === 32 && hasWitness) {
    const script = input.witness.at(-1);
    if (script && !isPubkeyChecksig(script) && Buffer.compare(sha256(script), program.program) === 0) {
      return cannot('a P2WSH spend of a witness script other than <pubkey> OP_CHECKSIG');
    }
  }
  if (program.version === 1 && program.program.length === 32 && type === 'witness_v1_taproot') {
    const last = input.witness.at(-1);
    if (input.witness.length >= 2 && last && last[0] === 0x50) return { reason: 'bad-witness-nonstandard', details: `input ${index}: annex` };
    if (input.witness.length >= 2) return cannot('a Taproot script-path spend');
  }
  return undefined;
}

type Sigversion = 'base' | 'witness_v0';

/** Outcome of one script check: undefined when the input is valid, else Core's script error text. */
type ScriptResult = string | undefined;

/**
 * Verifies input `index` of `tx` spending `prevouts[index]`, with a shared sighash cache.
 * Precondition: `unverifiableSpend` accepted the input (otherwise the spend is refused here too).
 * Complexity: one signature verification plus O(script size).
 */
export function verifyInput(tx: TxFields, index: number, prevouts: readonly TxOutput[], sighash: SighashCache): ScriptResult {
  const input = tx.inputs[index];
  const prev = prevouts[index];
  if (!input || !prev) return SCRIPT_ERROR.INVALID_STACK_OPERATION;
  const stack = pushesOf(input.scriptSig);
  if (typeof stack === 'string') return stack;
  const type = outputType(prev.script);
  switch (type) {
    case 'pubkeyhash': {
      // OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY OP_CHECKSIG
      const top = stack.at(-1);
      if (!top) return SCRIPT_ERROR.INVALID_STACK_OPERATION;
      if (Buffer.compare(hash160(top), prev.script.subarray(3, 23)) !== 0) return SCRIPT_ERROR.EQUALVERIFY;
      return finishLegacy(checksig(stack, 'base', (ht) => sighash.legacy(index, prev.script, ht)));
    }
    case 'pubkey': {
      stack.push(prev.script.subarray(1, -1));
      return finishLegacy(checksig(stack, 'base', (ht) => sighash.legacy(index, prev.script, ht)));
    }
    case 'scripthash': {
      const redeem = stack.at(-1);
      if (!redeem) return SCRIPT_ERROR.INVALID_STACK_OPERATION;
      if (Buffer.compare(hash160(redeem), prev.script.subarray(2, 22)) !== 0) return SCRIPT_ERROR.EVAL_FALSE;
      const program = witnessProgram(redeem);
      if (!program || program.version !== 0) return SCRIPT_ERROR.EVAL_FALSE; // refused earlier as non-standard
      // The scriptSig must be exactly one push of the redeem script.
      if (input.scriptSig.length !== redeem.length + 1 || input.scriptSig[0] !== redeem.length) return SCRIPT_ERROR.WITNESS_MALLEATED_P2SH;
      return verifyWitnessV0(program.program, input.witness, index, sighash);
    }
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
    case 'witness_v1_taproot':
    case 'anchor':
    case 'witness_unknown': {
      if (input.scriptSig.length !== 0) return SCRIPT_ERROR.WITNESS_MALLEATED;
      const program = witnessProgram(prev.script);
      if (!program) return SCRIPT_ERROR.EVAL_FALSE;
      if (type === 'anchor') return undefined;
      if (type === 'witness_unknown') return SCRIPT_ERROR.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM;
      if (type === 'witness_v1_taproot') return verifyTaprootKeyPath(program.program, input.witness, index, sighash);
      return verifyWitnessV0(program.program, input.witness, index, sighash);
    }
    default:
      return SCRIPT_ERROR.EVAL_FALSE; // multisig, nulldata, nonstandard: refused before scripts run
  }
}

/** The items a push-only scriptSig leaves on the stack (MINIMALDATA and the element size enforced). */
function pushesOf(scriptSig: Uint8Array): Uint8Array[] | string {
  if (!isPushOnly(scriptSig)) return SCRIPT_ERROR.SIG_PUSHONLY;
  const ops = parseScript(scriptSig) ?? [];
  const stack: Uint8Array[] = [];
  for (const op of ops) {
    if (op.data) {
      if (op.data.length > MAX_SCRIPT_ELEMENT_SIZE) return SCRIPT_ERROR.PUSH_SIZE;
      if (!isMinimalPush(op.opcode, op.data)) return SCRIPT_ERROR.MINIMALDATA;
      stack.push(op.data);
    } else if (op.opcode === OP['1NEGATE']) stack.push(Uint8Array.of(0x81));
    else if (op.opcode >= OP.OP_1 && op.opcode <= OP.OP_16) stack.push(Uint8Array.of(op.opcode - OP.OP_1 + 1));
    else return SCRIPT_ERROR.BAD_OPCODE; // OP_RESERVED: push-only by Core's definition, fails when run
  }
  return stack;
}

/** `CheckMinimalPush`. */
function isMinimalPush(opcode: number, data: Uint8Array): boolean {
  const first = data[0];
  if (data.length === 0) return opcode === OP.OP_0;
  if (data.length === 1 && first !== undefined && first >= 1 && first <= 16) return false; // should be OP_1..OP_16
  if (data.length === 1 && first === 0x81) return false; // should be OP_1NEGATE
  if (data.length <= 75) return opcode === data.length;
  if (data.length <= 255) return opcode === OP.PUSHDATA1;
  if (data.length <= 65535) return opcode === OP.PUSHDATA2;
  return true;
}

/** After a legacy script: CLEANSTACK (policy) and a true top element. */
function finishLegacy(result: Uint8Array[] | string): ScriptResult {
  if (typeof result === 'string') return result;
  const top = result.at(-1);
  if (!top || !castToBool(top)) return SCRIPT_ERROR.EVAL_FALSE;
  if (result.length !== 1) return SCRIPT_ERROR.CLEANSTACK;
  return undefined;
}

/** After a witness script: exactly one element (consensus for segwit), and true. */
function finishWitness(result: Uint8Array[] | string): ScriptResult {
  if (typeof result === 'string') return result;
  if (result.length !== 1) return SCRIPT_ERROR.CLEANSTACK;
  const top = result.at(-1);
  if (!top || !castToBool(top)) return SCRIPT_ERROR.EVAL_FALSE;
  return undefined;
}

function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80); // negative zero
  }
  return false;
}

/** BIP141 witness v0: P2WPKH or P2WSH of `<pubkey> OP_CHECKSIG`. */
function verifyWitnessV0(program: Uint8Array, witness: readonly Uint8Array[], index: number, sighash: SighashCache): ScriptResult {
  if (program.length === 20) {
    if (witness.length !== 2) return SCRIPT_ERROR.WITNESS_PROGRAM_MISMATCH;
    if (witness.some((w) => w.length > MAX_SCRIPT_ELEMENT_SIZE)) return SCRIPT_ERROR.PUSH_SIZE;
    const scriptCode = Uint8Array.from([OP.DUP, OP.HASH160, 20, ...program, OP.EQUALVERIFY, OP.CHECKSIG]);
    const stack = [...witness];
    if (Buffer.compare(hash160(stack.at(-1) ?? FALSE), program) !== 0) return SCRIPT_ERROR.EQUALVERIFY;
    return finishWitness(checksig(stack, 'witness_v0', (ht) => sighash.bip143(index, scriptCode, ht)));
  }
  if (program.length === 32) {
    const script = witness.at(-1);
    if (!script) return SCRIPT_ERROR.WITNESS_PROGRAM_WITNESS_EMPTY;
    if (Buffer.compare(sha256(script), program) !== 0) return SCRIPT_ERROR.WITNESS_PROGRAM_MISMATCH;
    const stack = witness.slice(0, -1);
    if (stack.some((w) => w.length > MAX_SCRIPT_ELEMENT_SIZE)) return SCRIPT_ERROR.PUSH_SIZE;
    if (!isPubkeyChecksig(script)) return SCRIPT_ERROR.EVAL_FALSE; // refused earlier as non-standard
    stack.push(script.subarray(1, -1));
    return finishWitness(checksig(stack, 'witness_v0', (ht) => sighash.bip143(index, script, ht)));
  }
  return SCRIPT_ERROR.WITNESS_PROGRAM_WRONG_LENGTH;
}

/** BIP341 key path: one Schnorr signature, 64 bytes (SIGHASH_DEFAULT) or 65 with its hash type. */
function verifyTaprootKeyPath(outputKey: Uint8Array, witness: readonly Uint8Array[], index: number, sighash: SighashCache): ScriptResult {
  if (witness.length === 0) return SCRIPT_ERROR.WITNESS_PROGRAM_WITNESS_EMPTY;
  const sig = witness[0];
  if (witness.length !== 1 || !sig) return SCRIPT_ERROR.EVAL_FALSE; // script path: refused earlier as non-standard
  if (sig.length !== 64 && sig.length !== 65) return SCRIPT_ERROR.SCHNORR_SIG_SIZE;
  const hashType = sig.length === 65 ? (sig[64] ?? SIGHASH_DEFAULT) : SIGHASH_DEFAULT;
  if (sig.length === 65 && hashType === SIGHASH_DEFAULT) return SCRIPT_ERROR.SCHNORR_SIG_HASHTYPE;
  const digest = sighash.bip341(index, hashType);
  if (!digest) return SCRIPT_ERROR.SCHNORR_SIG_HASHTYPE;
  return verifySchnorr(sig.subarray(0, 64), digest, outputKey) ? undefined : SCRIPT_ERROR.SCHNORR_SIG;
}

/**
 * OP_CHECKSIG on `stack` (…, sig, pubkey) before Tapscript (`EvalChecksigPreTapscript` with the
 * standard flags); returns the stack after it, or the error. `digest(hashType)` is the sighash.
 */
function checksig(stack: Uint8Array[], sigversion: Sigversion, digest: (hashType: number) => Uint8Array): Uint8Array[] | string {
  if (stack.length < 2) return SCRIPT_ERROR.INVALID_STACK_OPERATION;
  const pubkey = stack.pop() ?? FALSE;
  const sig = stack.pop() ?? FALSE;
  if (sig.length > 0) {
    if (!isStrictDerSignature(sig)) return SCRIPT_ERROR.SIG_DER;
    if (!isLowS(sig)) return SCRIPT_ERROR.SIG_HIGH_S;
    if (!isDefinedHashType(sig.at(-1) ?? 0)) return SCRIPT_ERROR.SIG_HASHTYPE;
  }
  if (!isCompressedOrUncompressed(pubkey)) return SCRIPT_ERROR.PUBKEYTYPE;
  if (sigversion === 'witness_v0' && pubkey.length !== 33) return SCRIPT_ERROR.WITNESS_PUBKEYTYPE;
  const ok = sig.length > 0 && verifyEcdsa(sig.subarray(0, -1), digest(sig.at(-1) ?? 0), pubkey);
  if (!ok && sig.length > 0) return SCRIPT_ERROR.NULLFAIL;
  stack.push(ok ? TRUE : FALSE);
  return stack;
}

function isDefinedHashType(hashType: number): boolean {
  const base = hashType & ~SIGHASH_ANYONECANPAY;
  return base >= 1 && base <= 3;
}

/** `IsLowDERSignature`: S at most half the group order (strict DER already checked). */
function isLowS(sig: Uint8Array): boolean {
  const lenR = sig[3] ?? 0;
  const lenS = sig[5 + lenR] ?? 0;
  const s = bytesToBigInt(sig.subarray(6 + lenR, 6 + lenR + lenS));
  return s <= HALF_N;
}

/** `IsCompressedOrUncompressedPubKey` (STRICTENC). */
function isCompressedOrUncompressed(pubkey: Uint8Array): boolean {
  if (pubkey.length === 33) return pubkey[0] === 0x02 || pubkey[0] === 0x03;
  if (pubkey.length === 65) return pubkey[0] === 0x04;
  return false;
}
