/**
 * Nothing sold twice or served free: walking the registry, each entry appears as exactly one REST
 * route or JSON-RPC method, in its document (OpenAPI / OpenRPC) once, and as exactly one MCP tool,
 * at one price everywhere; every tool stands for exactly one entry. Then, live: every priced tool
 * that takes no argument answers its x402 challenge at exactly its registry price, and every free
 * one answers without payment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { priceUsd, routeKey } from '../../src/api/define.js';
import { buildOpenApi } from '../../src/api/docs/openapi.js';
import { buildOpenRpc } from '../../src/api/docs/openrpc.js';
import { callTool } from '../../src/api/mcp/toolCall.js';
import { buildTools, isToolRoute } from '../../src/api/mcp/tools.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { PAY_TO } from '../payments/helpers.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

describe('surfaces: each registry entry once per surface, at one price', () => {
  const registry = serviceRegistry();
  const tools = buildTools(registry);
  const byServes = new Map([...tools.values()].map((t) => [t.serves, t]));

  it('behavior: every REST route is one OpenAPI operation and, if it answers JSON data, one MCP tool at its price', () => {
    const openapi = buildOpenApi(registry, 'http://x');
    for (const route of registry.routes) {
      const key = routeKey(route);
      const op = openapi.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect(op, key).toBeDefined();
      const matching = [...tools.values()].filter((t) => t.serves === key);
      if (route.kind === 'rest' && isToolRoute(route)) {
        expect(matching, key).toHaveLength(1);
        expect(matching[0]?.priceUsd, key).toBe(priceUsd(route.price));
        expect(op?.['x-price-usd'], key).toBe(priceUsd(route.price));
      } else {
        expect(matching, key).toHaveLength(0);
        // Not a tool: a document (an MCP resource), a page, feed, socket or metrics (free), or an envelope priced per call.
        expect(route.kind !== 'rest' || route.price === 'free', `${key} is sold but is no tool`).toBe(true);
      }
    }
  });

  it('behavior: every JSON-RPC method is one OpenRPC method and one MCP tool at its price (rpc.discover is the document itself)', () => {
    const openrpc = buildOpenRpc(registry, 'http://x');
    for (const method of registry.methods.values()) {
      const described = openrpc.methods.filter((m) => m.name === method.name);
      expect(described, method.name).toHaveLength(1);
      expect(described[0]?.['x-price-usd'], method.name).toBe(priceUsd(method.price));
      const tool = byServes.get(`rpc ${method.name}`);
      if (method.name === 'rpc.discover') {
        expect(tool).toBeUndefined();
        expect(method.price).toBe('free');
        continue;
      }
      expect(tool?.priceUsd, method.name).toBe(priceUsd(method.price));
    }
  });

  it('behavior: every tool stands for exactly one registry entry, and no two tools for the same one', () => {
    expect(byServes.size).toBe(tools.size);
    const entries = new Set([...registry.routes.map(routeKey), ...[...registry.methods.keys()].map((n) => `rpc ${n}`)]);
    for (const tool of tools.values()) expect(entries.has(tool.serves), tool.name).toBe(true);
  });

  describe('live', () => {
    let world: TestWorld;
    beforeAll(async () => {
      world = await startTestWorld({ initialTxs: 30, env: { PAYMENTS_ENABLED: 'true', PAY_TO } });
      await refresh(world);
    });
    afterAll(async () => world.close());

    it('behavior: each tool without arguments is quoted at exactly its price, or served free', async () => {
      const request = { headers: { host: 'localhost' }, socket: { remoteAddress: '127.0.0.1' } } as never;
      let quoted = 0;
      for (const tool of tools.values()) {
        if (tool.inputSchema.required !== undefined) continue;
        const result = await callTool(world.app, request, tool, {}, undefined);
        const structured = result.structuredContent as { x402Version?: number; accepts?: Array<{ amount: string }> } | undefined;
        if (tool.priceUsd === 0) {
          expect(structured?.x402Version, tool.name).toBeUndefined();
          continue;
        }
        expect(result.isError, tool.name).toBe(true);
        expect(
          structured?.accepts?.map((a) => a.amount),
          tool.name,
        ).toEqual(structured?.accepts?.map(() => String(Math.round(tool.priceUsd * 1e6))));
        expect(structured?.accepts?.length, tool.name).toBeGreaterThan(0);
        quoted++;
      }
      expect(quoted).toBeGreaterThanOrEqual(5);
    });
  });
});
