/**
 * Cheap refusal of oversized or deeply nested bodies, before anything parses them.
 *
 * Each route's body limit is derived from the registry: one call (a REST body, or one JSON-RPC call)
 * needs at most `ONE_CALL_BODY_BYTES` (a 10-txid batch check is under 1 KB compact) unless it
 * declares `maxBodyBytes` (a signed transaction in hex), `/v1/rpc` takes `RPC_BATCH_MAX` small
 * calls or one of its largest, and `/mcp` one tool call of the largest with its payment. fastify refuses a larger body
 * with 413 from its `Content-Length`, or as soon as the stream passes the limit, without parsing.
 *
 * A body within its limit may still be built to be slow to parse (a deep `[[[[…]]]]`); no request
 * of ours nests deeper than `MAX_JSON_DEPTH`, so a linear scan that stops at the first level too
 * deep refuses it before `JSON.parse` allocates anything.
 */
import type { Route, RpcMethod } from './define.js';

/** Bytes one call may take, pretty-printed JSON included. */
export const ONE_CALL_BODY_BYTES = 4096;

/** Deepest nesting of arrays/objects any request needs (a JSON-RPC batch of objects with arrays is 5). */
export const MAX_JSON_DEPTH = 16;

/**
 * The body limit of a route: its declared `maxBodyBytes`, else `ONE_CALL_BODY_BYTES`; for the
 * JSON-RPC route, `batchMax` small calls or the largest method's call, whichever is more. Never
 * above `cap` (`BODY_LIMIT_BYTES`). Complexity: O(methods).
 */
export function routeBodyLimit(
  route: Pick<Route, 'kind'> & { maxBodyBytes?: number },
  methods: Iterable<Pick<RpcMethod, 'maxBodyBytes'>>,
  batchMax: number,
  cap: number,
  routes: Iterable<{ maxBodyBytes?: number }> = [],
): number {
  if (route.kind === 'mcp') {
    // One tool call: the largest route's or method's arguments, with room for the MCP envelope and an x402 payment in `_meta`.
    let largest = ONE_CALL_BODY_BYTES;
    for (const r of [...routes, ...methods]) largest = Math.max(largest, r.maxBodyBytes ?? 0);
    return Math.min(largest + 2 * ONE_CALL_BODY_BYTES, cap);
  }
  if (route.kind !== 'jsonrpc') return Math.min(route.maxBodyBytes ?? ONE_CALL_BODY_BYTES, cap);
  let largest = 0;
  for (const m of methods) largest = Math.max(largest, m.maxBodyBytes ?? 0);
  return Math.min(Math.max(batchMax * ONE_CALL_BODY_BYTES, largest + ONE_CALL_BODY_BYTES), cap);
}

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when `text`, read as JSON, opens more than `maxDepth` arrays/objects at once. Brackets in
 * strings do not count. Invalid JSON is left to the parser (this only bounds its work).
 * Complexity: O(n) in the prefix read, stopping at the first level too deep.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * Nesting depth of JSON read in pieces as it arrives (`src/api/bodyReader.ts`); brackets inside
 * strings do not count. It reads bytes: those of `[`, `]`, `{`, `}`, `"` and `\` never occur
 * inside a multi-byte UTF-8 character, so nothing needs decoding.
 */
export class DepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly maxDepth: number) {}

  /** Reads the next bytes; true as soon as more than `maxDepth` arrays/objects are open. O(n). */
  tooDeep(bytes: Uint8Array): boolean {
    for (const c of bytes) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++this.depth > this.maxDepth) return true;
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) this.depth--;
    }
    return false;
  }
}
