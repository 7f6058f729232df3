/**
 * Cheap refusal (issue 16): bodies are limited per route from the registry and checked for nesting
 * before they are parsed; slow clients are cut off; connections are capped; Node's own refusals
 * and fastify's 414 come in our envelope; security headers are set; a request writes one debug
 * log line, nothing at info.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_CALL_BODY_BYTES, routeBodyLimit } from '../../src/api/bodyLimits.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { BATCH_CHECK_MAX_TXIDS } from '../../src/api/shared/requestLimits.js';
import { first } from '../helpers/first.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const REQUEST_TIMEOUT_MS = 500;
const MAX_CONNECTIONS = 3;

let world: TestWorld;
let port: number;
const logLines: Array<{ level: number; msg: string }> = [];
beforeAll(async () => {
  world = await startTestWorld({
    initialTxs: 40,
    seed: 4,
    env: { HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS) },
    logger: { level: 'debug', stream: { write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg: string }) } },
  });
  await refresh(world);
  const address = await world.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(address).port);
});
afterAll(() => world?.close());

interface RawAnswer {
  status: number | null;
  body: string;
  closed: boolean;
}

/** Writes `data` on a fresh socket and reads until the server closes it (or `waitMs` passes). */
function raw(data: string, waitMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      resolve({ status: status === undefined ? null : Number(status), body, closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => done(true));
    socket.on('error', () => undefined);
    socket.write(data);
  });
}

const txids = () => [...world.app.mempool.mirror.txs.keys()];
const post = (url: string, payload: string) => world.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

describe('body limits from the registry', () => {
  it('error: a single call over a few KB is 413 BODY_TOO_LARGE (not parsed)', async () => {
    const payload = JSON.stringify({ txid: first(txids(), 'mempool'), pad: 'x'.repeat(ONE_CALL_BODY_BYTES) });
    const res = await post('/v1/template/check', payload);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('BODY_TOO_LARGE');
    expect(res.json().error.message).toContain(`(${ONE_CALL_BODY_BYTES} bytes)`);
    expect(res.json().error.docs).toBe('/docs/errors.md');
  });

  it('default: /v1/rpc takes the largest allowed batch, pretty-printed', async () => {
    const batchTxids = Array.from({ length: BATCH_CHECK_MAX_TXIDS }, (_, i) => txids()[i % txids().length]);
    const batch = Array.from({ length: world.config.RPC_BATCH_MAX }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'svc_templateBatchCheck',
      params: [{ txids: batchTxids, targetBlocks: 6 }],
    }));
    const res = await post('/v1/rpc', JSON.stringify(batch, null, 2));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(world.config.RPC_BATCH_MAX);
  });

  it('args: a route or method declaring maxBodyBytes (a signed transaction) gets that much, never above the cap', () => {
    const cap = 1_000_000;
    expect(routeBodyLimit({ kind: 'rest' }, [], 20, cap)).toBe(ONE_CALL_BODY_BYTES);
    expect(routeBodyLimit({ kind: 'rest', maxBodyBytes: 210_000 }, [], 20, cap)).toBe(210_000);
    expect(routeBodyLimit({ kind: 'rest', maxBodyBytes: 2_000_000 }, [], 20, cap)).toBe(cap);
    expect(routeBodyLimit({ kind: 'jsonrpc' }, [{}, {}], 20, cap)).toBe(20 * ONE_CALL_BODY_BYTES);
    expect(routeBodyLimit({ kind: 'jsonrpc' }, [{}, { maxBodyBytes: 210_000 }], 20, cap)).toBe(210_000 + ONE_CALL_BODY_BYTES);
    // /mcp: one tool call of the largest route or method, with room for the envelope and a payment.
    expect(routeBodyLimit({ kind: 'mcp' }, [{}], 20, cap, [{}])).toBe(3 * ONE_CALL_BODY_BYTES);
    expect(routeBodyLimit({ kind: 'mcp' }, [{}], 20, cap, [{ maxBodyBytes: 210_000 }])).toBe(210_000 + 2 * ONE_CALL_BODY_BYTES);
  });

  it('error: /v1/rpc over its derived limit is 413', async () => {
    const limit = routeBodyLimit({ kind: 'jsonrpc' }, serviceRegistry().methods.values(), world.config.RPC_BATCH_MAX, world.config.BODY_LIMIT_BYTES);
    expect(limit).toBeLessThan(world.config.BODY_LIMIT_BYTES);
    const res = await post('/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', pad: 'x'.repeat(limit) }));
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('BODY_TOO_LARGE');
  });
});

describe('nesting checked before parsing', () => {
  const deep = '['.repeat(2000) + ']'.repeat(2000);

  it('error: a deeply nested REST body is 400 INVALID_REQUEST saying so', async () => {
    const res = await post('/v1/template/check', deep);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/nests deeper than/) });
  });

  it('error: a deeply nested JSON-RPC body is an invalid request (-32600), never run', async () => {
    const res = await post('/v1/rpc', deep);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/nests deeper than/) } });
  });

  it('behavior: brackets inside strings do not count', async () => {
    const res = await post('/v1/template/check', JSON.stringify({ txid: deep }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_TXID');
  });
});

describe('refusals in our envelope', () => {
  it('error: an over-long path parameter is 414 URI_TOO_LONG', async () => {
    const res = await world.app.inject({ method: 'GET', url: `/v1/tx/${'a'.repeat(300)}` });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'URI_TOO_LONG' } });
  });

  it('error: headers over Node’s limit are 431 HEADERS_TOO_LARGE', async () => {
    const res = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'HEADERS_TOO_LARGE' } });
  });

  it('error: a malformed request line is 400 INVALID_REQUEST', async () => {
    const res = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
  });
});

describe('slow clients and many connections', () => {
  it('error: a body that never completes is answered 408 REQUEST_TIMEOUT and the connection closed', async () => {
    const res = await raw('POST /v1/template/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'REQUEST_TIMEOUT' } });
  });

  it('error: connections past HTTP_MAX_CONNECTIONS are closed at once; the others are served', async () => {
    const held = await Promise.all(
      Array.from(
        { length: MAX_CONNECTIONS },
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const s = connect(port, '127.0.0.1', () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    try {
      // Give the server a moment to count them (accept happens asynchronously).
      await new Promise((r) => setTimeout(r, 100));
      const extra = await raw('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
      expect(extra.closed).toBe(true);
      expect(extra.status).toBeNull();
    } finally {
      for (const s of held) s.destroy();
    }
    await new Promise((r) => setTimeout(r, 100));
    expect((await raw('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });
});

describe('security headers', () => {
  it('default: JSON answers carry helmet headers and a same-origin CSP without inline script', async () => {
    const res = await world.app.inject({ method: 'GET', url: '/health' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(res.headers['content-security-policy']);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self';",
      "script-src-attr 'none'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
    ])
      expect(csp).toContain(directive);
    expect(/script-src[^;]*unsafe/.test(csp)).toBe(false);
  });
});

describe('request logs', () => {
  it('default: a request writes one debug line and nothing at info or above', async () => {
    logLines.length = 0;
    const urls = ['/health', '/v1/template/capabilities', '/nope', `/v1/tx/xyz`, '/v1/mempool/stats'];
    for (const url of urls) await world.app.inject({ method: 'GET', url });
    expect(logLines.filter((l) => l.level >= 30)).toEqual([]);
    expect(logLines.filter((l) => l.msg === 'request')).toHaveLength(urls.length);
  });
});
