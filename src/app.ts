/**
 * `buildApp(deps)`: the fastify instance with every plugin and route registered, in a readable
 * order. Wiring only: no logic, no I/O at import; plugins open what they need on `ready()` and
 * free it in `onClose`. Tests call `buildApp` with the embedded simulated node and `app.inject`;
 * `src/main.ts` listens.
 */
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { MAX_JSON_DEPTH } from './api/bodyLimits.js';
import { readBody } from './api/bodyReader.js';
import { clientErrorHandler } from './api/clientErrors.js';
import { limitConnectionsPerAddress } from './api/connectionLimits.js';
import type { ApiContext } from './api/define.js';
import { CORS_OPTIONS } from './api/cors.js';
import { DashboardFeed } from './api/dashboard/feed.js';
import edgePlugin from './api/edge.js';
import { nodeStatus } from './api/freshness.js';
import { RequestLog } from './api/requestLog.js';
import { createErrorHandler, frameworkErrorHandler } from './api/errorHandler.js';
import { ServiceMetrics } from './api/system/metrics.js';
import { serviceRegistry } from './api/registry.js';
import { apiRoutes, notFoundHandler } from './api/routes.js';
import type { AppDeps } from './deps.js';
import { Errors } from './errors.js';
import feesPlugin from './fees/plugin.js';
import mempoolPlugin from './mempool/plugin.js';
import { ChainState } from './node/chainState.js';
import { NodeWatch } from './node/nodeWatch.js';
import optimizerPlugin from './optimizer/plugin.js';
import { paymentsPlugin } from './payments/plugin.js';
import { RedisReplayStore } from './payments/store/redisReplayStore.js';
import poolRpcPlugin from './pool/plugin.js';
import { StreamHub } from './stream/hub.js';

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** The paid mempool WebSocket streams (`src/stream/hub.ts`). */
    stream: StreamHub;
  }
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const now = deps.now ?? Date.now;
  const registry = serviceRegistry();
  const app = Fastify({
    logger: deps.logger ?? false,
    // One debug line per request, not two info lines: a flood must not fill the disk.
    logController: new RequestLog(),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    // Slow clients are cut off: the whole request within requestTimeout, idle sockets closed.
    requestTimeout: deps.config.HTTP_REQUEST_TIMEOUT_MS,
    connectionTimeout: deps.config.HTTP_CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: deps.config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: clientErrorHandler(deps.config.HTTP_REQUEST_TIMEOUT_MS),
    // Node reads requestTimeout when the server is made (fastify sets it later: too late on Node 20),
    // and looks for expired requests every 30 s by default: a 10 s limit would hold up to 40 s.
    http: { requestTimeout: deps.config.HTTP_REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    // Behind a proxy (TRUST_PROXY) the client address, protocol and host come from X-Forwarded-*.
    trustProxy: deps.config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    // Requests arriving while closing are refused in our envelope (src/api/edge.ts), not fastify's.
    return503OnClosing: false,
    // Router-level refusals (bad URL encoding, over-long path parameters) in our error envelope.
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  limitConnectionsPerAddress(app.server, deps.config.HTTP_MAX_CONNECTIONS_PER_ADDRESS, app.log);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(createErrorHandler());
  // An empty JSON body counts as no body, so optional bodies (fee ladder) may be omitted by clients
  // that always send `Content-Type: application/json`.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  // JSON only: a text/plain body is refused with 415 rather than parsed as a string.
  app.removeContentTypeParser('text/plain');
  // Read as it arrives (src/api/bodyReader.ts): a body nesting deeper than any request needs is
  // refused at the first byte too deep, unread beyond it and never parsed.
  app.addContentTypeParser('application/json', (request, payload, done) =>
    readBody(request, payload, MAX_JSON_DEPTH, (error, read) => {
      if (error || read === undefined) done(error, undefined);
      else if ('tooDeep' in read) done(new Errors.INVALID_REQUEST(`the body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      else if (read.text.trim() === '') done(null, undefined);
      else void jsonParser(request, read.text, done);
    }),
  );

  await app.register(cors, CORS_OPTIONS);

  const { config, node } = deps;
  const autoStart = deps.autoStart ?? true;
  // One connection to REDIS_URL for the rate limits and the payments (connected by the payments
  // plugin, closed last): a paid request's budget and claim leave in one write, read in one reply.
  const redis = config.REDIS_URL ? RedisReplayStore.client(config.REDIS_URL) : undefined;
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  await app.register(edgePlugin, { config, redis });
  await app.register(mempoolPlugin, { config, node, now, autoPoll: autoStart });
  await app.register(optimizerPlugin, { config, node, now, autoStart });
  // The operator's getblocktemplate drop-in: its own server, never part of the paid API.
  await app.register(poolRpcPlugin, { config, node });
  await app.register(feesPlugin, { node, now });
  await app.register(paymentsPlugin, { config, now, limits: app.rateLimits, ...(redis ? { redis } : {}) });

  const nodeWatch = new NodeWatch(node, { intervalMs: config.NODE_CHECK_INTERVAL_MS, timeoutMs: config.NODE_CHECK_TIMEOUT_MS, now });
  const startedAt = now();
  const dashboard = new DashboardFeed({
    nodeKind: deps.nodeKind,
    mempool: app.mempool,
    fees: app.fees,
    optimizer: app.optimizer,
    nodeStatus: () => nodeStatus({ mempool: app.mempool, nodeWatch, now, startedAt }),
    now,
    minIntervalMs: 1000,
  });
  const stream = new StreamHub(app.mempool.mirror, app.optimizer.service, {
    maxBufferBytes: config.STREAM_MAX_BUFFER_BYTES,
    now,
    logger: app.log,
    audits: app.optimizer.audits,
  });
  app.decorate('stream', stream);
  const metrics = new ServiceMetrics({
    mempool: app.mempool,
    optimizer: app.optimizer,
    streamClients: () => ({ dashboard: dashboard.clientCount, mempool: stream.clientCount }),
    ledgerCommits: () => app.payments.ledgerCommits(),
  });
  // The first check is awaited (bounded by its timeout), so a live node is known reached once the app is ready.
  app.addHook('onReady', async () => {
    await nodeWatch.check();
    nodeWatch.start();
  });
  app.addHook('onClose', async () => nodeWatch.stop());
  const ctx: ApiContext = {
    config,
    node,
    nodeWatch,
    addressSource: deps.addressSource,
    nodeKind: deps.nodeKind,
    now,
    startedAt,
    chain: new ChainState(node, now),
    mempool: app.mempool,
    fees: app.fees,
    optimizer: app.optimizer,
    payments: app.payments,
    registry,
    dashboard,
    stream,
    metrics,
    log: app.log,
    checkResponses: deps.checkResponses ?? false,
  };
  app.addHook('onResponse', metrics.onResponse);
  // Before the server closes: an open feed would otherwise hold the close until its client leaves.
  app.addHook('preClose', async () => {
    stream.close();
    dashboard.close();
    metrics.close();
  });
  app.setNotFoundHandler(notFoundHandler(ctx));
  // Streams get 1 MiB frames at most from clients (they send none but an optional filter).
  await app.register(websocket, { options: { maxPayload: 1 << 20 } });
  await app.register(apiRoutes, { ctx });
  return app;
}
