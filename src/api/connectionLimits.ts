/**
 * Connections per client address (issue 22 item 5): beside the process-wide
 * `HTTP_MAX_CONNECTIONS`, one address may hold at most `HTTP_MAX_CONNECTIONS_PER_ADDRESS` open
 * sockets; a socket past it is closed at once, before any byte is read. Without it, 1,100 sockets
 * from one address filled the process cap and every other client's connection was reset.
 *
 * Counted on the server's 'connection' events by the TCP peer's address (`X-Forwarded-For` is not
 * read yet, and a header cannot make a socket cheaper). Loopback is an address like any other.
 * Behind a proxy every request arrives from the proxy's address: keep the proxy's connections per
 * replica below this limit (`deploy/haproxy.cfg`: `maxconn 100` per server).
 */
import type { Server } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { LogSampler } from '../util/logSampler.js';

/**
 * Starts counting `server`'s sockets per remote address; `maxPerAddress` 0 = no limit. Refusals
 * are logged at most once a minute, with how many there were. Complexity: O(1) per connection;
 * memory O(addresses with an open socket).
 */
export function limitConnectionsPerAddress(server: Server, maxPerAddress: number, log?: FastifyBaseLogger): void {
  if (maxPerAddress <= 0) return;
  const open = new Map<string, number>();
  const refusals = new LogSampler();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= maxPerAddress) {
      socket.destroy();
      const sampled = refusals.take('refused');
      if (sampled)
        log?.warn(
          { maxPerAddress, refusedNotLogged: sampled.suppressed },
          'connection refused: its address holds HTTP_MAX_CONNECTIONS_PER_ADDRESS connections',
        );
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
