import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';
import { routeKey } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';

/** A TCP server that accepts connections and never answers: a hung node. `stop` drops its sockets. */
function silentServer(): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    const stop = () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      });
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, stop }));
  });
}

async function appFor(url: string, timeoutMs: number): Promise<App> {
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'node-fail-')), PAYMENTS_ENABLED: 'false', BITCOIN_RPC_TIMEOUT_MS: String(timeoutMs) });
  const node = new BitcoinNode({ url, timeoutMs, scanTimeoutMs: timeoutMs });
  return buildApp({ config, node, addressSource: new ScanAddressSource(node), nodeKind: 'real', autoStart: false });
}

describe('a node that is down or slow', () => {
  let silent: Awaited<ReturnType<typeof silentServer>>;
  let closedPort: number;
  beforeAll(async () => {
    silent = await silentServer();
    const probe = await silentServer();
    closedPort = probe.port;
    await probe.stop();
  });
  afterAll(() => silent.stop());

  it('error: NODE_UNAVAILABLE (503, Retry-After) when nothing listens', async () => {
    const app = await appFor(`http://u:p@127.0.0.1:${closedPort}`, 2000);
    const res = await app.inject({ method: 'GET', url: '/v1/block-height' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json().error.code).toBe('NODE_UNAVAILABLE');
    expect(res.json().error.message).not.toMatch(/u:p/);
    await app.close();
  });

  it('error: 503 within the timeout when the node never answers (known down after its first check)', async () => {
    const app = await appFor(`http://u:p@127.0.0.1:${silent.port}`, 300);
    const started = Date.now();
    const res = await app.inject({ method: 'GET', url: `/v1/tx/${'ab'.repeat(32)}` });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toMatch(/^NODE_(UNAVAILABLE|TIMEOUT)$/);
    // Bounded by the configured timeout, not by the client's patience (generous slack for slow CI).
    expect(Date.now() - started).toBeLessThan(10_000);
    await app.close();
  });

  it('error: /health is 503 and says the node is unreachable', async () => {
    const app = await appFor(`http://u:p@127.0.0.1:${closedPort}`, 1000);
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.details).toMatchObject({ node: { kind: 'real', reachable: false } });
    await app.close();
  });

  it('error: every Bitcoin read answers 503 with Retry-After, never null in a 200', async () => {
    const app = await appFor(`http://u:p@127.0.0.1:${closedPort}`, 1000);
    const registry = serviceRegistry();
    const reads = registry.routes.filter((r) => r.family === 'bitcoin');
    expect(reads.length).toBeGreaterThanOrEqual(5);
    for (const route of reads) {
      const url = route.path.replace(':txid', 'ab'.repeat(32)).replace(':address', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
      const payload = route.method === 'POST' ? { payload: { txid: 'ab'.repeat(32), targetSatVb: 1 } } : {};
      const res = await app.inject({ method: route.method, url, ...payload });
      expect(res.statusCode, routeKey(route)).toBe(503);
      expect(res.headers['retry-after'], routeKey(route)).toBe('5');
      expect(res.json().error.code, routeKey(route)).toMatch(/^NODE_(UNAVAILABLE|TIMEOUT)$/);
    }
    for (const method of [...registry.methods.values()].filter((m) => m.name.startsWith('eth_'))) {
      const params = method.name === 'eth_getBalance' ? ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'] : method.example.params;
      const res = await app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method: method.name, params } });
      expect(res.json().error, method.name).toMatchObject({ code: -32000, data: { retryAfterSeconds: 5 } });
    }
    await app.close();
  });

  it('behavior: JSON-RPC reports -32000 with a retry hint', async () => {
    const app = await appFor(`http://u:p@127.0.0.1:${closedPort}`, 1000);
    const res = await app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().error).toMatchObject({ code: -32000, data: { code: 'NODE_UNAVAILABLE', retryAfterSeconds: 5 } });
    await app.close();
  });
});
