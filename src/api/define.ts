/**
 * The shape of everything the service serves. A REST route and a JSON-RPC method are each declared
 * once, with `defineRoute` / `defineRpcMethod`: family, price, zod request and response schemas, a
 * one-line summary, an example, the catalogue errors it may answer with, and the handler. The
 * registry (`registry.ts`) collects the declarations; fastify's routes, the payment gate's prices,
 * capabilities, the README's route table and the public documents are derived from it.
 *
 * The handler's return type is the response schema's input type, so a handler that answers a
 * field its schema does not declare (or misses one) does not compile.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { ErrorCode } from '../errors.js';
import type { FeesService } from '../fees/plugin.js';
import type { MempoolService } from '../mempool/plugin.js';
import type { AddressSource } from '../node/addressSource.js';
import type { BitcoinNode } from '../node/bitcoinNode.js';
import type { ChainState } from '../node/chainState.js';
import type { NodeWatch } from '../node/nodeWatch.js';
import type { OptimizerHandle } from '../optimizer/plugin.js';
import type { PaymentsInfo } from '../payments/plugin.js';
import type { WebSocket } from 'ws';
import type { StreamHub } from '../stream/hub.js';
import type { DashboardFeed } from './dashboard/feed.js';
import type { ServiceMetrics } from './system/metrics.js';

/**
 * What every handler receives: the service's dependencies and the services built from them. Built
 * once by `app.ts` after the service plugins are registered; handlers never see the fastify instance.
 */
export interface ApiContext {
  config: Config;
  node: BitcoinNode;
  addressSource: AddressSource;
  /** `simulated` when the embedded node serves the data. */
  nodeKind: 'simulated' | 'real';
  /** Milliseconds since the epoch. */
  now(): number;
  /** When the process started serving, ms since the epoch. */
  startedAt: number;
  /** The node's reachability, checked in the background (`/health` and paid routes read it, never wait). */
  nodeWatch: NodeWatch;
  chain: ChainState;
  mempool: MempoolService;
  fees: FeesService;
  optimizer: OptimizerHandle;
  payments: PaymentsInfo;
  /** What is served (capabilities and documents describe it). */
  registry: Registry;
  /** The dashboard's aggregate telemetry and its live feeds. */
  dashboard: DashboardFeed;
  /** The paid mempool WebSocket streams. */
  stream: StreamHub;
  /** Prometheus metrics of this app. */
  metrics: ServiceMetrics;
  log: FastifyBaseLogger;
  /** Check every answer against its declared schema before sending it (tests). */
  checkResponses: boolean;
}

/** Everything the service serves, checked once (see `registry.ts`). */
export interface Registry {
  /** Every REST route, `POST /v1/rpc` included, in declaration order. */
  routes: readonly Route[];
  /** Every JSON-RPC method by name. */
  methods: ReadonlyMap<string, RpcMethod>;
}

/** Families group routes and methods in documents and capabilities. */
export type Family = 'system' | 'docs' | 'bitcoin' | 'mempool' | 'template' | 'rpc';

export const FAMILY_TITLES: Readonly<Record<Family, string>> = {
  system: 'Health and discovery',
  docs: 'Public documents, dashboard and metrics',
  bitcoin: 'Bitcoin reads',
  mempool: 'Mempool intelligence',
  template: 'Template intelligence',
  rpc: 'JSON-RPC',
};

/**
 * What a route answers with. JSON unless declared: documents are text (their response schema is a
 * string), the dashboard's assets are scripts and styles, its feed an event stream.
 */
export const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  javascript: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  prometheus: 'text/plain; version=0.0.4; charset=utf-8',
  eventStream: 'text/event-stream; charset=utf-8',
  /** A WebSocket of JSON text frames (the route's `websocket` serves it; a plain GET answers 426). */
  websocket: 'application/json; charset=utf-8',
} as const;
export type ContentKind = keyof typeof CONTENT_TYPES;
/** What a derived answer is computed from: the mempool view (mirror) or the optimizer cache. */
export type Snapshot = 'mempool' | 'optimizer';

/** USD per request, or `'free'` (no payment asked, payment headers ignored). */
export type Price = number | 'free';

/** What a handler may use of the HTTP call besides its validated input. */
export interface CallInfo {
  log: FastifyBaseLogger;
  /** Absolute base URL of this service for links: PUBLIC_BASE_URL, else this request's protocol and host. */
  baseUrl: string;
}

/** Validated request parts (each `undefined` when the route declares no schema for it). */
export interface RestInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

type Schema = z.ZodType;
type None = z.ZodUndefined;

interface RouteSpecBase<P extends Schema, Q extends Schema, B extends Schema, R extends Schema> {
  family: Family;
  method: 'GET' | 'POST';
  /** fastify route syntax, e.g. `/v1/tx/:txid`. */
  path: string;
  summary: string;
  /** Longer explanation for the documents (units, sources, caveats). */
  description?: string;
  /** It may relay a signed transaction to the Bitcoin network when asked (not read-only; MCP annotations). */
  mayBroadcast?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The answer is derived from a snapshot (the mempool view or the optimizer cache), not read live:
   * it carries `asOf`/`ageMs` where its shape allows, and is refused with 503 `NODE_UNAVAILABLE`
   * before payment while the node is known down (as every paid route is; see `freshness.ts`).
   */
  snapshot?: Snapshot;
  /** Largest body one call needs, when more than a few KB (a signed transaction in hex); see `bodyLimits.ts`. */
  maxBodyBytes?: number;
  /** The 200 answer. */
  response: R;
  /** What the answer is; `json` when absent. A non-JSON answer's response schema is a string (or a stream for `eventStream`). */
  content?: ContentKind;
  /** Seconds shared caches and browsers may keep the answer (`Cache-Control: public, max-age`); absent: not cached. */
  cacheSeconds?: number;
  /** Catalogue errors this route may answer with, besides `INVALID_REQUEST` for malformed input. */
  errors: readonly ErrorCode[];
  /**
   * An example request and its answer; `'live'` only for a free GET route without parameters
   * whose answer is too large to repeat (capabilities, cache statistics): calling it is the example.
   */
  example: { params?: z.input<P>; query?: z.input<Q>; body?: z.input<B>; response: z.input<R> } | 'live';
}

export interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema, R extends Schema> extends RouteSpecBase<P, Q, B, R> {
  price: Price;
  /**
   * Checks that need the node (e.g. an address's network), run before payment is asked: a request
   * that cannot succeed is refused with 400 for free.
   */
  precheck?(ctx: ApiContext, input: RestInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<void>;
  /**
   * For `content: 'websocket'`: takes over the upgraded socket (the request's schemas were checked
   * before the upgrade). The route's handler then answers a plain GET.
   */
  websocket?(ctx: ApiContext, socket: WebSocket, input: RestInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<void>;
}

export type RouteHandler<P extends Schema, Q extends Schema, B extends Schema, R extends Schema> = (
  ctx: ApiContext,
  input: RestInput<z.output<P>, z.output<Q>, z.output<B>>,
  call: CallInfo,
) => Promise<z.input<R>>;

/** A REST route, type-erased for the registry. */
export interface RestRoute {
  kind: 'rest';
  family: Family;
  method: 'GET' | 'POST';
  path: string;
  price: Price;
  summary: string;
  description?: string;
  mayBroadcast?: boolean;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  snapshot?: Snapshot;
  maxBodyBytes?: number;
  response: Schema;
  content?: ContentKind;
  cacheSeconds?: number;
  errors: readonly ErrorCode[];
  example: { params?: unknown; query?: unknown; body?: unknown; response: unknown } | 'live';
  precheck?(ctx: ApiContext, input: RestInput<unknown, unknown, unknown>): Promise<void>;
  websocket?(ctx: ApiContext, socket: WebSocket, input: RestInput<unknown, unknown, unknown>): Promise<void>;
  handler(ctx: ApiContext, input: RestInput<unknown, unknown, unknown>, call: CallInfo): Promise<unknown>;
}

/** `POST /v1/rpc`: the one route priced by its body (the sum of the methods it calls). */
export interface JsonRpcRoute extends Omit<RestRoute, 'kind' | 'price' | 'handler' | 'precheck' | 'websocket'> {
  kind: 'jsonrpc';
  price: 'per_call';
}

/**
 * `POST /mcp`: the Model Context Protocol endpoint (Streamable HTTP). Its tools are the registry's
 * routes and methods (`mcp/tools.ts`), each priced as declared: the endpoint is priced per call.
 */
export interface McpRoute extends Omit<RestRoute, 'kind' | 'price' | 'handler' | 'precheck' | 'websocket'> {
  kind: 'mcp';
  price: 'per_call';
}

export type Route = RestRoute | JsonRpcRoute | McpRoute;

export interface RpcMethodSpec<P extends Schema, R extends Schema> {
  family: Family;
  name: string;
  price: Price;
  summary: string;
  description?: string;
  /** As for a route: it may relay a signed transaction when asked. */
  mayBroadcast?: boolean;
  /** Schema of the `params` array (a missing `params` is `[]`). */
  params: P;
  /**
   * Names of the positional params, for OpenRPC and MCP (absent: `request` for a single object
   * param, else `param1`, `param2`, …).
   */
  paramNames?: readonly string[];
  result: R;
  /** As for a route: the result is derived from this snapshot (refused with 503 when stale). */
  snapshot?: Snapshot;
  /** As for a route: the largest body one call needs, when more than a few KB. */
  maxBodyBytes?: number;
  errors: readonly ErrorCode[];
  example: { params: z.input<P>; result: z.input<R> };
  /** Checks that need the node, run while the call is planned, before payment is asked. */
  precheck?(ctx: ApiContext, params: z.output<P>): Promise<void>;
  /**
   * For a result that may be null (EVM's "not found"): true when it is, decided while the call is
   * planned. The call is then answered null before payment, for free; a null that only the run
   * finds (the transaction left meanwhile) is not charged either (dispatch.ts).
   */
  isAbsent?(ctx: ApiContext, params: z.output<P>): Promise<boolean>;
}

export type RpcRunner<P extends Schema, R extends Schema> = (ctx: ApiContext, params: z.output<P>, call: CallInfo) => Promise<z.input<R>>;

/** A JSON-RPC method, type-erased for the registry. */
export interface RpcMethod {
  kind: 'rpc';
  family: Family;
  name: string;
  price: Price;
  summary: string;
  description?: string;
  mayBroadcast?: boolean;
  params: Schema;
  paramNames?: readonly string[];
  result: Schema;
  snapshot?: Snapshot;
  maxBodyBytes?: number;
  errors: readonly ErrorCode[];
  example: { params: unknown; result: unknown };
  precheck?(ctx: ApiContext, params: unknown): Promise<void>;
  isAbsent?(ctx: ApiContext, params: unknown): Promise<boolean>;
  run(ctx: ApiContext, params: unknown, call: CallInfo): Promise<unknown>;
}

/**
 * Declares a REST route: `defineRoute({ …declaration }).handle(namedHandler)`, the handler an `async function`
 * declared above it (stack traces and readers find it by name).
 * Two steps so the handler is typed by the schemas already inferred (its answer must match the
 * response schema exactly, literals included).
 */
export function defineRoute<P extends Schema = None, Q extends Schema = None, B extends Schema = None, R extends Schema = Schema>(
  spec: RouteSpec<P, Q, B, R>,
): { handle(handler: RouteHandler<P, Q, B, R>): RestRoute } {
  return { handle: (handler) => ({ kind: 'rest', ...spec, handler }) as unknown as RestRoute };
}

/** Declares `POST /v1/rpc` itself (its handler is the dispatcher over the registry's methods). */
export function defineJsonRpcRoute<B extends Schema, R extends Schema>(spec: RouteSpecBase<None, None, B, R>): JsonRpcRoute {
  return { kind: 'jsonrpc', price: 'per_call', ...spec } as unknown as JsonRpcRoute;
}

/** Declares `POST /mcp` itself (its handler is the MCP server over the registry's tools). */
export function defineMcpRoute<B extends Schema, R extends Schema>(spec: RouteSpecBase<None, None, B, R>): McpRoute {
  return { kind: 'mcp', price: 'per_call', ...spec } as unknown as McpRoute;
}

/** Declares a JSON-RPC method: `defineRpcMethod({ …declaration }).run(namedRunner)` (as for a route). */
export function defineRpcMethod<P extends Schema, R extends Schema>(spec: RpcMethodSpec<P, R>): { run(run: RpcRunner<P, R>): RpcMethod } {
  return { run: (run) => ({ kind: 'rpc', ...spec, run }) as unknown as RpcMethod };
}

/** The USD price of a declaration: 0 for free. */
export function priceUsd(price: Price): number {
  return price === 'free' ? 0 : price;
}

/** `"<METHOD> <path>"`, the key of a REST route everywhere (gate, ledger, capabilities). */
export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
