/**
 * A TCP forwarder on 127.0.0.1 in front of a node: `down()` drops every open connection and refuses
 * new ones (the node is unreachable), `up()` forwards again. The node itself keeps running.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface SwitchableProxy {
  /** `http://user:pass@127.0.0.1:<proxy port>` for a target URL of the same shape. */
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function switchableProxy(targetUrl: string): Promise<SwitchableProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let isUp = true;
  const server = createServer((client) => {
    if (!isUp) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    down() {
      isUp = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      isUp = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
