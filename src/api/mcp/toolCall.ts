/**
 * One MCP tool call, served as the HTTP request it stands for (`toolRequest`), injected into this
 * app: the route's validation and prechecks, the freshness check, the payment gate (verify, serve,
 * settle only what was served; replays; the ledger; Redis across replicas) and the rate limits
 * (the caller's address is forwarded) all apply exactly as over HTTP.
 *
 * The x402 MCP transport (x402 specs/transports-v2/mcp.md) maps onto the HTTP exchange:
 * - `_meta["x402/payment"]` (a PaymentPayload) → header `PAYMENT-SIGNATURE` (base64 JSON);
 * - a 402 → a tool result with `isError: true` carrying the PaymentRequired object in
 *   `structuredContent` and, as JSON text, in `content[0].text`;
 * - a paid answer → the tool result with the SettlementResponse in `_meta["x402/payment-response"]`;
 * - any other refusal or error → a tool error naming the code (nothing was charged).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { McpToolError, toolRequest, type McpTool } from './tools.js';

export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';

/** Headers of the MCP request that the injected one keeps: where the caller connected, and from where. */
const FORWARDED = ['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'user-agent'] as const;

const text = (value: unknown) => [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value) }];

/** An error result: its text for people, the REST error envelope (or the JSON-RPC error) as structured content. */
function toolError(message: string, structured: Record<string, unknown>): CallToolResult {
  return { isError: true, content: text(message), structuredContent: structured };
}

function refusal(code: string, message: string): CallToolResult {
  return toolError(`${code}: ${message} (nothing was charged)`, { success: false, error: { code, message } });
}

function decodeBase64Json(header: string | string[] | number | undefined): Record<string, unknown> | undefined {
  if (typeof header !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export async function callTool(app: FastifyInstance, from: FastifyRequest, tool: McpTool, args: unknown, meta: unknown): Promise<CallToolResult> {
  let request;
  try {
    request = toolRequest(tool, args);
  } catch (error) {
    if (error instanceof McpToolError) return refusal('INVALID_REQUEST', error.message);
    throw error;
  }
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = from.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const payment = isObject(meta) ? meta[PAYMENT_META] : undefined;
  if (payment !== undefined) {
    if (!isObject(payment)) return refusal('PAYMENT_MALFORMED', `_meta["${PAYMENT_META}"] must be a PaymentPayload object`);
    headers['payment-signature'] = Buffer.from(JSON.stringify(payment), 'utf8').toString('base64');
  }
  const res = await app.inject({
    method: request.method,
    url: request.url,
    headers,
    ...(request.body !== undefined ? { payload: request.body } : {}),
    ...(from.socket.remoteAddress ? { remoteAddress: from.socket.remoteAddress } : {}),
  });
  const settlement = decodeBase64Json(res.headers['payment-response']);
  const _meta = settlement ? { [PAYMENT_RESPONSE_META]: settlement } : undefined;
  const body = parseJson(res.body);

  if (res.statusCode === 402) {
    // The challenge (or a refused settlement's fresh one): the PaymentRequired object, as the spec asks.
    const challenge = isObject(body) && 'x402Version' in body ? body : decodeBase64Json(res.headers['payment-required']);
    if (!challenge) return refusal('INTERNAL', 'the payment challenge could not be read');
    return { isError: true, structuredContent: challenge, content: text(challenge), ...(_meta ? { _meta } : {}) };
  }
  if (res.statusCode !== 200 || body === undefined || (tool.source.kind === 'method' && !isObject(body))) {
    const error = isObject(body) && isObject(body.error) ? body.error : { code: `HTTP_${res.statusCode}`, message: res.body.slice(0, 200) };
    const retry = res.headers['retry-after'];
    // The gate charges only a served answer: an error is never charged.
    return toolError(`${String(error.code)}: ${String(error.message)}${retry !== undefined ? ` (retry after ${String(retry)} s)` : ''} (nothing was charged)`, {
      success: false,
      error,
    });
  }
  if (tool.source.kind === 'method' && isObject(body)) {
    if (isObject(body.error)) {
      return toolError(`JSON-RPC error ${String(body.error.code)}: ${String(body.error.message)} (nothing was charged)`, { error: body.error });
    }
    const structured = { result: body.result ?? null };
    return { structuredContent: structured, content: text(structured), ...(_meta ? { _meta } : {}) };
  }
  const structured = tool.wrapped || !isObject(body) ? { result: body } : body;
  return { structuredContent: structured, content: text(body), ...(_meta ? { _meta } : {}) };
}
