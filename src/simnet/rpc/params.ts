/**
 * Parameters of the simulated node's RPC methods, checked as Core's `RPCHelpMan` does: positional
 * (array) or named (object) params; too many or a missing required one → -1 with the usage line;
 * a value of the wrong JSON type → -3 "JSON value of type X is not of expected type Y"; an unknown
 * name → -8. Values are checked with zod. Helpers parse hashes, amounts and fee rates as Core's
 * `ParseHashV`, `AmountFromValue` and `ParseFeeRate` do.
 */
import { z } from 'zod';
import { COIN } from '../consensus/params.js';
import { RPC_ERROR, RpcError } from './errors.js';

export type ParamType = 'string' | 'number' | 'bool' | 'array' | 'object' | 'amount' | 'verbosity';

export interface ParamSpec {
  name: string;
  type: ParamType;
  required?: boolean;
}

const SCHEMAS: Record<ParamType, z.ZodType> = {
  string: z.string(),
  number: z.number(),
  bool: z.boolean(),
  array: z.array(z.unknown()),
  object: z.record(z.string(), z.unknown()),
  amount: z.union([z.number(), z.string()]),
  verbosity: z.union([z.number(), z.boolean()]),
};

const EXPECTED: Record<ParamType, string> = {
  string: 'string',
  number: 'number',
  bool: 'bool',
  array: 'array',
  object: 'object',
  amount: 'number',
  verbosity: 'number',
};

/** JSON type name as Core's `uvTypeName`. */
export function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return 'object';
}

/** Usage line, e.g. `getblockhash height`, plus the method's one-line description. */
export function usage(method: string, specs: readonly ParamSpec[], description: string): string {
  const args = specs.map((s) => (s.required ? s.name : `( ${s.name} )`)).join(' ');
  return `${method}${args ? ` ${args}` : ''}\n\n${description}`;
}

/**
 * Positional values for `specs` from JSON-RPC `params` (array, object or absent); `undefined` for
 * absent optional ones (JSON null counts as absent, as in Core).
 * @throws RpcError -1 (count), -3 (type), -8 (unknown named parameter)
 */
export function parseParams(method: string, specs: readonly ParamSpec[], params: unknown, description: string): unknown[] {
  let values: unknown[];
  if (params === undefined || params === null) values = [];
  else if (Array.isArray(params)) values = params;
  else if (typeof params === 'object') {
    const named = params as Record<string, unknown>;
    for (const key of Object.keys(named)) {
      if (!specs.some((s) => s.name === key)) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, `Unknown named parameter ${key}`);
    }
    values = specs.map((s) => named[s.name]);
  } else throw new RpcError(RPC_ERROR.INVALID_REQUEST, 'Params must be an array or object');
  if (values.length > specs.length) throw new RpcError(RPC_ERROR.MISC_ERROR, usage(method, specs, description));
  return specs.map((spec, i) => {
    const v = values[i];
    if (v === undefined || v === null) {
      if (spec.required) throw new RpcError(RPC_ERROR.MISC_ERROR, usage(method, specs, description));
      return undefined;
    }
    if (!SCHEMAS[spec.type].safeParse(v).success) {
      throw new RpcError(RPC_ERROR.TYPE_ERROR, `JSON value of type ${jsonTypeName(v)} is not of expected type ${EXPECTED[spec.type]}`);
    }
    return v;
  });
}

const HASH = z.string().regex(/^[0-9a-fA-F]{64}$/);

/** Core's `ParseHashV`: 64 hex characters, returned lower-case. @throws RpcError -8 */
export function parseHash(value: unknown, name: string): string {
  const s = String(value);
  if (HASH.safeParse(s).success) return s.toLowerCase();
  if (s.length !== 64) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, `${name} must be of length 64 (not ${s.length}, for '${s.slice(0, 100)}')`);
  throw new RpcError(RPC_ERROR.INVALID_PARAMETER, `${name} must be hexadecimal string (not '${s.slice(0, 100)}')`);
}

/** Core's `AmountFromValue`: BTC as a number or numeric string, at most 8 decimals, in range → sats. @throws RpcError -3 */
export function parseAmountSat(value: unknown): number {
  const text = typeof value === 'number' ? value.toFixed(8) : String(value);
  if (!/^\d{1,8}(\.\d{1,8})?$/.test(text)) throw new RpcError(RPC_ERROR.TYPE_ERROR, 'Invalid amount');
  const [whole, frac = ''] = text.split('.');
  const sats = Number(whole) * COIN + Number(frac.padEnd(8, '0'));
  if (typeof value === 'number' && Math.abs(sats / COIN - value) > 1e-9) throw new RpcError(RPC_ERROR.TYPE_ERROR, 'Invalid amount');
  if (sats > 21_000_000 * COIN) throw new RpcError(RPC_ERROR.TYPE_ERROR, 'Amount out of range');
  return sats;
}

/** Core's `ParseFeeRate`: BTC/kvB below 1 → sat/kvB. @throws RpcError -3 / -8 */
export function parseFeeRateSatKvb(value: unknown): number {
  const sats = parseAmountSat(value);
  if (sats >= COIN) throw new RpcError(RPC_ERROR.INVALID_PARAMETER, 'Fee rates larger than or equal to 1BTC/kvB are not accepted');
  return sats;
}

/** Core's `ParseVerbosity`: a number, or a bool when allowed (true → 1). */
export function parseVerbosity(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (!Number.isInteger(value)) throw new RpcError(RPC_ERROR.TYPE_ERROR, 'JSON value is not an integer as expected');
  return value as number;
}

/** A JSON number that must be an integer (Core's `getInt`). @throws RpcError -3 */
export function parseInt32(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > 2 ** 31) {
    throw new RpcError(RPC_ERROR.TYPE_ERROR, 'JSON integer out of range');
  }
  return value;
}
