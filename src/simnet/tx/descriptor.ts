/**
 * Output descriptors as far as the simulator uses them: Core's descriptor checksum
 * (src/script/descriptor.cpp `DescriptorChecksum`), the inferred descriptor of a scriptPubKey
 * (`addr(…)` when it has an address, else `raw(…)`) and parsing the `addr(…)` / `raw(…)`
 * descriptors that `scantxoutset` accepts.
 */
import { Address, OutScript } from '@scure/btc-signer';
import { REGTEST_NETWORK } from '../consensus/params.js';
import { toHex } from './hash.js';
import { scriptAddress } from './script.js';

const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(c: bigint, value: number): bigint {
  const c0 = c >> 35n;
  let next = ((c & 0x7ffffffffn) << 5n) ^ BigInt(value);
  for (const [i, generator] of GENERATORS.entries()) if ((c0 >> BigInt(i)) & 1n) next ^= generator;
  return next;
}

/** The 8-character checksum of a descriptor string, or undefined if it has characters outside the charset. */
export function descriptorChecksum(desc: string): string | undefined {
  let c = 1n;
  let cls = 0;
  let clsCount = 0;
  for (const ch of desc) {
    const pos = INPUT_CHARSET.indexOf(ch);
    if (pos < 0) return undefined;
    c = polymod(c, pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clsCount === 3) {
      c = polymod(c, cls);
      cls = 0;
      clsCount = 0;
    }
  }
  if (clsCount > 0) c = polymod(c, cls);
  for (let j = 0; j < 8; j++) c = polymod(c, 0);
  c ^= 1n;
  let out = '';
  for (let j = 0; j < 8; j++) out += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - j))) & 31n)];
  return out;
}

/** `desc#checksum`. */
export function withChecksum(desc: string): string {
  return `${desc}#${descriptorChecksum(desc)}`;
}

/** Core's inferred descriptor of a scriptPubKey without key information. */
export function inferDescriptor(script: Uint8Array): string {
  const address = scriptAddress(script);
  return withChecksum(address ? `addr(${address})` : `raw(${toHex(script)})`);
}

/** Why a descriptor was refused (the message Core would give, or an honest one for unsupported forms). */
export class DescriptorError extends Error {}

/**
 * The scriptPubKey an `addr(ADDRESS)` or `raw(HEX)` descriptor stands for; a `#checksum`, if present,
 * must be right. Other descriptor functions are not supported by the simulator.
 * @throws DescriptorError
 */
export function descriptorScript(descriptor: string): Uint8Array {
  const hash = descriptor.indexOf('#');
  const body = hash >= 0 ? descriptor.slice(0, hash) : descriptor;
  if (hash >= 0) {
    const given = descriptor.slice(hash + 1);
    const computed = descriptorChecksum(body);
    if (given.length !== 8) throw new DescriptorError(`Expected 8 character checksum, not ${given.length} characters`);
    if (given !== computed) throw new DescriptorError(`Provided checksum '${given}' does not match computed checksum '${computed ?? ''}'`);
  }
  const match = /^([a-z_]+)\((.*)\)$/.exec(body);
  if (!match) throw new DescriptorError(`'${body}' is not a valid descriptor function`);
  const [, fn, arg] = match as unknown as [string, string, string];
  if (fn === 'addr') {
    try {
      return OutScript.encode(Address(REGTEST_NETWORK).decode(arg));
    } catch {
      throw new DescriptorError(`Address is not valid`);
    }
  }
  if (fn === 'raw') {
    if (!/^([0-9a-fA-F]{2})*$/.test(arg) || arg.length === 0) throw new DescriptorError('Raw script is not hex');
    return Buffer.from(arg, 'hex');
  }
  if (['pk', 'pkh', 'wpkh', 'sh', 'wsh', 'tr', 'combo', 'multi', 'sortedmulti', 'rawtr', 'musig', 'multi_a', 'sortedmulti_a'].includes(fn)) {
    throw new DescriptorError(`${fn}() descriptors are not supported by the simulated node; use addr() or raw()`);
  }
  throw new DescriptorError(`'${fn}(${arg})' is not a valid descriptor function`);
}
