/** The absolute base URL links are made of, shared by the REST routes, `POST /v1/rpc` and `/mcp`. */
import type { FastifyRequest } from 'fastify';
import type { ApiContext } from './define.js';

/** PUBLIC_BASE_URL, else the request's own; without TRUST_PROXY fastify's `host` is the Host header, never X-Forwarded-Host. */
export function baseUrl(ctx: Pick<ApiContext, 'config'>, request: FastifyRequest): string {
  return ctx.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `${request.protocol}://${request.host}`;
}
