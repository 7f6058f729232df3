/**
 * The facilitator's transport (src/payments/facilitatorHttp.ts) against a local HTTP server: the
 * base URL's path is kept, the headers and body arrive as sent, a silent server is a TimeoutError
 * within the budget, an oversized answer is refused, a closed port is a transport error.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FacilitatorHttp, HttpFailure } from '../../src/payments/facilitatorHttp.js';
import { freePort } from '../helpers/loopback.js';

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; auth: string | undefined; body: string }> = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += String(c)));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
      if (req.url?.endsWith('/silent')) return; // never answers
      if (req.url?.endsWith('/huge')) return void res.end('x'.repeat(2 * 1024 * 1024));
      if (req.url?.endsWith('/huge-chunked')) {
        // No content-length: the size is only known as it comes.
        for (let i = 0; i < 3; i++) res.write('x'.repeat(512 * 1024));
        return void res.end();
      }
      if (req.url?.endsWith('/chunked')) {
        res.write('{"isValid":');
        return void res.end('true}');
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ success: true, path: req.url }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/facilitator/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('facilitator transport', () => {
  it('default: a POST under the base path, with its headers and body, answered with status and text', async () => {
    const http = new FacilitatorHttp(base);
    const res = await http.call('/settle', 'POST', { 'content-type': 'application/json', authorization: 'Bearer s3cret' }, '{"a":1}', 2000);
    expect(res).toEqual({ status: 200, text: JSON.stringify({ success: true, path: '/facilitator/settle' }) });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/facilitator/settle', auth: 'Bearer s3cret', body: '{"a":1}' });
    expect((await http.call('/chunked', 'GET', {}, null, 2000)).text).toBe('{"isValid":true}');
    http.close();
  });

  it('error: a silent facilitator is a TimeoutError; an oversized answer and a closed port are errors', async () => {
    const http = new FacilitatorHttp(base);
    const silent = await http.call('/silent', 'POST', {}, '{}', 300).catch((e: unknown) => e);
    expect(silent).toBeInstanceOf(HttpFailure);
    expect((silent as HttpFailure).name).toBe('TimeoutError');
    const huge = await http.call('/huge', 'GET', {}, null, 2000).catch((e: unknown) => e);
    expect(huge).toMatchObject({ name: 'Error', message: 'answer too large' });
    const hugeChunked = await http.call('/huge-chunked', 'GET', {}, null, 2000).catch((e: unknown) => e);
    expect(hugeChunked).toMatchObject({ name: 'Error', message: 'answer too large' });
    // Each failure ended its own exchange only: the next call is answered.
    expect((await http.call('/verify', 'POST', {}, '{}', 2000)).status).toBe(200);
    http.close();
    const closed = new FacilitatorHttp(`http://127.0.0.1:${await freePort()}`);
    expect(await closed.call('/verify', 'POST', {}, '{}', 2000).catch((e: unknown) => (e as Error).name)).toBe('Error');
    closed.close();
  });
});
