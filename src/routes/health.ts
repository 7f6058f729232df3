import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../app.js';

/** Placeholder; replaced by the full health route (issue 2). */
export const healthRoutes: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get('/health', async () => ({ success: true, nodeKind: deps.nodeKind }));
};
