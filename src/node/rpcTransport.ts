/**
 * The one place that talks JSON-RPC to the Bitcoin node, through the `bitcoin-core` client.
 *
 * Every call has a hard timeout (the client's socket timeout plus our own race, so a node that
 * accepts the connection and never answers still fails in time). Failures are sorted into:
 * - unreachable / timed out / warming up → `NODE_UNAVAILABLE` / `NODE_TIMEOUT` (503, `Retry-After`);
 * - the node refused the call (an RPC error code) → `NodeRpcError`, which callers map to 404/422/…;
 * - an answer that does not match our schema → `NODE_BAD_RESPONSE` (502).
 */
import BitcoinCoreClient from 'bitcoin-core';
import type { z } from 'zod';
import { CORE_RPC_CODES } from '../bitcoin/coreRpcCodes.js';
import { Errors } from '../errors.js';

/** Core's RPC error codes (src/rpc/protocol.h). */

/** The node answered, but refused the call. `rpcCode` is Core's error code. */
export class NodeRpcError extends Error {
  /** Unmapped refusals answer 502 `NODE_ERROR`; callers map the codes they expect first. */
  readonly statusCode = 502;
  readonly code = 'NODE_ERROR';
  constructor(
    readonly method: string,
    readonly rpcCode: number,
    /** The node's own message, as it said it. */
    readonly coreMessage: string,
  ) {
    super(`${method}: ${coreMessage} (code ${rpcCode})`);
    this.name = 'NodeRpcError';
  }
}

export interface RpcTransportOptions {
  /** `http://user:pass@host:port` */
  url: string;
  /** Default timeout of every call, ms. */
  timeoutMs: number;
}

interface RawResponse {
  statusCode: number;
  body: unknown;
  headers: Record<string, string | undefined>;
}

/** The parts of the `bitcoin-core` client we use: `command`, and its configured HTTP requester. */
interface CoreClient {
  command(method: string, ...params: unknown[]): Promise<unknown>;
  auth: { user?: string; pass?: string } | null;
  request: { postAsync(options: Record<string, unknown>): Promise<RawResponse> };
}

export interface CallOptions {
  timeoutMs?: number;
  /**
   * Parse the answer with V8's `JSON.parse` instead of the client's big-number-safe JS parser, which
   * is ~10× slower. For big answers (`getrawmempool`, batches) whose numbers all fit a double.
   */
  fastJson?: boolean;
}

/** One element of a batch answer: the result, or the node's refusal. */
export type BatchResult = { ok: true; result: unknown } | { ok: false; error: NodeRpcError };

/** Parses `http://user:pass@host:port/` into what the `bitcoin-core` client takes. */
export function parseRpcUrl(url: string): { host: string; username?: string; password?: string } {
  const u = new URL(url);
  const username = u.username ? decodeURIComponent(u.username) : undefined;
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  return { host: `${u.protocol}//${u.host}`, username, password };
}

export class RpcTransport {
  private readonly client: CoreClient;
  private readonly timeoutMs: number;
  /** Host and port only: safe to show (the URL's credentials are not). */
  readonly endpoint: string;

  constructor(options: RpcTransportOptions) {
    const { host, username, password } = parseRpcUrl(options.url);
    this.endpoint = host;
    this.timeoutMs = options.timeoutMs;
    // bitcoin-core's own socket timeout is the first line; ours (below) is the guarantee.
    this.client = new BitcoinCoreClient({ host, username, password, timeout: options.timeoutMs + 1000 }) as unknown as CoreClient;
  }

  /**
   * Calls `method` and validates the answer with `schema`.
   * @throws NODE_UNAVAILABLE | NODE_TIMEOUT (503), NODE_BAD_RESPONSE (502), NodeRpcError (node refused)
   */
  async call<S extends z.ZodType>(method: string, params: unknown[], schema: S, options: CallOptions = {}): Promise<z.output<S>> {
    const raw = await this.raw(method, params, options);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Errors.NODE_BAD_RESPONSE(method, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  /** Calls `method` and returns the unvalidated answer. Prefer `call`. */
  async raw(method: string, params: unknown[], options: CallOptions = {}): Promise<unknown> {
    const work = options.fastJson ? this.post(method, { id: 'fast', method, params }) : this.client.command(method, ...params);
    return this.withTimeout(method, work, options.timeoutMs);
  }

  /**
   * Sends several calls in one JSON-RPC batch (one HTTP round trip). Each element answers on its
   * own: a refused call does not fail the others. Transport failures reject the whole batch.
   */
  async batch(calls: ReadonlyArray<{ method: string; params: unknown[] }>, options: CallOptions = {}): Promise<BatchResult[]> {
    if (calls.length === 0) return [];
    const label = `batch of ${calls.length} (${calls[0]?.method ?? 'nothing'}…)`;
    const body = calls.map((c, i) => ({ id: i, method: c.method, params: c.params }));
    const answer = await this.withTimeout(label, this.post(label, body), options.timeoutMs);
    if (!Array.isArray(answer)) throw new Errors.NODE_BAD_RESPONSE(label, 'expected an array');
    const byId = new Map<number, { result?: unknown; error?: { code?: number; message?: string } | null }>();
    for (const item of answer as Array<{ id: number; result?: unknown; error?: { code?: number; message?: string } | null }>) byId.set(item.id, item);
    return calls.map((c, i): BatchResult => {
      const item = byId.get(i);
      if (!item) return { ok: false, error: new NodeRpcError(c.method, -32603, 'missing from the batch answer') };
      if (item.error) return { ok: false, error: new NodeRpcError(c.method, item.error.code ?? -32603, item.error.message ?? 'error') };
      return { ok: true, result: item.result };
    });
  }

  private async withTimeout<T>(label: string, work: Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Errors.NODE_TIMEOUT(label, timeoutMs)), timeoutMs);
    });
    try {
      return await Promise.race([work, timeout]);
    } catch (error) {
      throw classify(label, error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** POSTs a JSON-RPC body through the client's HTTP requester and parses it with `JSON.parse`. */
  private async post(label: string, body: unknown): Promise<unknown> {
    const auth = this.client.auth ? { user: this.client.auth.user, pass: this.client.auth.pass } : undefined;
    const response = await this.client.request.postAsync({ auth, body: JSON.stringify(body), uri: '/', followRedirect: true });
    const text = typeof response.body === 'string' ? response.body : '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw Object.assign(new Error(`HTTP ${response.statusCode}`), { code: response.statusCode === 200 ? 'EBADJSON' : response.statusCode });
    }
    if (Array.isArray(parsed)) return parsed;
    const single = parsed as { result?: unknown; error?: { code?: number; message?: string } | null };
    if (single.error) throw Object.assign(new Error(single.error.message ?? 'error'), { code: single.error.code ?? -32603 });
    if (response.statusCode !== 200) throw Object.assign(new Error(`HTTP ${response.statusCode}`), { code: response.statusCode });
    return single.result;
  }
}

function classify(method: string, error: unknown): Error {
  if (error instanceof Error && (error as { code?: unknown }).code === 'NODE_TIMEOUT') return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'number') {
    if (code === CORE_RPC_CODES.IN_WARMUP) return new Errors.NODE_UNAVAILABLE(`node is warming up (${message})`);
    if (code === 401 || code === 403) return new Errors.NODE_UNAVAILABLE('node rejected our RPC credentials');
    if (code >= 400 && code < 600) return new Errors.NODE_UNAVAILABLE(`node answered HTTP ${code}`);
    return new NodeRpcError(method, code, message);
  }
  if (typeof code === 'string' && /TIMEDOUT/.test(code)) return new Errors.NODE_TIMEOUT(method, 'the configured');
  // ECONNREFUSED, ECONNRESET, EHOSTUNREACH, unparsable bodies: the node is not usable right now.
  return new Errors.NODE_UNAVAILABLE(typeof code === 'string' ? `${code} calling ${method}` : `${method} failed: ${message.slice(0, 200)}`);
}
