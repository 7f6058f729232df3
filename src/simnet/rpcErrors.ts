/**
 * JSON-RPC errors of the simulated node: Core's codes (src/rpc/protocol.h) and an error class the
 * method handlers throw. The server turns it into `{ result: null, error: { code, message }, id }`
 * with Core's HTTP status (500; 404 for an unknown method; 400 for an invalid request).
 */

export const RPC_ERROR = {
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_UTXO_SET: -27,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL_ERROR: -32603,
  PARSE_ERROR: -32700,
} as const;

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
