/**
 * The error catalogue. Every error the service answers with is made here, grouped by concern.
 *
 * Codes are public API: never rename or reuse one. Each code is documented in `docs/errors.md`
 * (a test checks both directions). Messages take `%s` arguments and never contain a secret.
 */
import createError, { type FastifyErrorConstructor } from '@fastify/error';

type Catalogue = Record<string, FastifyErrorConstructor>;

function define<T extends Catalogue>(catalogue: T): T {
  return catalogue;
}

export const Errors = define({
  // --- request shape (400, 404, 405, 408, 413, 414, 415, 429, 431) ---
  INVALID_REQUEST: createError('INVALID_REQUEST', 'Invalid request: %s', 400),
  UNKNOWN_PARAMETER: createError('UNKNOWN_PARAMETER', 'Unknown parameter: %s', 400),
  INVALID_TXID: createError('INVALID_TXID', 'Invalid txid: %s (expected 64 hexadecimal characters)', 400),
  INVALID_ADDRESS: createError('INVALID_ADDRESS', 'Invalid Bitcoin address: %s', 400),
  WRONG_NETWORK_ADDRESS: createError('WRONG_NETWORK_ADDRESS', 'Address %s belongs to %s, but the node is on %s', 400),
  BODY_TOO_LARGE: createError('BODY_TOO_LARGE', 'Request body is larger than this route accepts (%s bytes): send less, e.g. a smaller batch', 413),
  UNSUPPORTED_MEDIA_TYPE: createError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: %s (send application/json)', 415),
  NOT_FOUND: createError('NOT_FOUND', 'No route %s %s', 404),
  METHOD_NOT_ALLOWED: createError('METHOD_NOT_ALLOWED', '%s is not allowed on %s', 405),
  UPGRADE_REQUIRED: createError('UPGRADE_REQUIRED', '%s is a WebSocket: open it with a WebSocket client (Upgrade: websocket)', 426),
  REQUEST_TIMEOUT: createError('REQUEST_TIMEOUT', 'The request was not received within %s ms', 408),
  URI_TOO_LONG: createError('URI_TOO_LONG', 'URI too long: %s', 414),
  HEADERS_TOO_LARGE: createError('HEADERS_TOO_LARGE', 'Request headers are too large', 431),
  RATE_LIMITED: createError('RATE_LIMITED', 'Too many requests from this client: retry in %s (Retry-After)', 429),

  // --- Bitcoin data (404, 422) ---
  TX_NOT_FOUND: createError('TX_NOT_FOUND', 'Transaction %s is not known to the node', 404),
  TX_NOT_IN_MEMPOOL: createError('TX_NOT_IN_MEMPOOL', 'Transaction %s is not in the mempool', 404),
  BLOCK_NOT_FOUND: createError('BLOCK_NOT_FOUND', 'Block %s not found', 404),
  REPLACEMENT_NOT_CONFLICTING: createError(
    'REPLACEMENT_NOT_CONFLICTING',
    'The signed transaction spends neither an input of %s (a replacement) nor one of its outputs (a CPFP child): only bumps of the named transaction are relayed',
    422,
  ),
  INVALID_RAW_TRANSACTION: createError('INVALID_RAW_TRANSACTION', 'Raw transaction could not be decoded: %s', 422),

  // --- upstream (503, 502) ---
  SHUTTING_DOWN: createError('SHUTTING_DOWN', 'This replica is shutting down: retry, another one will answer', 503),
  NODE_UNAVAILABLE: createError('NODE_UNAVAILABLE', 'Bitcoin node unavailable: %s', 503),
  NODE_TIMEOUT: createError('NODE_TIMEOUT', 'Bitcoin node did not answer %s within %s ms', 503),
  NODE_ERROR: createError('NODE_ERROR', 'Bitcoin node refused %s: %s', 502),
  NODE_BAD_RESPONSE: createError('NODE_BAD_RESPONSE', 'Bitcoin node sent an unexpected answer to %s: %s', 502),
  ADDRESS_SOURCE_UNAVAILABLE: createError('ADDRESS_SOURCE_UNAVAILABLE', 'Address index unavailable: %s', 503),
  MEMPOOL_NOT_READY: createError('MEMPOOL_NOT_READY', 'The mempool view is not ready yet: %s', 503),
  TEMPLATE_NOT_READY: createError('TEMPLATE_NOT_READY', 'The optimizer cache is not ready yet: %s', 503),

  // --- payments (x402 v2); a refused or missing payment is a 402 challenge, not one of these ---
  PAYMENT_MALFORMED: createError('PAYMENT_MALFORMED', 'Malformed payment header: %s', 400),
  PAYMENT_ID_CONFLICT: createError('PAYMENT_ID_CONFLICT', 'Payment identifier %s was already used with another payment or request', 409),
  PAYMENT_ANSWER_EXHAUSTED: createError(
    'PAYMENT_ANSWER_EXHAUSTED',
    'Payment %s already paid for this request, and its answer could not be recomputed (%s attempts failed): it is not charged again; do not pay again for it',
    409,
  ),
  PAYMENT_IN_PROGRESS: createError('PAYMENT_IN_PROGRESS', 'A request with payment %s is still being processed; retry after Retry-After seconds', 409),
  PAYMENT_STORE_UNAVAILABLE: createError('PAYMENT_STORE_UNAVAILABLE', 'Payment replay store unavailable: %s', 503),
  FACILITATOR_UNAVAILABLE: createError(
    'FACILITATOR_UNAVAILABLE',
    'The payment facilitator is failing (%s); no payment is taken until it recovers: retry after Retry-After seconds',
    503,
  ),
  PAYMENT_ROUTE_UNPRICED: createError('PAYMENT_ROUTE_UNPRICED', 'Route %s has no price: declare it in the registry (src/api/)', 500),

  // --- server ---
  INTERNAL: createError('INTERNAL', 'Internal error', 500),
});

export type ErrorCode = keyof typeof Errors;

/** Where every code is explained (status, meaning, what to do): a path on this service, served from `docs/errors.md`. */
export const ERRORS_DOC_PATH = '/docs/errors.md';

/** The JSON body of every REST error (DESIGN §5). */
export interface ErrorBody {
  success: false;
  /** `docs`: where the code is explained (status, meaning, what to do), a path on this service. */
  error: { code: string; message: string; docs: string; details?: unknown };
}

/** The envelope of every REST error, once (the error handler, the payment gate's late errors). */
export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  const error = { code, message, docs: ERRORS_DOC_PATH };
  return details === undefined ? { success: false, error } : { success: false, error: { ...error, details } };
}

/** Seconds a client should wait before retrying a 503, sent as `Retry-After` (and JSON-RPC's `data.retryAfterSeconds`). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;
