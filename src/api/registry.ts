/**
 * THE registry: every REST route and JSON-RPC method the service serves, each declared once in its
 * family's `endpoints.ts`. Routes, the payment gate's prices, capabilities and the documents are
 * derived from it; nothing unserved can be sold, and nothing served can be unpriced.
 *
 * `buildRegistry` checks the declarations (unique names, a valid price, a handler, schemas and an
 * example) and throws `RegistryError` at start-up on the first problem.
 */
import { z } from 'zod';
import { bitcoinRoutes } from './bitcoin/endpoints.js';
import { bitcoinMethods } from './bitcoin/methods.js';
import { dashboardRoutes } from './dashboard/endpoints.js';
import { docMethods, docRoutes } from './docs/endpoints.js';
import { insightMethods, insightRoutes } from './bitcoin/insightEndpoints.js';
import type { Registry, Route, RpcMethod } from './define.js';
import { routeKey } from './define.js';
import { mcpRoutes } from './mcp/endpoints.js';
import { mempoolRoutes } from './mempool/endpoints.js';
import { streamRoutes } from './mempool/streamEndpoints.js';
import { rpcMethods, rpcRoutes } from './rpc/endpoints.js';
import { systemRoutes } from './system/endpoints.js';
import { templateRoutes } from './template/endpoints.js';
import { templateMethods } from './template/methods.js';

export class RegistryError extends Error {
  constructor(message: string) {
    super(`registry: ${message}`);
    this.name = 'RegistryError';
  }
}

/** Prices are whole micro-dollars (USDC has 6 decimals), positive and at most 1 USD per call. */
function checkPrice(what: string, price: unknown): void {
  if (price === 'free') return;
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || price > 1) {
    throw new RegistryError(`${what} has no valid price (got ${String(price)}): declare a USD amount in (0, 1] or 'free'`);
  }
  if (Math.abs(price * 1e6 - Math.round(price * 1e6)) > 1e-6) throw new RegistryError(`${what}: price ${price} is finer than 0.000001 USD`);
}

function checkSchema(what: string, schema: unknown): void {
  if (!(schema instanceof z.ZodType)) throw new RegistryError(`${what} is not a zod schema`);
}

/** Checks and indexes declarations. Complexity: O(routes + methods). */
export function buildRegistry(routes: readonly Route[], methods: readonly RpcMethod[]): Registry {
  const keys = new Set<string>();
  for (const route of routes) {
    const key = routeKey(route);
    if (keys.has(key)) throw new RegistryError(`${key} is declared twice`);
    keys.add(key);
    if (!route.path.startsWith('/')) throw new RegistryError(`${key}: path must start with /`);
    if (!route.summary) throw new RegistryError(`${key} has no summary`);
    if (route.kind === 'rest') {
      checkPrice(key, route.price);
      if (typeof route.handler !== 'function') throw new RegistryError(`${key} has a price but no handler`);
      if ((route.content === 'websocket') !== (route.websocket !== undefined))
        throw new RegistryError(`${key}: a WebSocket route has content 'websocket' and a websocket handler`);
      // Its payment is a ticket bought beforehand: the upgrade itself cannot carry a 402 exchange.
      if (route.websocket && (route.price !== 'free' || route.method !== 'GET')) throw new RegistryError(`${key}: a WebSocket route is a free GET`);
    } else if (route.price !== 'per_call') {
      throw new RegistryError(`${key}: a JSON-RPC or MCP route is priced per call`);
    }
    checkSchema(`${key} response`, route.response);
    for (const part of ['params', 'query', 'body'] as const) if (route[part] !== undefined) checkSchema(`${key} ${part}`, route[part]);
    if (route.example === 'live') {
      const free = route.kind === 'rest' && route.price === 'free';
      if (!free || route.method !== 'GET' || route.params || route.query)
        throw new RegistryError(`${key}: only a free GET route without parameters may use its live answer as example`);
    } else if (typeof route.example !== 'object' || !('response' in route.example)) {
      throw new RegistryError(`${key} has no example`);
    }
  }
  const byName = new Map<string, RpcMethod>();
  for (const method of methods) {
    if (byName.has(method.name)) throw new RegistryError(`JSON-RPC method ${method.name} is declared twice`);
    checkPrice(`JSON-RPC method ${method.name}`, method.price);
    if (typeof method.run !== 'function') throw new RegistryError(`JSON-RPC method ${method.name} has a price but no handler`);
    checkSchema(`${method.name} params`, method.params);
    checkSchema(`${method.name} result`, method.result);
    if (!method.summary) throw new RegistryError(`JSON-RPC method ${method.name} has no summary`);
    byName.set(method.name, method);
  }
  const rpcEndpoints = routes.filter((r) => r.kind === 'jsonrpc').length;
  if (byName.size > 0 && rpcEndpoints !== 1) throw new RegistryError(`JSON-RPC methods need exactly one JSON-RPC route (found ${rpcEndpoints})`);
  return { routes, methods: byName };
}

/** What this build serves. */
export function serviceRegistry(): Registry {
  return buildRegistry(
    [
      ...systemRoutes,
      ...docRoutes,
      ...dashboardRoutes,
      ...bitcoinRoutes,
      ...insightRoutes,
      ...mempoolRoutes,
      ...streamRoutes,
      ...templateRoutes,
      ...rpcRoutes,
      ...mcpRoutes,
    ],
    [...rpcMethods, ...docMethods, ...bitcoinMethods, ...insightMethods, ...templateMethods],
  );
}
