/**
 * One error handler for the whole REST surface: every thrown error becomes the envelope
 * `{ success: false, error: { code, message, docs } }` with the right status (DESIGN §5); `docs`
 * points at the catalogue of codes served by this service.
 *
 * - zod validation failures: 400 `INVALID_REQUEST` (or the route's own code) naming the failing field;
 *   an unknown query parameter or body field is 400 `UNKNOWN_PARAMETER` naming it and the accepted ones;
 * - fastify's own request errors (bad JSON, body too large, bad content type): 400/413/415;
 * - catalogue errors (`src/errors.ts`): their own status, with `Retry-After` on 503;
 * - anything else: 500 with a generic message; the full error and its cause are logged, never sent.
 *
 * Logs are sized for attack (issue 22): a flood of one failure (the node down answers every request
 * 503) writes one line per kind of failure and minute (`LogSampler`), with the count of those not
 * written; an expected (catalogue) failure is logged without a stack, an unexpected one with it.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DEFAULT_RETRY_AFTER_SECONDS, Errors, errorBody } from '../errors.js';
import { LogSampler } from '../util/logSampler.js';

/** A validation failure on one of these fields gets a field-specific code. */
const FIELD_CODES: Record<string, string> = {
  txid: 'INVALID_TXID',
  txids: 'INVALID_TXID',
  address: 'INVALID_ADDRESS',
};

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  /** The zod issue code (fastify-type-provider-zod) or the Ajv keyword. */
  keyword?: string;
  params?: { issue?: { path?: PropertyKey[]; message?: string } };
}

function describeValidation(error: FastifyError & { validation?: ValidationIssue[]; validationContext?: string }): {
  code: string;
  message: string;
} {
  const first = error.validation?.[0];
  const path = first?.params?.issue?.path ?? (first?.instancePath ?? '').split('/').filter(Boolean);
  const field = path.map(String).join('.');
  const where = error.validationContext ?? 'request';
  const reason = first?.params?.issue?.message ?? first?.message ?? 'invalid value';
  const head = String(path[0] ?? '');
  // An unknown field is its own code: the payer asked something we do not answer (strict inputs).
  const code = first?.keyword === 'unrecognized_keys' ? 'UNKNOWN_PARAMETER' : (FIELD_CODES[head] ?? 'INVALID_REQUEST');
  return { code, message: field ? `${where}.${field}: ${reason}` : `${where}: ${reason}` };
}

/** The error handler, its log lines sampled by `sampler` (one per app). */
export function createErrorHandler(sampler: LogSampler = new LogSampler()) {
  return function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    handleError(sampler, error, request, reply);
  };
}

/** For apps built without `createErrorHandler` (tests): a sampler of its own. */
export const errorHandler = createErrorHandler();

function handleError(sampler: LogSampler, error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (hasZodFastifySchemaValidationErrors(error) || (error as { validation?: unknown }).validation) {
    const { code, message } = describeValidation(error);
    void reply.code(400).send(errorBody(code, message));
    return;
  }
  const status = error.statusCode ?? 500;
  const code = error.code ?? '';
  if (code.startsWith('FST_') && status < 500) {
    // fastify's own request errors: unreadable JSON, body too large, wrong content type, bad URL.
    if (status === 413) {
      // The limit the route applied, so the caller knows how much to cut.
      void reply.code(413).send(errorBody('BODY_TOO_LARGE', new Errors.BODY_TOO_LARGE(request.routeOptions.bodyLimit ?? 'the route limit').message));
      return;
    }
    const mapped = status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'INVALID_REQUEST';
    void reply.code(status).send(errorBody(mapped, error.message));
    return;
  }
  // A 5xx passes through only as a catalogue error; anything else (a Node ERR_* or SQLITE_* code,
  // a library's error) is a generic 500, its message logged, never sent.
  if (status >= 500 && !(code in Errors)) {
    const sampled = sampler.take(`unhandled ${error.name}: ${error.message.slice(0, 120)}`);
    if (sampled) request.log.error({ err: error, route: request.routeOptions.url, notLogged: sampled.suppressed }, 'unhandled error');
    void reply.code(500).send(errorBody('INTERNAL', 'Internal error'));
    return;
  }
  if (status >= 500) {
    // Expected (the node down, not ready, shutting down): what and how often, never a stack.
    const sampled = sampler.take(`${status} ${code}`);
    if (sampled) request.log.warn({ code, status, reason: error.message, route: request.routeOptions.url, notLogged: sampled.suppressed }, 'request failed');
  }
  if (status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(DEFAULT_RETRY_AFTER_SECONDS));
  // A catalogue error may carry `details` (e.g. /health's full answer with its 503).
  void reply.code(status).send(errorBody(code || 'INTERNAL', error.message, (error as { details?: unknown }).details));
}

/** Router-level refusals (bad URL encoding, over-long path parameters), before any route runs. */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 400;
  void reply.code(status).send(errorBody(status === 414 ? 'URI_TOO_LONG' : 'INVALID_REQUEST', error.message.slice(0, 200)));
}
