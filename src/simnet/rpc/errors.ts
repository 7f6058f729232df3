/**
 * JSON-RPC errors of the simulated node: Core's codes (src/rpc/protocol.h) and an error class the
 * method handlers throw. The server turns it into `{ result: null, error: { code, message }, id }`
 * with Core's HTTP status (500; 404 for an unknown method; 400 for an invalid request).
 */
import { CORE_RPC_CODES } from '../../bitcoin/coreRpcCodes.js';

export const RPC_ERROR = CORE_RPC_CODES;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** HTTP status Core answers a single (non-batch, JSON-RPC 1.0) request failing with `code`. */
export function httpStatusFor(code: number): number {
  if (code === RPC_ERROR.INVALID_REQUEST) return 400;
  if (code === RPC_ERROR.METHOD_NOT_FOUND) return 404;
  return 500;
}
