/**
 * The service's edge: what every request meets before its route. Registered before the routes
 * (rate-limit reads each route in `onRoute`).
 *
 * - Security headers (`@fastify/helmet`): defaults that fit a JSON API and the same-origin
 *   dashboard (scripts, styles, images and fetches from 'self'; no inline script); the
 *   resource policy allows cross-origin reads, which CORS governs.
 * - Rate limit per client (`@fastify/rate-limit`) on free routes (but /health) and on paid routes
 *   without a payment: `RATE_LIMIT_MAX` per `RATE_LIMIT_WINDOW_SEC`, then 429 `RATE_LIMITED` with
 *   `Retry-After`. A paying request is not limited (it costs the sender). Counters live in memory,
 *   or in Redis when `REDIS_URL` is set so that replicas share them; a Redis failure lets requests
 *   through rather than refusing everyone.
 * - Connection cap: `HTTP_MAX_CONNECTIONS` sockets per process.
 * - Shutdown: requests arriving while the app closes get 503 `SHUTTING_DOWN` in our envelope.
 * - A refusal sent before the body was read closes the connection (no reading a body to discard it).
 */
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { Errors } from '../errors.js';

export interface EdgeOptions {
  config: Pick<Config, 'RATE_LIMIT_MAX' | 'RATE_LIMIT_WINDOW_SEC' | 'REDIS_URL' | 'HTTP_MAX_CONNECTIONS' | 'PAYMENTS_ENABLED'>;
}

/**
 * Content-Security-Policy: everything from this origin, no inline script, never framed. Inline
 * styles are allowed (the HTML pages carry their base stylesheet inline; a style cannot run code).
 */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // Served over plain HTTP on localhost too: do not rewrite subresources to https.
  upgradeInsecureRequests: null,
};

/**
 * Not counted: load-balancer and monitor checks. Several replicas share the counters (Redis), so a
 * balancer checking each of them twice a second would exceed any per-client limit; /health answers
 * from a one-second cache of the node's state.
 */
const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/health']);

/** A paid route asked with a payment: not rate-limited. */
function paying(request: FastifyRequest): boolean {
  const payment = (request.routeOptions.config as { payment?: { priceUsd: number | 'per_call' } } | undefined)?.payment;
  return payment !== undefined && payment.priceUsd !== 0 && request.headers['payment-signature'] !== undefined;
}

async function edgePlugin(app: FastifyInstance, { config }: EdgeOptions): Promise<void> {
  app.server.maxConnections = config.HTTP_MAX_CONNECTIONS;

  // While closing, a request arriving on a kept-alive connection is refused at once (in-flight ones finish).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Refused before its body was read (429, 413, …): close the connection rather than let Node read
  // and discard the rest of a body of any size to keep the connection alive.
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode >= 400 && !request.raw.complete) void reply.header('connection', 'close');
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    void reply.header('connection', 'close').header('retry-after', '1');
    throw new Errors.SHUTTING_DOWN();
  });

  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false,
  });

  if (config.RATE_LIMIT_MAX > 0) {
    const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, enableOfflineQueue: false }) : undefined;
    // Errors surface as skipped limits (skipOnError); the client reconnects on its own.
    redis?.on('error', () => undefined);
    if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
    await app.register(rateLimit, {
      global: true,
      max: config.RATE_LIMIT_MAX,
      timeWindow: config.RATE_LIMIT_WINDOW_SEC * 1000,
      ...(redis ? { redis, nameSpace: 'btc-intel:rate:' } : {}),
      skipOnError: true,
      allowList: (request) => UNLIMITED_PATHS.has(request.routeOptions.url ?? '') || (config.PAYMENTS_ENABLED && paying(request)),
      errorResponseBuilder: (_request, context) => new Errors.RATE_LIMITED(context.after),
    });
  }
}

export default fp(edgePlugin, { name: 'edge', fastify: '5.x' });
