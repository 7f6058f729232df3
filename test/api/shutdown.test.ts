/**
 * A request arriving on a kept-alive connection while the app closes gets 503 SHUTTING_DOWN in our
 * envelope (fastify's own 503 body is not), with Retry-After and Connection: close, while the
 * request in flight finishes. The edge plugin on a small app with one slow route.
 */
import { connect } from 'node:net';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import edgePlugin from '../../src/api/edge.js';
import { errorHandler } from '../../src/api/errorHandler.js';
import { loadConfig } from '../../src/config.js';

const free = { config: { payment: { key: 'GET /x', priceUsd: 0 } } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('error: a request arriving while closing is 503 SHUTTING_DOWN; the one in flight is answered', async () => {
  const app = Fastify({ return503OnClosing: false });
  app.setErrorHandler(errorHandler);
  await app.register(edgePlugin, { config: loadConfig({ RATE_LIMIT_MAX: '0' }) });
  app.get('/slow', free, async () => {
    await sleep(300);
    return { slow: true };
  });
  app.get('/fast', free, async () => ({ fast: true }));
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);

  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString()));
  socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await sleep(50);
  const closing = app.close();
  await sleep(50);
  socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
  await closing;
  await sleep(100);
  socket.destroy();

  const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
  expect(first).toMatch(/^HTTP\/1\.1 200/);
  expect(first).toContain('{"slow":true}');
  expect(second).toMatch(/^HTTP\/1\.1 503/);
  expect(second).toMatch(/retry-after: 1/i);
  expect(second).toMatch(/connection: close/i);
  expect(JSON.parse(second?.split('\r\n\r\n')[1] ?? '')).toMatchObject({ success: false, error: { code: 'SHUTTING_DOWN' } });
});
