/** zod schemas shared by the REST routes and the JSON-RPC methods. */
import { z } from 'zod';

/** A txid: 64 hex characters, any case; normalized to lower case. */
export const Txid = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters')
  .transform((s) => s.toLowerCase());

/** An address as sent; checked against the node's network by `parseAddress`. */
export const AddressParam = z.string().min(1).max(200);

export const TxidParams = z.object({ txid: Txid });
export const AddressParams = z.object({ address: AddressParam });

/** A number of blocks from the query string: plain decimal digits only (no `0x10`, `1e3`, ` 6`). */
export const blocksQuery = (defaultValue: number) =>
  z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of blocks')
    .transform(Number)
    .pipe(z.number().int().min(1).max(1008))
    .default(defaultValue);

/** ISO 8601 from unix seconds. */
export function isoFromUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
