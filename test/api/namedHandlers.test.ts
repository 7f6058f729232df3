/**
 * Every handler the registry serves is a named function: a stack trace through a route, a method or
 * a check before payment names it, and a reader can find it by that name.
 */
import { describe, expect, it } from 'vitest';
import { serviceRegistry } from '../../src/api/registry.js';

describe('registry handlers', () => {
  const registry = serviceRegistry();

  it('behavior: every REST handler, precheck and WebSocket handler has a name', () => {
    const unnamed: string[] = [];
    for (const route of registry.routes) {
      if (route.kind !== 'rest') continue;
      const key = `${route.method} ${route.path}`;
      if (!route.handler.name) unnamed.push(`${key} handler`);
      if (route.precheck && !route.precheck.name) unnamed.push(`${key} precheck`);
      if (route.websocket && !route.websocket.name) unnamed.push(`${key} websocket`);
    }
    expect(unnamed).toEqual([]);
  });

  it('behavior: every JSON-RPC runner and precheck has a name', () => {
    const unnamed: string[] = [];
    for (const method of registry.methods.values()) {
      if (!method.run.name) unnamed.push(`${method.name} run`);
      if (method.precheck && !method.precheck.name) unnamed.push(`${method.name} precheck`);
    }
    expect(unnamed).toEqual([]);
  });
});
