/**
 * fastify's per-request log lines, quieted: nothing when a request arrives, one `debug` line when
 * it completes. Two `info` lines per request let a flood of unpaid requests fill the disk
 * (issue 16: 798 MB in 3.5 minutes); errors are still logged once, by the error handler (5xx) or
 * here when the reply itself fails.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ err: error, url: request.url, statusCode: reply.statusCode }, 'request errored');
    else request.log.debug({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  }

  /** Unknown routes are answered (404/405) by our not-found handler; one debug line as for any request. */
  override routeNotFound(): void {}
}
