/**
 * `POST /mcp`, the Model Context Protocol endpoint (Streamable HTTP, stateless). Its tools are the
 * registry's routes and methods at their own prices (`tools.ts`); connecting and listing are free.
 */
import { z } from 'zod';
import { defineMcpRoute } from '../define.js';

const Id = z.union([z.string(), z.number()]);

/** One JSON-RPC 2.0 message of MCP (the SDK's transport checks each in full). */
const McpMessage = z.looseObject({ jsonrpc: z.literal('2.0'), id: Id.optional(), method: z.string().optional(), params: z.unknown().optional() });

const McpAnswer = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0'), id: Id.nullable(), result: z.unknown() }),
  z.looseObject({ jsonrpc: z.literal('2.0'), id: Id.nullable(), error: z.looseObject({ code: z.number().int(), message: z.string() }) }),
]);

export const mcpRoutes = [
  defineMcpRoute({
    family: 'rpc',
    method: 'POST',
    path: '/mcp',
    summary: 'Model Context Protocol (Streamable HTTP, stateless): one tool per route and JSON-RPC method at its price, paid with x402 in _meta',
    description:
      'Send MCP JSON-RPC messages (Accept: application/json, text/event-stream); answers are JSON. initialize, tools/list and resources/* are free. A priced tool called without _meta["x402/payment"] answers with the x402 PaymentRequired object (isError, structuredContent); the paid call carries the settlement in _meta["x402/payment-response"]. GET and DELETE answer 405 (no sessions).',
    body: z.union([McpMessage, z.array(McpMessage)]),
    response: McpAnswer,
    errors: ['RATE_LIMITED'],
    example: {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'block_height', arguments: {} } },
      response: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          content: [{ type: 'text', text: '{"success":true,"height":850000,"hex":"0xcf850"}' }],
          structuredContent: { success: true, height: 850000, hex: '0xcf850' },
        },
      },
    },
  }),
];
