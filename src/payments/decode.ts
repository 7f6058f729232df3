/**
 * `PAYMENT-SIGNATURE` header → PaymentPayload. Standard base64 of UTF-8 JSON, as @x402/core
 * encodes it. Anything that is not that (oversized, bad alphabet, not JSON, wrong shape) is a
 * malformed request (400); a well-formed payload of another protocol version is a payment refusal
 * (402) so the client gets a fresh challenge.
 */
import { PaymentPayloadSchema, VersionProbeSchema, X402_VERSION, type PaymentPayload } from './schemas.js';
import { firstIssue } from '../util/zodIssue.js';

/** Largest header accepted. A real exact-EVM payload is ~1.1 kB of base64; node's own limit is 16 kB. */
export const MAX_PAYMENT_HEADER_CHARS = 8192;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type DecodeResult = { kind: 'ok'; payload: PaymentPayload } | { kind: 'malformed'; reason: string } | { kind: 'version'; version: number };

/** Complexity: O(n) in the header length. */
export function decodePaymentHeader(header: string): DecodeResult {
  if (header.length > MAX_PAYMENT_HEADER_CHARS) {
    return { kind: 'malformed', reason: `PAYMENT-SIGNATURE is longer than ${MAX_PAYMENT_HEADER_CHARS} characters` };
  }
  const text = header.trim();
  if (text.length === 0 || text.length % 4 !== 0 || !BASE64.test(text)) {
    return { kind: 'malformed', reason: 'PAYMENT-SIGNATURE is not standard base64' };
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    return { kind: 'malformed', reason: 'PAYMENT-SIGNATURE does not decode to JSON' };
  }
  // One schema pass for a good payload; the version probe only decides what a refused one was.
  const parsed = PaymentPayloadSchema.safeParse(json);
  if (parsed.success) return { kind: 'ok', payload: parsed.data };
  const probe = VersionProbeSchema.safeParse(json);
  if (!probe.success) return { kind: 'malformed', reason: 'PAYMENT-SIGNATURE payload has no integer x402Version' };
  if (probe.data.x402Version !== X402_VERSION) return { kind: 'version', version: probe.data.x402Version };
  const issue = firstIssue(parsed.error);
  return { kind: 'malformed', reason: `PAYMENT-SIGNATURE payload.${issue.where}: ${issue.message}` };
}

const decodedFor = new WeakMap<object, { header: string; result: DecodeResult }>();

/**
 * `decodePaymentHeader` once per request: the rate limiter (is it a payment?) and the gate both
 * read the header of the same request (`owner`), and the base64 + JSON + schema pass is one of the
 * larger costs of a paid request (bench/paidProfile.ts).
 */
export function decodePaymentHeaderOf(owner: object, header: string): DecodeResult {
  const hit = decodedFor.get(owner);
  if (hit?.header === header) return hit.result;
  const result = decodePaymentHeader(header);
  decodedFor.set(owner, { header, result });
  return result;
}

/** Standard base64 of the UTF-8 JSON, for `PAYMENT-REQUIRED` and `PAYMENT-RESPONSE`. */
export function encodeHeaderJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}
