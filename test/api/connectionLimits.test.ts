/**
 * Connections per address (issue 22 item 5): 1,100 sockets from one address used to fill
 * HTTP_MAX_CONNECTIONS (1,024) and reset other clients. With HTTP_MAX_CONNECTIONS_PER_ADDRESS
 * (128 by default) that address keeps 128 and the rest are closed at once; another address is
 * served. Loopback is an address like any other: the attacker is 127.0.0.1, the other client
 * 127.0.0.2 (Linux routes all of 127.0.0.0/8 to the loopback interface).
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const FLOOD = 1100;
const PER_ADDRESS = 128;

let world: TestWorld;
let port: number;
const flood: Socket[] = [];
let closedByServer = 0;

beforeAll(async () => {
  // The defaults (HTTP_MAX_CONNECTIONS 1024, HTTP_MAX_CONNECTIONS_PER_ADDRESS 128), said out loud.
  // Idle sockets are cut at the request timeout: longer than the test, so the flood holds.
  world = await startTestWorld({
    initialTxs: 10,
    seed: 6,
    env: {
      HTTP_MAX_CONNECTIONS: '1024',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      HTTP_REQUEST_TIMEOUT_MS: '120000',
      HTTP_CONNECTION_TIMEOUT_MS: '120000',
    },
  });
  // /health is 503 until the mempool view has loaded.
  await world.app.mempool.mirror.poll();
  const address = await world.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(address).port);
});
afterAll(async () => {
  for (const s of flood) s.destroy();
  await world?.close();
});

/** Opens `n` idle sockets from 127.0.0.1, in batches (the listen backlog is finite). */
async function openFlood(n: number): Promise<void> {
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, () => {
      const s = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.1' });
      s.on('error', () => undefined);
      s.on('close', () => closedByServer++);
      flood.push(s);
      return new Promise<void>((resolve) => {
        s.once('connect', () => resolve());
        s.once('close', () => resolve());
      });
    });
    await Promise.all(batch);
  }
}

/** GET /health from `localAddress` on a new connection: the status, or the error's code. */
function healthFrom(localAddress: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
    req.end();
  });
}

describe('connections per address', () => {
  it('error: while 1,100 sockets from one address are open, another address is served every time', async () => {
    await openFlood(FLOOD);
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 10; i++) statuses.push(await healthFrom('127.0.0.2'));
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));
  });

  it('behavior: the flooding address keeps 128 sockets; the others were closed at once, and it gets no more', async () => {
    const deadline = Date.now() + 10_000;
    while (closedByServer < FLOOD - PER_ADDRESS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(closedByServer).toBe(FLOOD - PER_ADDRESS);
    expect(await healthFrom('127.0.0.1')).toBe('ECONNRESET');
  });

  it('behavior: an address that closes its sockets gets connections again', async () => {
    for (const s of flood) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect(await healthFrom('127.0.0.1')).toBe(200);
  });
});
