/**
 * JSON-RPC 2.0 errors, one class per code (after viem's `src/errors/rpc.ts`), and the one table that
 * maps the service's own errors onto them. JSON-RPC errors travel with HTTP 200, as Ethereum nodes do.
 */
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../errors.js';

export type JsonRpcId = string | number | null;

export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** Invalid JSON was received. */
export class ParseRpcError extends JsonRpcError {
  static readonly code = -32700 as const;
  constructor(detail: string) {
    super(ParseRpcError.code, `Parse error: ${detail}`);
  }
}

/** The JSON is not a valid request object (or the batch is empty or too large). */
export class InvalidRequestRpcError extends JsonRpcError {
  static readonly code = -32600 as const;
  constructor(detail: string) {
    super(InvalidRequestRpcError.code, `Invalid request: ${detail}`);
  }
}

/** The method does not exist. */
export class MethodNotFoundRpcError extends JsonRpcError {
  static readonly code = -32601 as const;
  constructor(method: string) {
    super(MethodNotFoundRpcError.code, `Method not found: ${method}`);
  }
}

/** Invalid method parameters. */
export class InvalidParamsRpcError extends JsonRpcError {
  static readonly code = -32602 as const;
  constructor(detail: string, data?: { code: string }) {
    super(InvalidParamsRpcError.code, `Invalid params: ${detail}`, data);
  }
}

/** Internal error. */
export class InternalRpcError extends JsonRpcError {
  static readonly code = -32603 as const;
  constructor() {
    super(InternalRpcError.code, 'Internal error');
  }
}

/** The Bitcoin node (or the optimizer cache) is unavailable; retry after `data.retryAfterSeconds`. */
export class ServerUnavailableRpcError extends JsonRpcError {
  static readonly code = -32000 as const;
  constructor(message: string, data: { code: string; retryAfterSeconds: number }) {
    super(ServerUnavailableRpcError.code, message, data);
  }
}

/** The requested resource does not exist (a block above the tip, an unknown template tx…). */
export class ResourceNotFoundRpcError extends JsonRpcError {
  static readonly code = -32001 as const;
  constructor(message: string, data: { code: string }) {
    super(ResourceNotFoundRpcError.code, message, data);
  }
}

/** Too many requests from this client (EIP-1474 "limit exceeded"); retry after `data.retryAfterSeconds`. */
export class LimitExceededRpcError extends JsonRpcError {
  static readonly code = -32005 as const;
  constructor(message: string, data: { code: string; retryAfterSeconds: number }) {
    super(LimitExceededRpcError.code, message, data);
  }
}

/**
 * Maps any thrown error to a JSON-RPC error: 4xx catalogue errors become invalid params (or
 * resource-not-found for 404), 503 becomes -32000 with a retry hint, 502 -32002, the rest -32603.
 */
export function toJsonRpcError(error: unknown): JsonRpcError {
  if (error instanceof JsonRpcError) return error;
  const e = error as { statusCode?: number; code?: string; message?: string };
  const status = e.statusCode ?? 500;
  const code = typeof e.code === 'string' ? e.code : 'INTERNAL';
  const message = e.message ?? 'error';
  if (status === 404) return new ResourceNotFoundRpcError(message, { code });
  // The REST code leads the message (docs/errors.md) and is in data.code, as for the other codes;
  // INVALID_REQUEST's own lead ("Invalid request: ") would only repeat "Invalid params".
  if (status >= 400 && status < 500)
    return new InvalidParamsRpcError(`${code}: ${code === 'INVALID_REQUEST' ? message.replace(/^Invalid request: /, '') : message}`, { code });
  if (status === 503) return new ServerUnavailableRpcError(message, { code, retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS });
  if (status === 502) return new JsonRpcError(-32002, message, { code });
  return new InternalRpcError();
}

/** An error in the JSON-RPC 2.0 response envelope (`data` only when the error has some). */
export function errorResponse(id: JsonRpcId, error: JsonRpcError) {
  return {
    jsonrpc: '2.0',
    id,
    error: error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data },
  };
}
