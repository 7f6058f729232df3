/**
 * Reads the dashboard's server-sent events over real HTTP (the feed never ends by itself):
 * `next()` waits for the next `snapshot` event; `close()` aborts the request like a closed tab.
 */
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { DashboardSnapshot } from '../../src/api/dashboard/feed.js';

export interface FeedReader {
  headers: IncomingHttpHeaders;
  /** The next `snapshot` event (waits for it). */
  next(): Promise<DashboardSnapshot>;
  close(): void;
}

export async function openFeed(baseUrl: string): Promise<FeedReader> {
  // node:http rather than fetch: destroying the request closes the socket at once, as a closed tab does.
  const req = request(`${baseUrl}/dashboard/feed`, { agent: false });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve).on('error', reject).end();
  });
  const events: DashboardSnapshot[] = [];
  const waiters: Array<(s: DashboardSnapshot) => void> = [];
  const decoder = new TextDecoder();
  let buffer = '';
  res.on('error', () => undefined);
  res.on('data', (value: Buffer) => {
    {
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const data = lines.find((l) => l.startsWith('data: '));
        if (!lines.includes('event: snapshot') || !data) continue;
        const snapshot = JSON.parse(data.slice(6)) as DashboardSnapshot;
        const waiter = waiters.shift();
        if (waiter) waiter(snapshot);
        else events.push(snapshot);
      }
    }
  });
  return {
    headers: res.headers,
    next: () => {
      const ready = events.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiters.push(resolve));
    },
    close: () => req.destroy(),
  };
}
