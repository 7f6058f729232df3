/**
 * JSON-RPC envelopes as Bitcoin Core's HTTP server handles them (src/httprpc.cpp,
 * src/rpc/request.cpp): a request object or a batch array; JSON-RPC 1.0 style (what the
 * `bitcoin-core` client sends: no `jsonrpc`, replies `{result, error, id}`, errors with HTTP 500 /
 * 404 / 400) or 2.0 (`"jsonrpc":"2.0"`: replies carry only `result` or `error`, HTTP 200,
 * notifications get no reply). The envelope is checked with zod; unexpected handler exceptions
 * become -32603 and are logged, never a crash.
 */
import { z } from 'zod';
import { RawJson, stringifyCore } from './coreJson.js';
import { httpStatusFor, RPC_ERROR, RpcError } from './errors.js';
import { parseParams } from './params.js';
import type { Simulator } from '../node/simulator.js';
import type { MethodTable } from './rpcMethod.js';

const Id = z.union([z.string(), z.number(), z.null()]);
/** Largest batch answered (Core has no limit; the simulator refuses absurd ones rather than exhaust memory). */
export const MAX_BATCH = 1000;
const Params = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** A JSON body in pieces (large cached answers are buffers written as they are). */
export type JsonChunks = Array<string | Buffer>;

export interface HttpReply {
  status: number;
  /** JSON body; undefined for a lone notification (HTTP 204). */
  body: JsonChunks | undefined;
}

interface SingleReply {
  json: JsonChunks | undefined;
  code: number | undefined;
  v2: boolean;
}

export class RpcDispatcher {
  constructor(
    private readonly methods: MethodTable,
    private readonly sim: Simulator,
    private readonly log: (message: string) => void,
  ) {}

  /** Handles a parsed HTTP body (a request or a batch). */
  handle(body: unknown): HttpReply {
    if (Array.isArray(body)) {
      if (body.length > MAX_BATCH) {
        return { status: 400, body: this.error(null, false, new RpcError(RPC_ERROR.INVALID_REQUEST, `Batch too large (at most ${MAX_BATCH} requests)`)).json };
      }
      const chunks: JsonChunks = ['['];
      for (const request of body) {
        const json = this.single(request).json;
        if (!json) continue;
        if (chunks.length > 1) chunks.push(',');
        chunks.push(...json);
      }
      chunks.push(']');
      return { status: 200, body: chunks };
    }
    const reply = this.single(body);
    if (reply.json === undefined) return { status: 204, body: undefined };
    return { status: reply.v2 || reply.code === undefined ? 200 : httpStatusFor(reply.code), body: reply.json };
  }

  private single(request: unknown): SingleReply {
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      return this.error(null, false, new RpcError(RPC_ERROR.INVALID_REQUEST, 'Invalid Request object'));
    }
    const r = request as Record<string, unknown>;
    const idParse = Id.safeParse(r.id ?? null);
    const id = idParse.success ? idParse.data : null;
    let v2 = false;
    if (r.jsonrpc !== undefined) {
      if (r.jsonrpc === '2.0') v2 = true;
      else if (r.jsonrpc !== '1.0') return this.error(id, false, new RpcError(RPC_ERROR.INVALID_REQUEST, 'JSON-RPC version not supported'));
    }
    const notification = v2 && !('id' in r);
    if (r.method === undefined) return this.error(id, v2, new RpcError(RPC_ERROR.INVALID_REQUEST, 'Missing method'));
    if (typeof r.method !== 'string') return this.error(id, v2, new RpcError(RPC_ERROR.INVALID_REQUEST, 'Method must be a string'));
    if (r.params !== undefined && r.params !== null && !Params.safeParse(r.params).success) {
      return this.error(id, v2, new RpcError(RPC_ERROR.INVALID_REQUEST, 'Params must be an array or object'));
    }
    const method = Object.hasOwn(this.methods, r.method) ? this.methods[r.method] : undefined;
    let reply: SingleReply;
    if (!method) reply = this.error(id, v2, new RpcError(RPC_ERROR.METHOD_NOT_FOUND, 'Method not found'));
    else {
      try {
        const args = parseParams(r.method, method.params, r.params, method.description);
        const result = method.run(args, this.sim);
        const idJson = stringifyCore(id);
        const resultJson = result instanceof RawJson ? result.json : stringifyCore(result ?? null);
        const pieces = typeof resultJson === 'string' ? [resultJson] : resultJson;
        reply = {
          json: v2 ? ['{"jsonrpc":"2.0","result":', ...pieces, `,"id":${idJson}}`] : ['{"result":', ...pieces, `,"error":null,"id":${idJson}}`],
          code: undefined,
          v2,
        };
      } catch (error) {
        if (error instanceof RpcError) reply = this.error(id, v2, error);
        else {
          this.log(`simnet: ${r.method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          reply = this.error(id, v2, new RpcError(RPC_ERROR.INTERNAL_ERROR, 'Internal error'));
        }
      }
    }
    return notification ? { json: undefined, code: reply.code, v2 } : reply;
  }

  private error(id: unknown, v2: boolean, error: RpcError): SingleReply {
    const err = stringifyCore({ code: error.code, message: error.message });
    const idJson = stringifyCore(id ?? null);
    return { json: [v2 ? `{"jsonrpc":"2.0","error":${err},"id":${idJson}}` : `{"result":null,"error":${err},"id":${idJson}}`], code: error.code, v2 };
  }
}
