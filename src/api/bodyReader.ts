/**
 * Reads a request body as it arrives, checking its nesting depth chunk by chunk, so that a hostile
 * body (`[[[[…`) is refused at its 17th byte: nothing more is read, no string is built and nothing
 * is parsed (issue 22 item 6). Otherwise it does what fastify's own `parseAs: 'string'` reader
 * does: a `Content-Length` over the route's limit is refused before reading, a stream past it as
 * soon as it passes it (413), a body shorter or longer than its `Content-Length` is a 400, and the
 * body is decoded once as UTF-8 at the end.
 */
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyRequest } from 'fastify';
import { DepthScanner } from './bodyLimits.js';

/**
 * Fastify's 413, without a stack: a refusal a flood repeats, not a bug, and capturing the stack was
 * a tenth of a millisecond of event loop per refused request (issue 22 item 6).
 */
function bodyTooLarge(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** What a body read came to: its text, or the refusal of a body that nests too deep (left unread). */
export type BodyRead = { text: string } | { tooDeep: true };

/**
 * A fastify stream content-type parser body: reads `payload` under the route's body limit and
 * `maxDepth`, then calls `done` with an error (413/400, fastify's own codes) or the read.
 */
export function readBody(request: FastifyRequest, payload: IncomingMessage, maxDepth: number, done: (error: Error | null, read?: BodyRead) => void): void {
  const limit = request.routeOptions.bodyLimit;
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) {
    done(bodyTooLarge());
    return;
  }
  const scanner = new DepthScanner(maxDepth);
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = (): void => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
  };
  function onData(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (received > limit) {
      stop();
      done(bodyTooLarge());
      return;
    }
    if (scanner.tooDeep(bytes)) {
      // The rest is never read: the answer closes the connection (src/api/edge.ts).
      stop();
      payload.pause();
      done(null, { tooDeep: true });
      return;
    }
    chunks.push(bytes);
  }
  function onError(error: Error & { statusCode?: number }): void {
    stop();
    if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
    done(error);
  }
  function onEnd(): void {
    stop();
    if (!Number.isNaN(contentLength) && received !== contentLength) {
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    done(null, { text: chunks.length === 1 ? (chunks[0]?.toString('utf8') ?? '') : Buffer.concat(chunks, received).toString('utf8') });
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}
