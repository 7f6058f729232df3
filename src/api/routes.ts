/**
 * The one place fastify routes are made: every route of the registry, with its zod request
 * schemas (validated before anything runs: a malformed request is a free 400), its price in the
 * route config (read by the payment gate), its body limit, its freshness check and precheck before
 * payment, and its handler. A wrong
 * method on a known path answers 405 with `Allow`.
 *
 * With `checkResponses` (tests) every answer is also checked against the route's response schema
 * before it is sent, so a handler that drifts from its declared shape fails the test that hit it:
 * a field the schema does not declare too (OpenAPI says `additionalProperties: false`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { Errors, errorBody } from '../errors.js';
import { baseUrl } from './baseUrl.js';
import { routeBodyLimit } from './bodyLimits.js';
import { assertNodeUp } from './freshness.js';
import { CONTENT_TYPES, priceUsd, routeKey, type ApiContext, type RestInput, type RestRoute } from './define.js';
import { mcpRoute } from './mcp/mcpRoute.js';
import { rpcRoute } from './rpc/rpcRoute.js';
import { NoQuery } from './schemas.js';

export interface ApiRoutesOptions {
  ctx: ApiContext;
}

export async function apiRoutes(fastify: FastifyInstance, { ctx }: ApiRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  for (const route of ctx.registry.routes) {
    if (route.kind === 'jsonrpc') {
      await app.register(rpcRoute, { ctx, route });
      continue;
    }
    if (route.kind === 'mcp') {
      await app.register(mcpRoute, { ctx, route });
      continue;
    }
    const input = (request: FastifyRequest): RestInput<unknown, unknown, unknown> => ({ params: request.params, query: request.query, body: request.body });
    const websocket = route.websocket
      ? (socket: WebSocket, input: RestInput<unknown, unknown, unknown>) => route.websocket?.(ctx, socket, input) ?? Promise.resolve()
      : undefined;
    app.route({
      method: route.method,
      url: route.path,
      // A WebSocket route: the upgrade passes the same validation first (a bad query is a 400, never a socket).
      ...(websocket
        ? {
            wsHandler: (socket: WebSocket, request: FastifyRequest) => {
              void websocket(socket, input(request)).catch((error: unknown) => {
                request.log.warn({ err: error }, 'websocket failed');
                socket.close(1011, 'internal error');
              });
            },
          }
        : {}),
      // A paid route answers HEAD with 405 (never charged for an empty body).
      exposeHeadRoute: answersHead(route),
      config: { payment: { key: routeKey(route), priceUsd: priceUsd(route.price) } },
      schema: {
        summary: route.summary,
        ...(route.params ? { params: route.params } : {}),
        ...(queryOf(route) ? { querystring: queryOf(route) } : {}),
        ...(route.body ? { body: route.body } : {}),
      },
      bodyLimit: routeBodyLimit(route, ctx.registry.methods.values(), ctx.config.RPC_BATCH_MAX, ctx.config.BODY_LIMIT_BYTES),
      // Before payment: a request that needs a node known down (or not yet reached), or that cannot succeed, is refused for free.
      ...(route.precheck || route.snapshot || route.price !== 'free'
        ? {
            preValidation: async (request: FastifyRequest) => {
              if (route.snapshot || route.price !== 'free') assertNodeUp(ctx);
              // The precheck sees validated input; an invalid request is answered 400 by validation right after.
              const valid = route.precheck ? validInput(route, request) : null;
              if (valid) await route.precheck?.(ctx, valid);
            },
          }
        : {}),
      ...(ctx.checkResponses ? { preSerialization: responseCheck(route) } : {}),
      handler: async (request, reply) => {
        if (route.content === 'websocket') throw new Errors.UPGRADE_REQUIRED(routeKey(route));
        const answer = await route.handler(ctx, input(request), { log: request.log, baseUrl: baseUrl(ctx, request) });
        if (route.content !== undefined && route.content !== 'json') void reply.type(CONTENT_TYPES[route.content]);
        if (route.cacheSeconds !== undefined) void reply.header('cache-control', `public, max-age=${route.cacheSeconds}`);
        // A live feed: never cached, never buffered by a proxy.
        if (route.content === 'eventStream') void reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
        return answer;
      },
    });
  }
}

/** A route's query schema: a paid route that takes no query refuses any (strict inputs: never an answer to another question). */
function queryOf(route: RestRoute): RestRoute['query'] {
  return route.query ?? (route.price !== 'free' ? NoQuery : undefined);
}

/** The request's parts parsed by the route's schemas, or null when one is invalid (validation then answers 400). */
function validInput(route: RestRoute, request: FastifyRequest): RestInput<unknown, unknown, unknown> | null {
  const part = (schema: RestRoute['params'], value: unknown): { ok: boolean; data: unknown } => {
    if (!schema) return { ok: true, data: value };
    const parsed = schema.safeParse(value);
    return { ok: parsed.success, data: parsed.data };
  };
  const params = part(route.params, request.params);
  const query = part(queryOf(route), request.query);
  const body = part(route.body, request.body);
  return params.ok && query.ok && body.ok ? { params: params.data, query: query.data, body: body.data } : null;
}

/** HEAD only where it costs nothing: free GETs, but not a live feed (HEAD would hold it open for nothing). */
function answersHead(route: RestRoute): boolean {
  return route.method === 'GET' && route.price === 'free' && route.content !== 'eventStream' && route.content !== 'websocket';
}

function responseCheck(route: RestRoute) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 200 || (route.content !== undefined && route.content !== 'json')) return payload;
    const checked = route.response.safeParse(payload);
    const extra = checked.success ? undeclaredField(payload, checked.data, '') : undefined;
    if (checked.success && extra === undefined) return payload;
    const issue = checked.success ? { path: [extra], message: 'not declared in the response schema' } : checked.error.issues[0];
    reply.code(500);
    return errorBody('INTERNAL', `${routeKey(route)} answered outside its response schema: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  };
}

/** The path of the first field of `sent` that parsing dropped (zod strips keys its objects do not declare). */
function undeclaredField(sent: unknown, parsed: unknown, at: string): string | undefined {
  if (typeof sent !== 'object' || sent === null || typeof parsed !== 'object' || parsed === null) return undefined;
  for (const [key, value] of Object.entries(sent)) {
    const path = at ? `${at}.${key}` : key;
    if (value !== undefined && !(key in parsed)) return path;
    const found = undeclaredField(value, (parsed as Record<string, unknown>)[key], path);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `"<path pattern>"` → regexp matching concrete URLs (`:param` = one segment). */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The not-found handler: 405 with `Allow` when the path is served under another method, else 404.
 * Complexity: O(routes) per unknown request.
 */
export function notFoundHandler(ctx: Pick<ApiContext, 'registry'>) {
  const patterns = ctx.registry.routes.map((r) => ({
    method: r.method,
    headToo: r.kind === 'rest' && answersHead(r),
    pattern: pathPattern(r.path),
  }));
  return (request: FastifyRequest, reply: FastifyReply): void => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = new Set<string>();
    for (const p of patterns) {
      if (!p.pattern.test(path)) continue;
      allowed.add(p.method);
      if (p.headToo) allowed.add('HEAD');
    }
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      void reply
        .code(405)
        .header('allow', allow)
        .send(errorBody('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allow}`));
      return;
    }
    void reply.code(404).send(errorBody('NOT_FOUND', `No route ${request.method} ${path}`));
  };
}
