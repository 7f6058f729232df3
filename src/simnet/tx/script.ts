/**
 * Script inspection as Core reports it: output type names (`Solver`/`GetTxnOutputType`), regtest
 * addresses, `asm` strings (`ScriptToAsmStr`, with `[ALL]` sighash decoding in scriptSigs) and
 * opcode parsing for sigop counting. Pure functions over bytes.
 */
import { OP } from '@scure/btc-signer';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { REGTEST_NETWORK } from '../consensus/params.js';
import { at } from '../../util/at.js';
import { sha256, toHex } from './hash.js';

const base58check = createBase58check(sha256);

export type OutputType =
  | 'pubkeyhash'
  | 'scripthash'
  | 'witness_v0_keyhash'
  | 'witness_v0_scripthash'
  | 'witness_v1_taproot'
  | 'witness_unknown'
  | 'anchor'
  | 'pubkey'
  | 'multisig'
  | 'nulldata'
  | 'nonstandard';

export interface ScriptOp {
  opcode: number;
  /** Pushed bytes for push opcodes (0x00–0x4e). */
  data?: Uint8Array;
}

/** Parses `script` into opcodes; `undefined` when a push runs past the end (Core's `GetOp` failure). */
export function parseScript(script: Uint8Array): ScriptOp[] | undefined {
  const { ops, truncated } = parseScriptPrefix(script);
  return truncated ? undefined : ops;
}

/** The opcodes before any truncated push, and whether one was found. Complexity: O(script length). */
export function parseScriptPrefix(script: Uint8Array): { ops: ScriptOp[]; truncated: boolean } {
  const ops: ScriptOp[] = [];
  let pc = 0;
  while (pc < script.length) {
    const opcode = at(script, pc++);
    if (opcode > OP.PUSHDATA4) {
      ops.push({ opcode });
      continue;
    }
    let size = opcode;
    if (opcode === OP.PUSHDATA1 || opcode === OP.PUSHDATA2 || opcode === OP.PUSHDATA4) {
      const width = opcode === OP.PUSHDATA1 ? 1 : opcode === OP.PUSHDATA2 ? 2 : 4;
      if (pc + width > script.length) return { ops, truncated: true };
      size = 0;
      for (let i = width - 1; i >= 0; i--) size = size * 256 + at(script, pc + i);
      pc += width;
    }
    if (pc + size > script.length) return { ops, truncated: true };
    ops.push({ opcode, data: script.subarray(pc, pc + size) });
    pc += size;
  }
  return { ops, truncated: false };
}

/** Witness program (version, program) of `script`, if it is one (BIP141: 4–42 bytes, one push of 2–40). */
export function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const v = at(script, 0);
  if (v !== OP.OP_0 && (v < OP.OP_1 || v > OP.OP_16)) return undefined;
  if (at(script, 1) + 2 !== script.length) return undefined;
  return { version: v === OP.OP_0 ? 0 : v - OP.OP_1 + 1, program: script.subarray(2) };
}

/** Core's output type name of a scriptPubKey. Complexity: O(script length). */
export function outputType(script: Uint8Array): OutputType {
  const n = script.length;
  if (n === 25 && script[0] === OP.DUP && script[1] === OP.HASH160 && script[2] === 20 && script[23] === OP.EQUALVERIFY && script[24] === OP.CHECKSIG)
    return 'pubkeyhash';
  if (n === 23 && script[0] === OP.HASH160 && script[1] === 20 && script[22] === OP.EQUAL) return 'scripthash';
  const wp = witnessProgram(script);
  if (wp) {
    if (wp.version === 0 && wp.program.length === 20) return 'witness_v0_keyhash';
    if (wp.version === 0 && wp.program.length === 32) return 'witness_v0_scripthash';
    if (wp.version === 1 && wp.program.length === 32) return 'witness_v1_taproot';
    if (wp.version === 1 && wp.program.length === 2 && wp.program[0] === 0x4e && wp.program[1] === 0x73) return 'anchor';
    return wp.version === 0 ? 'nonstandard' : 'witness_unknown';
  }
  if (n > 0 && script[0] === OP.RETURN) {
    const ops = parseScript(script.subarray(1));
    return ops && ops.every((o) => o.opcode <= OP.OP_16) ? 'nulldata' : 'nonstandard';
  }
  if ((n === 35 && script[0] === 33) || (n === 67 && script[0] === 65)) {
    if (script[n - 1] === OP.CHECKSIG) return 'pubkey';
  }
  if (isMultisig(script)) return 'multisig';
  return 'nonstandard';
}

function isMultisig(script: Uint8Array): boolean {
  const ops = parseScript(script);
  if (!ops || ops.length < 4 || at(ops, ops.length - 1).opcode !== OP.CHECKMULTISIG) return false;
  const m = smallInt(at(ops, 0).opcode);
  const n = smallInt(at(ops, ops.length - 2).opcode);
  if (m === undefined || n === undefined || m < 1 || n < m || ops.length !== n + 3) return false;
  return ops.slice(1, -2).every((o) => o.data !== undefined && (o.data.length === 33 || o.data.length === 65));
}

function smallInt(opcode: number): number | undefined {
  if (opcode === OP.OP_0) return 0;
  if (opcode >= OP.OP_1 && opcode <= OP.OP_16) return opcode - OP.OP_1 + 1;
  return undefined;
}

/** Regtest address of a scriptPubKey, or undefined when the script has none. */
export function scriptAddress(script: Uint8Array): string | undefined {
  const type = outputType(script);
  switch (type) {
    case 'pubkeyhash':
      return base58check.encode(concat([REGTEST_NETWORK.pubKeyHash], script.subarray(3, 23)));
    case 'scripthash':
      return base58check.encode(concat([REGTEST_NETWORK.scriptHash], script.subarray(2, 22)));
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
    case 'witness_v1_taproot':
    case 'witness_unknown':
    case 'anchor': {
      const wp = witnessProgram(script);
      if (!wp) return undefined; // these types are witness programs by definition
      const words = [wp.version, ...bech32.toWords(wp.program)];
      return wp.version === 0 ? bech32.encode(REGTEST_NETWORK.bech32, words, 90) : bech32m.encode(REGTEST_NETWORK.bech32, words, 90);
    }
    default:
      return undefined;
  }
}

function concat(prefix: number[], body: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

const OPCODE_NAMES: string[] = (() => {
  const names: string[] = [];
  for (const [name, code] of Object.entries(OP)) {
    if (typeof code !== 'number') continue;
    names[code] = name.startsWith('OP_') ? name : `OP_${name}`;
  }
  names[OP.INVALID] = 'OP_INVALIDOPCODE';
  return names;
})();

const SIGHASH_NAMES: Record<number, string> = {
  0x01: 'ALL',
  0x02: 'NONE',
  0x03: 'SINGLE',
  0x81: 'ALL|ANYONECANPAY',
  0x82: 'NONE|ANYONECANPAY',
  0x83: 'SINGLE|ANYONECANPAY',
};

/**
 * Core's `ScriptToAsmStr`: small pushes as numbers, longer ones as hex, opcodes by name. With
 * `decodeSighash` (scriptSigs), a strict-DER signature push shows its sighash type, e.g. `…[ALL]`.
 */
export function scriptAsm(script: Uint8Array, decodeSighash = false): string {
  const parts: string[] = [];
  const { ops, truncated } = parseScriptPrefix(script);
  const unspendable = script.length > 0 && script[0] === OP.RETURN;
  for (const op of ops) {
    if (op.data) {
      const sighash = decodeSighash && !unspendable && isStrictDerSignature(op.data) ? SIGHASH_NAMES[at(op.data, op.data.length - 1)] : undefined;
      if (op.data.length <= 4) parts.push(String(scriptNum(op.data)));
      else if (sighash) parts.push(`${toHex(op.data.subarray(0, -1))}[${sighash}]`);
      else parts.push(toHex(op.data));
    } else if (op.opcode === OP['1NEGATE']) parts.push('-1');
    else if (op.opcode >= OP.OP_1 && op.opcode <= OP.OP_16) parts.push(String(op.opcode - OP.OP_1 + 1));
    else parts.push(OPCODE_NAMES[op.opcode] ?? 'OP_UNKNOWN');
  }
  if (truncated) parts.push('[error]');
  return parts.join(' ');
}

/** CScriptNum value of a ≤ 4-byte push (little-endian, sign bit in the last byte). */
function scriptNum(data: Uint8Array): number {
  if (data.length === 0) return 0;
  let value = 0;
  for (const [i, byte] of data.entries()) value += byte * 2 ** (8 * i);
  const last = at(data, data.length - 1);
  if (last & 0x80) return -(value - 0x80 * 2 ** (8 * (data.length - 1)));
  return value;
}

/** BIP66 strict DER check of a signature with its trailing sighash byte (`IsValidSignatureEncoding`). */
export function isStrictDerSignature(sig: Uint8Array): boolean {
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30 || sig[1] !== sig.length - 3) return false;
  // Every index read below is inside `sig` once the lengths agree (checked in this order).
  const lenR = at(sig, 3);
  if (5 + lenR >= sig.length) return false;
  const lenS = at(sig, 5 + lenR);
  if (lenR + lenS + 7 !== sig.length) return false;
  if (sig[2] !== 0x02 || lenR === 0 || at(sig, 4) & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(at(sig, 5) & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02 || lenS === 0 || at(sig, lenR + 6) & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(at(sig, lenR + 7) & 0x80)) return false;
  return true;
}

/** True when every opcode is a push (standardness of scriptSigs). */
export function isPushOnly(script: Uint8Array): boolean {
  const ops = parseScript(script);
  return ops !== undefined && ops.every((o) => o.opcode <= OP.OP_16);
}
