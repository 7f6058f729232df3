/**
 * JSON-RPC 2.0 over one HTTP POST, in two steps:
 * 1. `planRpc` parses the body (single call or batch), validates every call's envelope and params,
 *    and prices the valid ones (a batch costs the sum). Invalid calls are answered for free.
 * 2. `executeRpc` runs the planned calls (concurrently; a batch is bounded) and builds the answer.
 * The payment gate sits between the two, using the plan's price.
 */
import { sumUsd } from '../../payments/prices.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../bodyLimits.js';
import { priceUsd, type ApiContext, type CallInfo, type RpcMethod } from '../define.js';
import { assertNodeUp } from '../freshness.js';
import { JsonRpcCall } from './endpoints.js';
import {
  InternalRpcError,
  InvalidParamsRpcError,
  InvalidRequestRpcError,
  JsonRpcError,
  MethodNotFoundRpcError,
  ParseRpcError,
  errorResponse,
  toJsonRpcError,
  type JsonRpcId,
} from '../shared/rpcErrors.js';

type PlannedCall =
  | { id: JsonRpcId; method: RpcMethod; params: unknown; priceUsd: number }
  | { id: JsonRpcId; error: JsonRpcError }
  /** Answered null (EVM's "not found") before payment, free (`RpcMethod.isAbsent`). */
  | { id: JsonRpcId; absent: true }
  /** A valid notification (no `id` member): JSON-RPC 2.0 forbids answering it (Core answers 204). */
  | { notification: true };

export interface RpcPlan {
  batch: boolean;
  calls: PlannedCall[];
  /** Sum of the prices of the calls that will run, USD. */
  priceUsd: number;
  /** Method names, for the payment description and logs. */
  methods: string[];
}

export interface RpcAnswer {
  /** The response object or array; undefined when every call was a notification (answer 204, no body). */
  body: unknown;
  /**
   * True when every priced call answered with a result other than null. One failed priced call
   * (node down, timeout, any error) or null ("not found", found by the run: the transaction left
   * after the call was planned) makes the whole request free: it is answered as it is and not
   * charged, and the payer may retry with the same payment (docs/payments.md).
   */
  chargeable: boolean;
}

function idOf(element: unknown): JsonRpcId {
  const id = (element as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

async function planOne(element: unknown, methods: ReadonlyMap<string, RpcMethod>, ctx: ApiContext): Promise<PlannedCall> {
  const envelope = JsonRpcCall.safeParse(element);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    return { id: idOf(element), error: new InvalidRequestRpcError(`${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid'}`) };
  }
  // Every method only reads, so a notification, which gets no answer, is neither run nor charged.
  if (!('id' in (element as object))) return { notification: true };
  const { method: name, params: rawParams = [] } = envelope.data;
  const id = envelope.data.id ?? null;
  const method = methods.get(name);
  if (!method) return { id, error: new MethodNotFoundRpcError(name) };
  if (!Array.isArray(rawParams)) return { id, error: new InvalidParamsRpcError('params must be an array') };
  const params = method.params.safeParse(rawParams);
  if (!params.success) {
    const issue = params.error.issues[0];
    const where = `params${(issue?.path ?? []).map((p) => `[${String(p)}]`).join('')}`;
    return { id, error: new InvalidParamsRpcError(`${where}: ${issue?.message ?? 'invalid'}`) };
  }
  try {
    if (method.snapshot || method.price !== 'free') assertNodeUp(ctx);
    await method.precheck?.(ctx, params.data);
    if (await method.isAbsent?.(ctx, params.data)) return { id, absent: true };
  } catch (error) {
    return { id, error: toJsonRpcError(error) };
  }
  return { id, method, params: params.data, priceUsd: priceUsd(method.price) };
}

/** The answer to a body nesting deeper than `MAX_JSON_DEPTH` (-32600; refused unread by the route's body reader). */
export function tooDeepPlan(): RpcPlan {
  return {
    batch: false,
    calls: [{ id: null, error: new InvalidRequestRpcError(`the body nests deeper than ${MAX_JSON_DEPTH} levels`) }],
    priceUsd: 0,
    methods: [],
  };
}

/** Parses and prices a request body (the raw text). Never throws: every failure is a planned error. */
export async function planRpc(text: string, methods: ReadonlyMap<string, RpcMethod>, ctx: ApiContext, batchMax: number): Promise<RpcPlan> {
  let body: unknown;
  // Refused before JSON.parse: a deeply nested body is costly to parse and no call needs it.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return tooDeepPlan();
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { batch: false, calls: [{ id: null, error: new ParseRpcError((error as Error).message.slice(0, 120)) }], priceUsd: 0, methods: [] };
  }
  const batch = Array.isArray(body);
  const elements: unknown[] = Array.isArray(body) ? body : [body];
  if (batch && elements.length === 0)
    return { batch: false, calls: [{ id: null, error: new InvalidRequestRpcError('empty batch') }], priceUsd: 0, methods: [] };
  if (elements.length > batchMax) {
    return {
      batch: false,
      calls: [{ id: null, error: new InvalidRequestRpcError(`batch of ${elements.length} calls exceeds the limit of ${batchMax}`) }],
      priceUsd: 0,
      methods: [],
    };
  }
  const calls = await Promise.all(elements.map((e) => planOne(e, methods, ctx)));
  const prices: number[] = [];
  const names: string[] = [];
  for (const call of calls) {
    if ('method' in call) {
      prices.push(call.priceUsd);
      names.push(call.method.name);
    }
  }
  return { batch, calls, priceUsd: sumUsd(prices), methods: names };
}

/** Runs a plan and builds the JSON-RPC answer (an object, or an array for a batch). */
export async function executeRpc(plan: RpcPlan, ctx: ApiContext, info: CallInfo): Promise<RpcAnswer> {
  let priced = 0;
  let pricedOk = 0;
  const answered = plan.calls.filter((call): call is Exclude<PlannedCall, { notification: true }> => !('notification' in call));
  if (answered.length === 0) return { body: undefined, chargeable: false };
  const responses = await Promise.all(
    answered.map(async (call) => {
      if ('error' in call) return errorResponse(call.id, call.error);
      if ('absent' in call) return { jsonrpc: '2.0', id: call.id, result: null };
      if (call.priceUsd > 0) priced++;
      try {
        const result = await call.method.run(ctx, call.params, info);
        if (ctx.checkResponses) {
          const checked = call.method.result.safeParse(result);
          if (!checked.success)
            return errorResponse(
              call.id,
              new JsonRpcError(InternalRpcError.code, `${call.method.name} answered outside its result schema: ${checked.error.message}`),
            );
        }
        if (call.priceUsd > 0 && result !== null && result !== undefined) pricedOk++;
        return { jsonrpc: '2.0', id: call.id, result: result ?? null };
      } catch (error) {
        const rpcError = toJsonRpcError(error);
        if (rpcError.code === -32603) ctx.log.error({ err: error, method: call.method.name }, 'rpc method failed');
        return errorResponse(call.id, rpcError);
      }
    }),
  );
  return { body: plan.batch ? responses : responses[0], chargeable: priced > 0 && pricedOk === priced };
}

/**
 * One refusal of the whole request (a rate limit) in the JSON-RPC envelope: every call that expects
 * an answer gets `error` with its own id; before the body was read (no plan), one answer with id null.
 */
export function refuseRpc(plan: RpcPlan | undefined, error: JsonRpcError): unknown {
  if (!plan) return errorResponse(null, error);
  const responses = plan.calls.flatMap((call) => ('notification' in call ? [] : [errorResponse(call.id, error)]));
  return plan.batch ? responses : (responses[0] ?? errorResponse(null, error));
}
