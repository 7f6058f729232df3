/**
 * The facilitator's HTTP transport: an undici `Pool` of kept-alive connections to its origin.
 * Global `fetch` (Request/Response, web streams) cost about a tenth of a replica's time under paid
 * load, and node:http's client (ClientRequest, the agent, IncomingMessage) still about 150 µs of
 * CPU per call here; undici's `request` about a quarter of that (bench/paidProfile.ts). Each call
 * is bounded by one timer of ours over the whole exchange (an AbortSignal per call would cost as
 * much as the call), undici's own timeouts set to the same budget as a backstop. A body larger
 * than `MAX_BODY_BYTES` is refused (a facilitator's answers are a few hundred bytes).
 */
import { errors, Pool, type Dispatcher } from 'undici';

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
  private readonly pool: Pool;
  /** The base URL's path (a facilitator may live under one), prefixed to every call's path. */
  private readonly prefix: string;

  constructor(base: string) {
    const url = new URL(base);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin);
  }

  /** One request to `path` under the base URL; the whole exchange (connect, send, read) within `timeoutMs`. */
  call(path: string, method: 'GET' | 'POST', headers: Record<string, string>, body: string | null, timeoutMs: number): Promise<HttpAnswer> {
    return new Promise<HttpAnswer>((resolve, reject) => {
      let done = false;
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(() => finish(() => reject(new HttpFailure('TimeoutError', `no answer within ${timeoutMs} ms`))), timeoutMs);
      this.pool
        .request({ path: `${this.prefix}${path}`, method, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
        .then(async (res) => {
          if (done) return void res.body.dump().catch(() => undefined);
          const text = await readBody(res);
          finish(() => resolve({ status: res.statusCode, text }));
        })
        .catch((err: unknown) => finish(() => reject(failureOf(err))));
    });
  }

  /** Closes the pool's connections (shutdown). */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }
}

async function readBody(res: Dispatcher.ResponseData): Promise<string> {
  const length = Number(res.headers['content-length'] ?? 0);
  if (length > MAX_BODY_BYTES) {
    res.body.destroy();
    throw new HttpFailure('Error', 'answer too large');
  }
  if (length > 0) return res.body.text();
  // No length (chunked): counted as it comes.
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res.body.destroy();
      throw new HttpFailure('Error', 'answer too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failureOf(err: unknown): HttpFailure {
  if (err instanceof HttpFailure) return err;
  const timeout = err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError;
  return new HttpFailure(timeout ? 'TimeoutError' : 'Error', err instanceof Error ? err.message : 'transport error');
}
