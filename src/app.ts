/**
 * `buildApp(deps)`: the fastify instance with every plugin and route registered, in a readable order.
 * No I/O happens at import; plugins open what they need on `ready()` and free it in `onClose`.
 * Tests call `buildApp` with the embedded simulated node and `app.inject`; `src/main.ts` listens.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { errorHandler, notFoundHandler } from './errorHandler.js';
import type { BitcoinNode } from './node/bitcoinNode.js';
import type { AddressSource } from './node/addressSource.js';
import { healthRoutes } from './routes/health.js';

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

  await app.register(healthRoutes, { deps });

  return app;
}
