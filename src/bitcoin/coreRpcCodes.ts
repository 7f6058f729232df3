/**
 * Bitcoin Core's JSON-RPC error codes (src/rpc/protocol.h), used by the node client to classify
 * refusals and by the simulated node to answer as Core does.
 */
export const CORE_RPC_CODES = {
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  /** Named RPC_VERIFY_ALREADY_IN_CHAIN before Core v27. */
  VERIFY_ALREADY_IN_UTXO_SET: -27,
  IN_WARMUP: -28,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL_ERROR: -32603,
  PARSE_ERROR: -32700,
} as const;
