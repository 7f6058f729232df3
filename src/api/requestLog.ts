/**
 * fastify's per-request log lines, quieted: nothing when a request arrives, one `debug` line when
 * it completes. Two `info` lines per request let a flood of unpaid requests fill the disk
 * (issue 16: 798 MB in 3.5 minutes); errors are still logged, by the error handler (5xx) or here
 * when the reply itself fails, sampled (`LogSampler`) so that a flood of failing replies writes a
 * line per kind of failure and minute, not one per request (issue 22).
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { LogSampler } from '../util/logSampler.js';

export class RequestLog extends LogController {
  private readonly sampler = new LogSampler();

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      const code = (error as { code?: unknown }).code;
      const sampled = this.sampler.take(`${error.name}: ${typeof code === 'string' ? code : error.message.slice(0, 120)}`);
      if (sampled) reply.log.error({ err: error, url: request.url, statusCode: reply.statusCode, notLogged: sampled.suppressed }, 'request errored');
    } else request.log.debug({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  }

  /** Unknown routes are answered (404/405) by our not-found handler; one debug line as for any request. */
  override routeNotFound(): void {}
}
