/**
 * JSON as Bitcoin Core writes it: amounts (`Btc`) as numbers with exactly 8 decimals
 * (`0.00012300`, never `1.23e-4`), and pre-serialized fragments (`RawJson`) spliced in verbatim so
 * large cached answers (the verbose mempool) are not re-serialized per request.
 */
import { Btc, btcString } from '../consensus/amount.js';

/** Already-serialized JSON: a string, or consecutive pieces of one (large answers). */
export class RawJson {
  constructor(readonly json: string | readonly string[]) {}
}

/** Serializes plain data, `Btc` and `RawJson`. Object keys keep insertion order; `undefined` members are left out. */
export function stringifyCore(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      out.push('null');
      return;
  }
  if (value instanceof Btc) {
    out.push(btcString(value.sats));
    return;
  }
  if (value instanceof RawJson) {
    if (typeof value.json === 'string') out.push(value.json);
    else out.push(...value.json);
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v, i) => {
      if (i) out.push(',');
      write(v, out);
    });
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    write(v, out);
  }
  out.push('}');
}
