/**
 * The facilitator's HTTP transport: node:http(s) with a keep-alive agent. Replaces global `fetch`
 * on the paid path, where undici's Request/Response and web streams cost about a tenth of a
 * replica's time under paid load with a local facilitator (bench/paidProfile.ts). A body larger
 * than `MAX_BODY_BYTES` is cut off (a facilitator's answers are a few hundred bytes).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

const MAX_BODY_BYTES = 1024 * 1024;

export interface HttpAnswer {
  status: number;
  text: string;
}

/** Timeout or transport failure; `name` is `TimeoutError` for a timeout (as fetch's). */
export class HttpFailure extends Error {
  constructor(name: 'TimeoutError' | 'Error', message: string) {
    super(message);
    this.name = name;
  }
}

export class FacilitatorHttp {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;

  constructor(base: string) {
    const https = new URL(base).protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.send = https ? httpsRequest : httpRequest;
  }

  /** One request; the whole exchange (connect, send, read) within `timeoutMs`. */
  call(url: string, method: 'GET' | 'POST', headers: Record<string, string>, body: string | null, timeoutMs: number): Promise<HttpAnswer> {
    return new Promise<HttpAnswer>((resolve, reject) => {
      const payload = body === null ? null : Buffer.from(body);
      const req = this.send(url, {
        method,
        agent: this.agent,
        headers: payload === null ? headers : { ...headers, 'content-length': String(payload.length) },
      });
      const timer = setTimeout(() => req.destroy(new HttpFailure('TimeoutError', `no answer within ${timeoutMs} ms`)), timeoutMs);
      const fail = (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof HttpFailure ? err : new HttpFailure('Error', err instanceof Error ? err.message : 'transport error'));
      };
      req.on('error', fail);
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) req.destroy(new HttpFailure('Error', 'answer too large'));
          else chunks.push(c);
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.end(payload ?? undefined);
    });
  }

  /** Closes idle keep-alive sockets (shutdown). */
  close(): void {
    this.agent.destroy();
  }
}
