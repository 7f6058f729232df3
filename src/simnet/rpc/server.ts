/**
 * The simulated node's HTTP server on 127.0.0.1 (a random port): JSON-RPC on `POST /` (and
 * `/wallet/<name>`) behind HTTP Basic auth, as Core's: a bad or missing password gets 401 with an
 * empty body and `WWW-Authenticate`; bodies over 32 MB get 413; unparsable JSON gets -32700 with
 * HTTP 500. Esplora routes under `/esplora` need no auth. Any failure is answered, never thrown.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { esploraRoute } from './esplora.js';
import { RpcDispatcher, type JsonChunks } from './dispatch.js';
import type { MethodTable } from './rpcMethod.js';
import type { Simulator } from '../node/simulator.js';

/** Core's HTTP body limit (`MAX_SIZE`). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface RpcServerOptions {
  username: string;
  password: string;
  methods: MethodTable;
  log: (message: string) => void;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export async function startRpcServer(sim: Simulator, options: RpcServerOptions): Promise<RunningServer> {
  const dispatcher = new RpcDispatcher(options.methods, sim, options.log);
  const expected = Buffer.from(`Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`);
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`simnet http: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) send(res, 500, 'text/plain', 'Internal Server Error');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/esplora' || url.pathname.startsWith('/esplora/')) {
      if (req.method !== 'GET') return send(res, 405, 'text/plain', 'Method Not Allowed');
      req.resume();
      const reply = esploraRoute(sim, url.pathname.slice('/esplora'.length));
      return send(res, reply.status, reply.contentType, reply.body);
    }
    if (url.pathname !== '/' && !url.pathname.startsWith('/wallet/')) {
      req.resume();
      return send(res, 404, 'text/plain', '');
    }
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== expected.length || !timingSafeEqual(auth, expected)) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="jsonrpc"', 'content-length': '0' });
      res.end();
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      return send(res, 405, 'text/plain', 'JSONRPC server handles only POST requests');
    }
    const body = await readBody(req);
    if (body === undefined) {
      send(res, 413, 'text/plain', 'Request body too large');
      req.destroy();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return send(res, 500, 'application/json', '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}');
    }
    const reply = dispatcher.handle(parsed);
    if (reply.body === undefined) {
      res.writeHead(204);
      res.end();
      return;
    }
    await sendChunks(res, reply.status, reply.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.keepAliveTimeout = 30_000;
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes a JSON body in pieces, waiting for the socket to drain so large answers stay bounded in memory. */
async function sendChunks(res: ServerResponse, status: number, chunks: JsonChunks): Promise<void> {
  let length = 0;
  for (const c of chunks) length += typeof c === 'string' ? Buffer.byteLength(c) : c.length;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': length });
  for (const c of chunks) {
    if (res.destroyed) return;
    if (!res.write(c)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
  res.end();
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The request body, or undefined when it exceeds the limit. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
