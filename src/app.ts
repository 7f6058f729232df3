/**
 * `buildApp(deps)`: the fastify instance with every plugin and route registered, in a readable order.
 * No I/O happens at import; plugins open what they need on `ready()` and free it in `onClose`.
 * Tests call `buildApp` with the embedded simulated node and `app.inject`; `src/main.ts` listens.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { errorHandler, frameworkErrorHandler, notFoundHandler } from './errorHandler.js';
import { btcPerKvbToSatVb } from './fees/feeEstimate.js';
import { projectedFeeRate } from './fees/projectedFeeRate.js';
import { SmartFeeCache } from './fees/smartFeeCache.js';
import mempoolPlugin from './mempool/plugin.js';
import type { AddressSource } from './node/addressSource.js';
import type { BitcoinNode } from './node/bitcoinNode.js';
import { ChainState } from './node/chainState.js';
import optimizerPlugin from './optimizer/plugin.js';
import { paymentsPlugin } from './payments/plugin.js';
import { bitcoinRoutes } from './routes/bitcoin.js';
import type { RouteContext } from './routes/context.js';
import { healthRoutes } from './routes/health.js';
import { mempoolRoutes } from './routes/mempool.js';
import { rpcRegistry } from './routes/rpc/registry.js';
import { rpcRoutes } from './routes/rpc/rpcRoute.js';
import { templateRpcMethods } from './routes/rpc/svcTemplate.js';
import { templateRoutes } from './routes/template.js';
import { SERVICE_VERSION } from './version.js';

export interface AppDeps {
  config: Config;
  /** Typed access to the Bitcoin node (real Core or the embedded simulated node). */
  node: BitcoinNode;
  /** Where address balances and UTXOs come from (Esplora or `scantxoutset`). */
  addressSource: AddressSource;
  /** `simulated` when the embedded node serves the data. */
  nodeKind: 'simulated' | 'real';
  /** fastify logger option; tests pass `false`. */
  logger?: FastifyServerOptions['logger'];
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Start background work (mempool polling, optimizer cycles) when ready. Default true; tests may drive it. */
  autoStart?: boolean;
}

export type App = FastifyInstance;

export async function buildApp(deps: AppDeps): Promise<App> {
  const now = deps.now ?? Date.now;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    // Behind a load balancer the client address comes from X-Forwarded-For.
    trustProxy: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Router-level refusals (bad URL encoding, over-long path parameters) in our error envelope.
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // An empty JSON body counts as no body, so optional bodies (fee ladder) may be omitted by clients
  // that always send `Content-Type: application/json`.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  // JSON only: a text/plain body is refused with 415 rather than parsed as a string.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) done(null, undefined);
    else jsonParser(request, body as string, done);
  });

  const autoStart = deps.autoStart ?? true;
  await app.register(mempoolPlugin, { deps, autoPoll: autoStart });
  await app.register(optimizerPlugin, { deps, autoStart });

  const chain = new ChainState(deps.node, now);
  const floorFeeRateSatVb = (): number => {
    const info = app.mempool.mirror.info;
    return info ? btcPerKvbToSatVb(Math.max(info.mempoolminfee, info.minrelaytxfee)) : 1;
  };
  const cachedTx = (txid: string) => {
    const cache = app.optimizer.service.cache;
    const i = cache?.txIndex.get(txid);
    return cache && i !== undefined ? { cache, i } : undefined;
  };
  const ctx: RouteContext = {
    deps,
    chain,
    floorFeeRateSatVb,
    projection: (blocks) => (app.mempool.mirror.ready ? projectedFeeRate(app.mempool.sample(), blocks, floorFeeRateSatVb()) : null),
    optimizerChunkRate: (txid) => {
      const hit = cachedTx(txid);
      return hit ? hit.cache.txChunkFeeRateSatVb[hit.i] : undefined;
    },
    optimizerProjectedBlock: (txid) => {
      const hit = cachedTx(txid);
      if (!hit) return undefined;
      const block = hit.cache.txProjectedBlock[hit.i]!;
      return block < 0 ? { block: hit.cache.projectedBlocks.length + 1, beyond: true } : { block: block + 1, beyond: false };
    },
    healthExtras: () => ({
      optimizer: {
        enabled: app.optimizer.enabled,
        ready: app.optimizer.service.cache !== undefined,
        cycleCount: app.optimizer.service.cycleCount,
        phase: app.optimizer.service.phase,
        lastStatus: app.optimizer.service.lastStatus,
        lastError: app.optimizer.service.lastError,
        cacheAgeMs: app.optimizer.service.cache ? now() - app.optimizer.service.cache.cachedAt : null,
      },
      payments: app.payments.health(),
    }),
    restRoutes: [],
    rpcMethods: [...rpcRegistry(templateRpcMethods).keys()],
    smartFees: new SmartFeeCache(deps.node, 30_000, now),
  };
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') ctx.restRoutes.push(`${method} ${route.url}`);
  });

  await app.register(paymentsPlugin, { config: deps.config, ...(deps.now ? { now: deps.now } : {}) });
  await app.register(healthRoutes, { ctx, version: SERVICE_VERSION, startedAt: now() });
  await app.register(bitcoinRoutes, { ctx });
  await app.register(mempoolRoutes, { ctx });
  await app.register(templateRoutes, { ctx });
  await app.register(rpcRoutes, { ctx, methods: templateRpcMethods });

  return app;
}
