/**
 * `POST /v1/rpc`: the EVM-style JSON-RPC endpoint. The body is read as text (whatever the content
 * type) so that malformed JSON becomes a JSON-RPC parse error (-32700) rather than an HTTP 400.
 * The call is planned and priced in `preValidation`, which sets `request.paymentQuote` for the
 * payment gate (DESIGN §5: payment before dispatch, nothing charged for calls that cannot succeed).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type {} from '../../payments/plugin.js';
import type { NetworkName } from '../../node/bitcoinNode.js';
import type { RouteContext } from '../context.js';
import { executeRpc, planRpc, type RpcPlan } from './dispatch.js';
import type { RpcContext, RpcMethod } from './rpcMethod.js';
import { rpcRegistry } from './registry.js';

/** Default `eth_chainId` per Bitcoin network: the network's P2P port, a number Bitcoin people recognise. */
const CHAIN_IDS: Record<NetworkName, number> = { main: 8333, test: 18333, testnet4: 48333, signet: 38333, regtest: 18444 };

export const rpcRoutes: FastifyPluginAsync<{ ctx: RouteContext; methods?: readonly RpcMethod[] }> = async (app, { ctx, methods = [] }) => {
  const registry = rpcRegistry(methods);
  const rpcCtx: RpcContext = {
    ...ctx,
    app,
    chainId: async () => ctx.deps.config.RPC_CHAIN_ID ?? CHAIN_IDS[await ctx.chain.network()],
  };
  const plans = new WeakMap<FastifyRequest, RpcPlan>();

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/v1/rpc',
    {
      schema: { summary: 'EVM-style JSON-RPC 2.0 (eth_* and svc_* methods); batches priced as the sum of their calls' },
      preValidation: async (request) => {
        const text = typeof request.body === 'string' ? request.body : '';
        const plan = await planRpc(text, registry, rpcCtx, ctx.deps.config.RPC_BATCH_MAX);
        plans.set(request, plan);
        request.paymentQuote = {
          priceUsd: plan.priceUsd,
          description: plan.methods.length ? `JSON-RPC ${[...new Set(plan.methods)].join(', ')}` : 'JSON-RPC',
        };
      },
    },
    async (request, reply) => {
      const plan = plans.get(request)!;
      const answer = await executeRpc(plan, rpcCtx);
      if (!answer.chargeable) request.paymentChargeable = false;
      // Only notifications: JSON-RPC 2.0 returns nothing at all (as Bitcoin Core does, with 204).
      if (answer.body === undefined) return reply.code(204).send();
      return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(answer.body));
    },
  );
};
