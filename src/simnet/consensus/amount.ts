/**
 * Amount formatting as Core does it: JSON amounts (`ValueFromAmount`, always 8 decimals) and
 * messages (`FormatMoney`, trailing zeros trimmed down to two decimals).
 */
import { COIN } from './params.js';

/** BTC with 8 decimals, e.g. 12300 → "0.00012300". */
export function btcString(sats: number): string {
  const sign = sats < 0 ? '-' : '';
  const abs = Math.abs(Math.round(sats));
  return `${sign}${Math.floor(abs / COIN)}.${String(abs % COIN).padStart(8, '0')}`;
}

/** Core's `FormatMoney`: 10001 → "0.00010001", 50000 → "0.0005", 0 → "0.00". */
export function formatMoney(sats: number): string {
  let s = btcString(sats);
  while (s.endsWith('0') && /\d/.test(s[s.length - 3] ?? '')) s = s.slice(0, -1);
  return s;
}

/** A satoshi amount that serializes as Core's BTC JSON number (see `coreJson.ts`). */
export class Btc {
  constructor(readonly sats: number) {}
}
