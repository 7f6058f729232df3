/**
 * The service's edge: what every request meets before its route. Registered before the routes
 * (rate-limit reads each route in `onRoute`).
 *
 * - Security headers (`helmet`, built once): defaults that fit a JSON API and the same-origin
 *   dashboard (scripts, styles, images and fetches from 'self'; no inline script); the
 *   resource policy allows cross-origin reads, which CORS governs.
 * - Rate limits (limits/rateLimits.ts): an unpaid budget per client address, a challenge allowance
 *   past it (a payer can always get its 402), a paid budget per verified payer; 429 `RATE_LIMITED`
 *   with `Retry-After`. Counters live in memory, or in Redis when `REDIS_URL` is set so that
 *   replicas share them; a Redis failure lets requests through rather than refusing everyone.
 *   Decorates `app.rateLimits` (null when off), which the payment gate reports its verdicts to.
 * - Connection cap: `HTTP_MAX_CONNECTIONS` sockets per process.
 * - Shutdown: requests arriving while the app closes get 503 `SHUTTING_DOWN` in our envelope.
 * - A refusal sent before the body was read closes the connection (no reading a body to discard it).
 */
import helmet from 'helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { Errors } from '../errors.js';
import { RateLimits, type RateLimitConfig } from './limits/rateLimits.js';

export interface EdgeOptions {
  config: RateLimitConfig & Pick<Config, 'REDIS_URL' | 'HTTP_MAX_CONNECTIONS'>;
  /** The replica's connection to REDIS_URL, shared with the payments (closed by its owner); without it, the limits open their own. */
  redis?: Redis | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limits (null when RATE_LIMIT_MAX is 0); the payment gate reports its verdicts to them. */
    rateLimits: RateLimits | null;
  }
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

async function edgePlugin(app: FastifyInstance, { config, redis: shared }: EdgeOptions): Promise<void> {
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

  // Built once: @fastify/helmet builds the middleware (and parses the CSP) again on every request,
  // a cost every request of a flood pays on the event loop (issue 22 item 6).
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (err) => done(err instanceof Error ? err : undefined)));

  if (config.RATE_LIMIT_MAX > 0) {
    const own =
      config.REDIS_URL && !shared
        ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, enableOfflineQueue: false, enableAutoPipelining: true })
        : undefined;
    // Errors surface as requests let through (logged by the budget); the client reconnects on its own.
    own?.on('error', () => undefined);
    if (own) app.addHook('onClose', async () => void (await own.quit().catch(() => own.disconnect())));
    const redis = shared ?? own;
    const limits = new RateLimits(config, redis, app.log);
    app.addHook('onRequest', limits.onRequest);
    app.addHook('preHandler', limits.preHandler);
    app.addHook('onResponse', limits.onResponse);
    app.decorate('rateLimits', limits);
  } else app.decorate('rateLimits', null);
}

export default fp(edgePlugin, { name: 'edge', fastify: '5.x' });
