/**
 * Loopback helpers: a free port for a child process (bitcoind, Redis, haproxy, a replica), and an
 * HTTP server on 127.0.0.1 at a free port for the test facilitators. `close` destroys open sockets
 * first: a facilitator that never answers (blackhole) still shuts down at once.
 */
import type { Server } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** A free loopback TCP port (bound, read, released). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function listenOnLoopback(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
