/**
 * `POST /v1/rpc`: the EVM-style JSON-RPC endpoint. The body is read as text (whatever the content
 * type) so that malformed JSON becomes a JSON-RPC parse error (-32700) rather than an HTTP 400;
 * a body nesting deeper than `MAX_JSON_DEPTH` is refused (-32600) as it arrives, the rest unread
 * and the connection closed (`readBody`).
 * The call is planned and priced in `preValidation`, which sets `request.paymentQuote` for the
 * payment gate (DESIGN §5: payment before dispatch, nothing charged for calls that cannot succeed).
 */
import type { FastifyError, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type {} from '../../payments/plugin.js';
import { baseUrl } from '../baseUrl.js';
import { MAX_JSON_DEPTH, routeBodyLimit } from '../bodyLimits.js';
import { readBody } from '../bodyReader.js';
import { routeKey, type ApiContext, type JsonRpcRoute } from '../define.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../errors.js';
import { errorHandler } from '../errorHandler.js';
import { executeRpc, planRpc, refuseRpc, tooDeepPlan, type RpcPlan } from './dispatch.js';
import { LimitExceededRpcError } from '../shared/rpcErrors.js';

/** The body of a request refused unread for its nesting. */
const TOO_DEEP: unique symbol = Symbol('too deep');

export interface RpcRouteOptions {
  ctx: ApiContext;
  route: JsonRpcRoute;
}

export const rpcRoute: FastifyPluginAsync<RpcRouteOptions> = async (app, { ctx, route }) => {
  const { methods } = ctx.registry;
  const plans = new WeakMap<FastifyRequest, RpcPlan>();

  // A rate-limit refusal speaks JSON-RPC: HTTP 429 with Retry-After (viem and ethers retry on it) and
  // error -32005 with the retry hint, under the request's id once its body was read.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.statusCode !== 429) return errorHandler(error, request, reply);
    const retryAfterSeconds = Number(reply.getHeader('retry-after')) || DEFAULT_RETRY_AFTER_SECONDS;
    const refusal = new LimitExceededRpcError(error.message, { code: error.code, retryAfterSeconds });
    void reply
      .code(429)
      .header('retry-after', String(retryAfterSeconds))
      .type('application/json; charset=utf-8')
      .send(refuseRpc(plans.get(request), refusal));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) =>
    readBody(request, payload, MAX_JSON_DEPTH, (error, read) => done(error, read === undefined ? undefined : 'text' in read ? read.text : TOO_DEEP)),
  );

  app.route({
    method: route.method,
    url: route.path,
    exposeHeadRoute: false,
    bodyLimit: routeBodyLimit(route, methods.values(), ctx.config.RPC_BATCH_MAX, ctx.config.BODY_LIMIT_BYTES),
    config: { payment: { key: routeKey(route), priceUsd: 'per_call' } },
    schema: { summary: route.summary },
    preValidation: async (request, reply) => {
      let plan: RpcPlan;
      if (request.body === TOO_DEEP) {
        plan = tooDeepPlan();
        // The rest of the body is not read: the connection cannot carry another request.
        void reply.header('connection', 'close');
      } else plan = await planRpc(typeof request.body === 'string' ? request.body : '', methods, ctx, ctx.config.RPC_BATCH_MAX);
      plans.set(request, plan);
      request.paymentQuote = {
        priceUsd: plan.priceUsd,
        description: plan.methods.length ? `JSON-RPC ${[...new Set(plan.methods)].join(', ')}` : 'JSON-RPC',
        // The payment is bound to the quoted body's methods (the challenge's `extra.methods`).
        methods: plan.methods,
      };
    },
    handler: async (request, reply) => {
      const plan = plans.get(request);
      if (!plan) throw new Error('JSON-RPC request reached its handler without a plan');
      const answer = await executeRpc(plan, ctx, { log: request.log, baseUrl: baseUrl(ctx, request) });
      if (!answer.chargeable) request.paymentChargeable = false;
      // Only notifications: JSON-RPC 2.0 returns nothing at all (as Bitcoin Core does, with 204).
      if (answer.body === undefined) return reply.code(204).send();
      return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(answer.body));
    },
  });
};
