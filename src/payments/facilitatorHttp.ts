/**
 * The facilitator's HTTP transport: an undici `Pool` of kept-alive connections to its origin.
 * Global `fetch` (Request/Response, web streams) cost about a tenth of a replica's time under paid
 * load, and node:http's client (ClientRequest, the agent, IncomingMessage) still about 150 µs of
 * CPU per call here; undici's `request` about a quarter of that, and its `dispatch` with our own
 * handler (no Readable per answer, `AnswerReader` below) less again (bench/paidProfile.ts). Each call
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
      const answer = new AnswerReader(resolve, reject);
      const timer = setTimeout(() => answer.fail(new HttpFailure('TimeoutError', `no answer within ${timeoutMs} ms`)), timeoutMs);
      answer.onEnd = () => clearTimeout(timer);
      try {
        this.pool.dispatch({ path: `${this.prefix}${path}`, method, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }, answer);
      } catch (err) {
        answer.fail(failureOf(err));
      }
    });
  }

  /** Closes the pool's connections (shutdown). */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }
}

/**
 * The answer read straight from undici's dispatch callbacks into one buffer: `pool.request` would
 * wrap each answer in a Readable stream and read it back through `text()`, the larger part of the
 * transport's CPU per call (bench/paidProfile.ts). Settles once: the answer, or the first failure
 * (which aborts the exchange: a late answer is dropped, the connection not reused).
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private done = false;
  /** Called once when the exchange settles, either way. */
  onEnd: () => void = () => undefined;

  constructor(
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (err: HttpFailure) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.done) controller.abort(new Error('abandoned'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.status = statusCode;
    if (Number(headers['content-length'] ?? 0) > MAX_BODY_BYTES) this.fail(new HttpFailure('Error', 'answer too large'));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_BODY_BYTES) this.fail(new HttpFailure('Error', 'answer too large'));
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.done = true;
    this.onEnd();
    this.resolve({ status: this.status, text: Buffer.concat(this.chunks, this.size).toString('utf8') });
  }

  onResponseError(controller: Dispatcher.DispatchController, err: Error): void {
    this.fail(failureOf(err));
  }

  /** Settles with `err` and aborts what is still running. */
  fail(err: HttpFailure): void {
    if (this.done) return;
    this.done = true;
    this.onEnd();
    this.reject(err);
    if (this.controller && !this.controller.aborted) this.controller.abort(err);
  }
}

function failureOf(err: unknown): HttpFailure {
  if (err instanceof HttpFailure) return err;
  const timeout = err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError;
  return new HttpFailure(timeout ? 'TimeoutError' : 'Error', err instanceof Error ? err.message : 'transport error');
}
