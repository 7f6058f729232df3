/** zod schemas shared by the REST routes and the JSON-RPC methods: request parts and answer pieces. */
import { z } from 'zod';
import { NETWORK_NAMES } from '../bitcoin/network.js';

/** A txid: 64 hex characters, any case; normalized to lower case. */
export const Txid = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters')
  .transform((s) => s.toLowerCase());

/** An address as sent; checked against the node's network by `parseAddress`. */
export const AddressParam = z.string().min(1).max(200);

/**
 * A request object that refuses unknown fields (DESIGN §5, strict inputs): a payer pays only for
 * the question it asked, so `?target=3` for `?blocks=` is a 400 naming the field and the accepted
 * ones, never an answer for the default. The error handler maps the issue to `UNKNOWN_PARAMETER`.
 */
export function strictObject<S extends z.core.$ZodLooseShape>(shape: S) {
  const accepted = Object.keys(shape).join(', ') || 'none';
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')} (accepted: ${accepted})` : undefined),
  });
}

/** The query of a paid route that takes none: any parameter is unknown. */
export const NoQuery = strictObject({});

export const TxidParams = strictObject({ txid: Txid });
export const AddressParams = strictObject({ address: AddressParam });

/** A whole number from the query string, 1..max: plain decimal digits only (no `0x10`, `1e3`, ` 6`). */
export const wholeNumberQuery = (max: number, defaultValue: number, what = 'a whole number') =>
  z
    .string()
    .regex(/^\d+$/, `must be ${what} (decimal digits)`)
    .transform(Number)
    // The range before int(): 10^20 is "too big", not "not an integer" (it is no safe integer).
    .pipe(z.number().min(1).max(max).int())
    .default(defaultValue);

/** A number of blocks from the query string: 1..1008 (Core's `estimatesmartfee` range). */
export const blocksQuery = (defaultValue: number) => wholeNumberQuery(1008, defaultValue, 'a whole number of blocks');

/** A confirmation target in a JSON body: 1..1008 blocks (Core's `estimatesmartfee` range). */
export const TargetBlocks = z.number().int().min(1).max(1008).default(6);

// --- answer pieces ---

/** Every successful answer says so. */
export const Success = z.literal(true);
/** The one timestamp format of every answer: ISO 8601 UTC. */
export const IsoTime = z.iso.datetime();

/**
 * The age of an answer derived from a snapshot (mempool view or optimizer cache): when its data was
 * last known to match the node (the view's last applied event or poll; the cache's cycle) and how
 * old that was when answered, in milliseconds (see `freshness.ts`).
 */
export const Freshness = { asOf: IsoTime, ageMs: z.number().int().nonnegative() };
export const Hash = z.string().regex(/^[0-9a-f]{64}$/);
export const Sat = z.number().int();
export const SatVb = z.number().nonnegative();
export const Network = z.enum(NETWORK_NAMES);
/** Ethereum-style hex quantity (`0x…`, no leading zeros). */
export const HexQuantity = z.string().regex(/^0x(0|[1-9a-f][0-9a-f]*)$/);
