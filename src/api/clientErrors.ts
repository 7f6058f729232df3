/**
 * Node's own refusals (the HTTP parser's, before fastify sees a request) in our error envelope:
 * a request not received within `HTTP_REQUEST_TIMEOUT_MS` (408), headers over Node's limit (431),
 * anything else unparsable (400). The socket is then closed, as Node does.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../errors.js';

/** The status, code and message answered for a Node client error. */
export function describeClientError(error: Error & { code?: string }, requestTimeoutMs: number): { status: number; code: string; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, code: 'REQUEST_TIMEOUT', message: `The request was not received within ${requestTimeoutMs} ms` };
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'Request headers are too large' };
  return { status: 400, code: 'INVALID_REQUEST', message: 'Malformed HTTP request' };
}

/** fastify's `clientErrorHandler` option (called with the instance as `this`). */
export function clientErrorHandler(requestTimeoutMs: number) {
  return function handle(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    // A reset socket has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, code, message } = describeClientError(error, requestTimeoutMs);
    this.log.debug({ err: error }, 'client error');
    if (socket.writable) {
      const body = JSON.stringify(errorBody(code, message));
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
