/**
 * The public documents (SPEC §4 rule 5, §9), free and generated from the registry on each request:
 * OpenAPI, llms.txt, llms-full.txt, AGENTS.md, the sitemaps, the glossary and the overview page,
 * and the Markdown documents of `docs/` they link to (`documents.ts`).
 * Absolute links use PUBLIC_BASE_URL, else the request's own host.
 */
import { z } from 'zod';
import { defineRoute, defineRpcMethod, type ApiContext, type CallInfo } from '../define.js';
import { documentRoute } from '../shared/documentRoute.js';
import { documentRoutes } from './documents.js';
import { agentsMd, llmsFullTxt, llmsTxt, type PaymentFacts } from './agentDocs.js';
import { OPENRPC_PATH } from '../shared/serviceFacts.js';
import { glossaryMd } from './glossary.js';
import { buildOpenApi, OPENAPI_VERSION } from './openapi.js';
import { buildOpenRpc, OPENRPC_VERSION } from './openrpc.js';
import { overviewHtml, type OverviewStatus } from './overview.js';
import { sitemapMd, sitemapXml } from './sitemap.js';

/** Documents change only with a deployment (and the overview with the live status): short shared caching. */
const DOC_CACHE_SECONDS = 300;

/** What the OpenAPI routes promise about their answer (the rest is OpenAPI's own schema). */
const OpenApiDocument = z.looseObject({
  openapi: z.literal(OPENAPI_VERSION),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

/** What the OpenRPC route and `rpc.discover` promise about their answer (the rest is OpenRPC's meta-schema). */
const OpenRpcDocument = z.looseObject({
  openrpc: z.literal(OPENRPC_VERSION),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  methods: z.array(z.looseObject({ name: z.string(), 'x-price-usd': z.number() })),
});

function paymentFacts(ctx: ApiContext): PaymentFacts {
  return { enabled: ctx.payments.enabled, settlement: ctx.payments.settlement, networks: ctx.payments.networks };
}

function overviewStatus(ctx: ApiContext): OverviewStatus {
  const { mirror } = ctx.mempool;
  const { service, enabled } = ctx.optimizer;
  const cache = service.cache;
  const bound = cache?.upperBound.feeSat;
  return {
    node: ctx.nodeKind,
    mempoolReady: mirror.ready,
    mempoolTxCount: mirror.txs.size,
    height: mirror.tipHeight ?? null,
    optimizer: {
      enabled,
      cycles: service.cycleCount,
      lastStatus: service.lastStatus,
      optimizedFeeSat: cache?.optimized.feeSat ?? null,
      baselineFeeSat: cache?.baseline.feeSat ?? null,
      gapToBoundPct: cache && bound ? Math.round(((bound - cache.optimized.feeSat) / bound) * 1e6) / 1e4 : null,
    },
    payments: { enabled: ctx.payments.enabled, settlement: ctx.payments.settlement },
  };
}

const text = (path: string, content: 'markdown' | 'text' | 'xml', summary: string, build: (ctx: ApiContext, baseUrl: string) => string) =>
  documentRoute({ path, content, summary, cacheSeconds: DOC_CACHE_SECONDS }, build);

/** `GET /openapi.json` (and its `.well-known` copy) */
async function openApi(ctx: ApiContext, _input: unknown, { baseUrl }: CallInfo): Promise<z.input<typeof OpenApiDocument>> {
  return buildOpenApi(ctx.registry, baseUrl);
}

/** `GET /openrpc.json` and `rpc.discover` */
async function openRpc(ctx: ApiContext, _input: unknown, { baseUrl }: CallInfo): Promise<z.input<typeof OpenRpcDocument>> {
  return buildOpenRpc(ctx.registry, baseUrl);
}

export const docRoutes = [
  documentRoute({ path: '/', content: 'html', summary: 'Overview page for people: what the service is, its live status, prices and links' }, (ctx) =>
    overviewHtml(ctx.registry, overviewStatus(ctx)),
  ),

  ...['/openapi.json', '/.well-known/openapi.json'].map((path) =>
    defineRoute({
      family: 'docs',
      method: 'GET',
      path,
      price: 'free',
      summary: 'OpenAPI 3.0.3 description of every route and JSON-RPC method, with prices',
      response: OpenApiDocument,
      cacheSeconds: DOC_CACHE_SECONDS,
      errors: [],
      example: 'live',
    }).handle(openApi),
  ),
  defineRoute({
    family: 'docs',
    method: 'GET',
    path: OPENRPC_PATH,
    price: 'free',
    summary: 'OpenRPC 1.2.6 description of every JSON-RPC method (params, result, errors, example, price); also the method rpc.discover',
    response: OpenRpcDocument,
    cacheSeconds: DOC_CACHE_SECONDS,
    errors: [],
    example: 'live',
  }).handle(openRpc),
  text('/llms.txt', 'markdown', 'llms.txt: what the service is, with links to every document and route', (ctx, base) => llmsTxt(ctx.registry, base)),
  text('/llms-full.txt', 'markdown', 'Everything an agent needs in one text: how to pay, every route and method with an example', (ctx, base) =>
    llmsFullTxt(ctx.registry, base, paymentFacts(ctx)),
  ),
  text('/AGENTS.md', 'markdown', 'How an agent should use the service: discover, pay, handle 402/4xx/429/503, what never to expect', (ctx, base) =>
    agentsMd(ctx.registry, base, paymentFacts(ctx)),
  ),
  text('/sitemap.xml', 'xml', 'Sitemap (sitemaps.org) of every free page', (ctx, base) => sitemapXml(ctx.registry, base)),
  text('/sitemap.md', 'markdown', 'Sitemap as Markdown, with one line per free page', (ctx, base) => sitemapMd(ctx.registry, base)),
  text('/glossary.md', 'markdown', 'Glossary: sat/vB, vsize, weight, chunk, cluster, CPFP, RBF, template, baseline, bound, x402 …', (ctx) =>
    glossaryMd(ctx.registry),
  ),
  ...documentRoutes(DOC_CACHE_SECONDS),
];

/** OpenRPC's service discovery (EIP-1901): the same document as `GET /openrpc.json`. */
export const docMethods = [
  defineRpcMethod({
    family: 'docs',
    name: 'rpc.discover',
    price: 'free',
    summary: 'The OpenRPC 1.2.6 document of every JSON-RPC method (as GET /openrpc.json)',
    params: z.tuple([]),
    result: OpenRpcDocument,
    errors: [],
    example: {
      params: [],
      result: { openrpc: OPENRPC_VERSION, info: { title: 'Bitcoin data and fee-intelligence API: JSON-RPC', version: '1.0.0' }, methods: [] },
    },
  }).run(openRpc),
];
