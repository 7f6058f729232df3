/**
 * The getblocktemplate drop-in's lifecycle: off unless `POOL_RPC_PORT` is set; then its own server
 * (not the paid app's) listens when the app is ready, on `POOL_RPC_HOST` (loopback by default),
 * and closes with the app. The cookie file's path is logged, never a secret.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import { poolCredentials } from './credentials.js';
import { PoolRpcServer } from './poolRpcServer.js';

export interface PoolRpcHandle {
  /** Null when the drop-in is off (no POOL_RPC_PORT). */
  server: PoolRpcServer | null;
  /** The cookie file clients read, when no user and password are configured. */
  cookiePath: string | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    poolRpc: PoolRpcHandle;
  }
}

export interface PoolRpcPluginOptions {
  config: Config;
  node: BitcoinNode;
}

async function poolRpcPlugin(app: FastifyInstance, { config, node }: PoolRpcPluginOptions): Promise<void> {
  if (config.POOL_RPC_PORT === undefined) {
    app.decorate('poolRpc', { server: null, cookiePath: null } satisfies PoolRpcHandle);
    return;
  }
  const credentials = poolCredentials(config);
  const server = new PoolRpcServer({
    host: config.POOL_RPC_HOST,
    port: config.POOL_RPC_PORT,
    credentials,
    node,
    mirror: app.mempool.mirror,
    optimizer: app.optimizer.service,
    longPollMs: config.POOL_RPC_LONGPOLL_SEC * 1000,
    logger: app.log,
  });
  app.decorate('poolRpc', { server, cookiePath: credentials.cookiePath } satisfies PoolRpcHandle);
  app.addHook('onReady', async () => {
    const { address, port } = await server.listen();
    app.log.info(
      { host: address, port, auth: credentials.cookiePath ? `cookie file ${credentials.cookiePath}` : `user ${credentials.user}` },
      'getblocktemplate drop-in for the pool listening',
    );
  });
  app.addHook('preClose', async () => {
    await server.close();
    credentials.remove();
  });
}

export default fp(poolRpcPlugin, { name: 'poolRpc', fastify: '5.x', dependencies: ['mempool', 'optimizer'] });
