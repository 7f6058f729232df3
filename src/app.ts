/**
 * `buildApp(deps)`: the fastify instance with every plugin and route registered, in a readable order.
 * No I/O happens at import; plugins open what they need on `ready()` and free it in `onClose`.
 * Tests call `buildApp` with the embedded simulated node and `app.inject`; `src/main.ts` listens.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { errorHandler, notFoundHandler } from './errorHandler.js';
import { projectedFeeRate } from './fees/projectedFeeRate.js';
import { btcPerKvbToSatVb } from './fees/feeEstimate.js';
import mempoolPlugin from './mempool/plugin.js';
import type { AddressSource } from './node/addressSource.js';
import type { BitcoinNode } from './node/bitcoinNode.js';
import { ChainState } from './node/chainState.js';
import { bitcoinRoutes } from './routes/bitcoin.js';
import type { RouteContext } from './routes/context.js';
import { healthRoutes } from './routes/health.js';
import { mempoolRoutes } from './routes/mempool.js';
import { paymentsPlugin } from './payments/plugin.js';
import { rpcRoutes } from './routes/rpc/rpcRoute.js';
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
  /** Start background polling (mempool mirror) when ready. Default true; tests may drive it. */
  autoStart?: boolean;
}

export type App = FastifyInstance;

export async function buildApp(deps: AppDeps): Promise<App> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    // Behind a load balancer the client address comes from X-Forwarded-For.
    trustProxy: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  await app.register(mempoolPlugin, { deps, autoPoll: deps.autoStart ?? true });

  const chain = new ChainState(deps.node, deps.now);
  const floorFeeRateSatVb = (): number => {
    const info = app.mempool.mirror.info;
    return info ? btcPerKvbToSatVb(Math.max(info.mempoolminfee, info.minrelaytxfee)) : 1;
  };
  const ctx: RouteContext = {
    deps,
    chain,
    floorFeeRateSatVb,
    projection: (blocks) => (app.mempool.mirror.ready ? projectedFeeRate(app.mempool.sample(), blocks, floorFeeRateSatVb()) : null),
    optimizerChunkRate: () => undefined,
    optimizerProjectedBlock: () => undefined,
    healthExtras: () => ({}),
  };

  // x402 gate: before the routes, so their prices are read in onRoute.
  await app.register(paymentsPlugin, { config: deps.config, ...(deps.now ? { now: deps.now } : {}) });
  await app.register(healthRoutes, { ctx, version: SERVICE_VERSION, startedAt: (deps.now ?? Date.now)() });
  await app.register(bitcoinRoutes, { ctx });
  await app.register(mempoolRoutes, { ctx });
  await app.register(rpcRoutes, { ctx });

  return app;
}
