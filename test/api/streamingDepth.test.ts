/**
 * Hostile bodies refused as they arrive (issue 22 item 6): a body that opens more levels than any
 * request needs is answered at its first byte too deep, without waiting for (or reading) the rest,
 * and its connection is closed. Bodies are sent chunked on a raw socket and never finished, so an
 * answer can only come from the check on what has arrived (a reader that waits for the whole body
 * answers 408 at the request timeout instead).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DepthScanner } from '../../src/api/bodyLimits.js';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
let port: number;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 20, seed: 5, env: { HTTP_REQUEST_TIMEOUT_MS: '4000' } });
  const address = await world.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(address).port);
});
afterAll(() => world?.close());

interface Answer {
  status: number | null;
  body: string;
  /** The server closed the connection. */
  closed: boolean;
}

/** Sends the head of a chunked POST and then `chunks`, one write each; never ends the body unless `end`. */
function chunkedPost(path: string, chunks: Array<string | Buffer>, end = false): Promise<Answer> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', rest = ''] = text.split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      // Chunked or not, the JSON is between the first `{` and the last `}`.
      resolve({ status: status === undefined ? null : Number(status), body: rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1), closed });
    };
    const timer = setTimeout(() => finish(false), 15_000);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      // A kept-alive answer: complete once its JSON is.
      if (end && /\r\n0\r\n\r\n$|}$/.test(text)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    for (const c of chunks) socket.write(`${Buffer.byteLength(c).toString(16)}\r\n${typeof c === 'string' ? c : c.toString('latin1')}\r\n`, 'latin1');
    if (end) socket.write('0\r\n\r\n');
  });
}

const deepStart = '['.repeat(100);

describe('a deeply nested body is refused as it arrives', () => {
  it('error: REST: 400 INVALID_REQUEST before the body ends, and the connection is closed', async () => {
    const answer = await chunkedPost('/v1/template/check', [deepStart]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/nests deeper than/) } });
    expect(answer.closed).toBe(true);
  });

  it('error: JSON-RPC: -32600 before the body ends, and the connection is closed', async () => {
    const answer = await chunkedPost('/v1/rpc', ['{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":', deepStart]);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/nests deeper than/) } });
    expect(answer.closed).toBe(true);
  });

  it('behavior: a body split anywhere, through a multi-byte character too, is read whole', async () => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'héllo [[[[', method: 'eth_chainId', params: [] }));
    const cut = body.indexOf(Buffer.from('é')) + 1;
    const answer = await chunkedPost('/v1/rpc', [body.subarray(0, cut), body.subarray(cut)], true);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id: 'héllo [[[[', result: expect.any(String) });
  });
});

describe('DepthScanner', () => {
  const scan = (maxDepth: number, ...pieces: string[]) => {
    const s = new DepthScanner(maxDepth);
    return pieces.some((p) => s.tooDeep(Buffer.from(p)));
  };

  it('behavior: counts open arrays and objects across pieces', () => {
    expect(scan(3, '[{', '"a":[', '1]}]')).toBe(false);
    expect(scan(3, '[{', '"a":[', '[1]]}]')).toBe(true);
    expect(scan(2, '[]', '[]', '[[]]')).toBe(false);
  });

  it('behavior: brackets in strings do not count, escapes included, even split between pieces', () => {
    expect(scan(1, '["[[[[', '[[["]')).toBe(false);
    // An escaped quote does not end the string; the escape and the quote in different pieces.
    expect(scan(1, '["\\', '"[[[["]')).toBe(false);
    // An escaped backslash does: the bracket after the string counts.
    expect(scan(1, '["\\\\', '",[1]]')).toBe(true);
  });
});
