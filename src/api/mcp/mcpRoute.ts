/**
 * `POST /mcp`: a Model Context Protocol server on the official SDK's Streamable HTTP transport,
 * stateless (a fresh server per HTTP request, JSON answers, no session: any replica answers
 * any message; GET and DELETE answer 405, as a stateless server may). `initialize`, `tools/list`
 * and the resources are free; each tool is served by `toolCall.ts` through the same routes and
 * payment gate as HTTP.
 *
 * Resources: the public documents (OpenAPI, OpenRPC, llms.txt, AGENTS.md, …), read through their
 * own free routes.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { SERVICE_VERSION } from '../../version.js';
import { baseUrl } from '../baseUrl.js';
import { routeBodyLimit } from '../bodyLimits.js';
import { CONTENT_TYPES, routeKey, type ApiContext, type McpRoute, type RestRoute } from '../define.js';
import { errorResponse, InvalidRequestRpcError, ParseRpcError } from '../shared/rpcErrors.js';
import { isDocument, SERVICE_SUMMARY, SERVICE_TITLE } from '../shared/serviceFacts.js';
import { callTool } from './toolCall.js';
import { buildTools, type McpTool } from './tools.js';

export interface McpRouteOptions {
  ctx: ApiContext;
  route: McpRoute;
}

const INSTRUCTIONS = `${SERVICE_SUMMARY} Each tool's description gives its price. A priced tool called without payment answers with the x402 PaymentRequired object (isError, structuredContent); sign one of its accepts and call again with the PaymentPayload in _meta["x402/payment"]; the answer carries the settlement in _meta["x402/payment-response"]. Errors and refusals are never charged.`;

function toolList(tools: ReadonlyMap<string, McpTool>) {
  return [...tools.values()].map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as { type: 'object' },
    outputSchema: t.outputSchema as { type: 'object' },
    annotations: t.annotations,
    _meta: { 'x402/price-usd': t.priceUsd, serves: t.serves },
  }));
}

/** MCP's code for a resource that does not exist (spec: server/resources, "Error Handling"). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The request of `method`, its params checked by `params` (the SDK's schema of that request). The
 * SDK parses a request with its handler's schema before the handler runs and answers a mismatch
 * -32603 (internal error) with the whole zod report; here the check throws -32602 (invalid params)
 * naming the first problem, which the SDK passes on as it is.
 */
function requestOf<M extends string, P extends z.ZodType>(method: M, params: P) {
  return z.object({ method: z.literal(method), params: z.unknown().transform((value): z.output<P> => checked(params, value)) });
}

function checked<P extends z.ZodType>(schema: P, value: unknown): z.output<P> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = ['params', ...(issue?.path ?? []).map(String)].join('.');
  throw new McpError(ErrorCode.InvalidParams, `invalid params: ${where}: ${issue?.message ?? 'invalid'}`);
}

function mcpServer(
  app: FastifyInstance,
  ctx: ApiContext,
  request: FastifyRequest,
  tools: ReadonlyMap<string, McpTool>,
  documents: readonly RestRoute[],
): Server {
  const server = new Server({ name: SERVICE_TITLE, version: SERVICE_VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  const base = baseUrl(ctx, request);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList(tools) }));
  server.setRequestHandler(requestOf('tools/call', CallToolRequestSchema.shape.params), async ({ params }) => {
    const tool = tools.get(params.name);
    if (!tool) {
      const error = { code: 'NOT_FOUND', message: `no tool ${params.name}` };
      return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: { success: false, error } };
    }
    return callTool(app, request, tool, params.arguments, params._meta);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: documents.map((d) => ({ uri: `${base}${d.path}`, name: d.path, description: d.summary, mimeType: mimeOf(d) })),
  }));
  server.setRequestHandler(requestOf('resources/read', ReadResourceRequestSchema.shape.params), async ({ params }) => {
    const doc = documents.find((d) => `${base}${d.path}` === params.uri);
    if (!doc) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${params.uri} (resources/list names them)`, { uri: params.uri });
    const res = await app.inject({ method: 'GET', url: doc.path, headers: request.headers.host ? { host: request.headers.host } : {} });
    return { contents: [{ uri: params.uri, mimeType: mimeOf(doc), text: res.body }] };
  });
  return server;
}

function mimeOf(route: RestRoute): string {
  return CONTENT_TYPES[route.content ?? 'json'].split(';')[0] ?? 'text/plain';
}

/** The Web request the SDK's transport reads: the same method, URL and headers (the body is passed parsed). */
function webRequest(request: FastifyRequest, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(`${base}${request.url}`, { method: request.method, headers });
}

function isKnownToolCall(message: unknown, tools: ReadonlyMap<string, McpTool>): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && typeof params?.name === 'string' && tools.has(params.name);
}

export const mcpRoute: FastifyPluginAsync<McpRouteOptions> = async (app, { ctx, route }) => {
  const tools = buildTools(ctx.registry);
  const documents = ctx.registry.routes.filter((r): r is RestRoute => r.kind === 'rest' && isDocument(r));
  app.route({
    method: route.method,
    url: route.path,
    exposeHeadRoute: false,
    bodyLimit: routeBodyLimit(route, ctx.registry.methods.values(), ctx.config.RPC_BATCH_MAX, ctx.config.BODY_LIMIT_BYTES, ctx.registry.routes),
    config: { payment: { key: routeKey(route), priceUsd: 0 } },
    schema: { summary: route.summary },
    // A body that is not JSON is a JSON-RPC parse error here, as the transport answers JSON that is
    // not a message; anything else goes on to the service's error handler.
    errorHandler: (error, _request, reply) => {
      if (error.code !== 'FST_ERR_CTP_INVALID_JSON_BODY' && error.code !== 'FST_ERR_CTP_EMPTY_JSON_BODY') throw error;
      void reply.code(400).send(errorResponse(null, new ParseRpcError('the body is not JSON')));
    },
    handler: async (request, reply) => {
      // Tool calls are counted as the requests they are injected as; any other message is unpaid.
      const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
      if (messages.length === 0 || !messages.every((m) => isKnownToolCall(m, tools))) await app.rateLimits?.spendUnpaid(request, reply);
      // JSON-RPC 2.0: an empty batch is one Invalid Request error (the SDK would answer 202, as to a
      // batch of notifications only). /v1/rpc answers it -32600 too, with HTTP 200 as Ethereum nodes do.
      if (messages.length === 0) return reply.code(400).send(errorResponse(null, new InvalidRequestRpcError('empty batch')));
      const server = mcpServer(app, ctx, request, tools, documents);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(webRequest(request, `${request.protocol}://${request.host}`), { parsedBody: request.body });
        void reply.code(response.status);
        response.headers.forEach((value, name) => void reply.header(name, value));
        const body = await response.text();
        return reply.send(body === '' ? undefined : body);
      } finally {
        await server.close();
      }
    },
  });
};
