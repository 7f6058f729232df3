/**
 * The documents an agent reads to discover and use the service: `/llms.txt` (the llmstxt.org
 * shape: title, summary, link sections), `/llms-full.txt` (how to pay, and every route and method
 * with an example request and answer) and `/AGENTS.md` (how to behave: discover, pay, handle
 * 402 / 4xx / 429 / 503, what never to expect). Generated from the registry on each request, so a
 * route added to the registry is documented everywhere at once; absolute links use `baseUrl`.
 */
import { linkDocuments } from './documents.js';
import { FAMILY_TITLES, priceUsd, routeKey, type Family, type Registry, type RestRoute, type Route, type RpcMethod } from '../define.js';
import { isDocument, MCP_PATH, OPENRPC_PATH, SERVICE_SUMMARY, SERVICE_TITLE } from '../shared/serviceFacts.js';

/** What the payment section of the documents needs to know. */
export interface PaymentFacts {
  enabled: boolean;
  settlement: string;
  networks: ReadonlyArray<{ network: string; label: string }>;
}

const usd = (price: number) => (price === 0 ? 'free' : `${price} USD`);
const routePrice = (route: Route) =>
  route.kind === 'jsonrpc'
    ? 'priced per method (a batch costs the sum of its calls)'
    : route.kind === 'mcp'
      ? 'free to connect and list; each tool is priced as its route or method'
      : usd(priceUsd(route.price));
const json = (value: unknown) => JSON.stringify(value, null, 2);

function families(registry: Registry): Family[] {
  return [...new Set([...registry.routes.map((r) => r.family), ...[...registry.methods.values()].map((m) => m.family)])];
}

/** `/v1/tx/:txid` with the example's parameters filled in (or the pattern when there is no example). */
function examplePath(route: RestRoute): string {
  const params = route.example === 'live' ? undefined : (route.example.params as Record<string, unknown> | undefined);
  let path = route.path.replace(/:([A-Za-z0-9_]+)/g, (whole, name: string) => {
    const value = params?.[name];
    return typeof value === 'string' || typeof value === 'number' ? encodeURIComponent(String(value)) : whole;
  });
  const query = route.example === 'live' ? undefined : (route.example.query as Record<string, unknown> | undefined);
  if (query && Object.keys(query).length > 0)
    path += `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
  return path;
}

export function llmsTxt(registry: Registry, baseUrl: string): string {
  const lines = [`# ${SERVICE_TITLE}`, '', `> ${SERVICE_SUMMARY}`, ''];
  lines.push(
    'Start with the free capabilities route (what is offered and what it costs, with the optimizer’s live state). Paid routes answer HTTP 402 with an x402 v2 challenge; pay it with any stock x402 client and repeat the request. The service never signs Bitcoin transactions and never holds funds.',
    '',
    `MCP clients: connect to ${baseUrl}${MCP_PATH} (Streamable HTTP); every route and method is a tool at its price, paid per the x402 MCP transport (see /AGENTS.md). JSON-RPC tooling: ${baseUrl}${OPENRPC_PATH} (OpenRPC) or the method rpc.discover.`,
    '',
    '## Docs',
    '',
  );
  for (const route of registry.routes.filter(isDocument)) lines.push(`- [${route.path}](${baseUrl}${route.path}): ${route.summary}`);
  for (const family of families(registry)) {
    if (family === 'docs') continue;
    const routes = registry.routes.filter((r) => r.family === family && !isDocument(r));
    const methods = [...registry.methods.values()].filter((m) => m.family === family);
    if (routes.length + methods.length === 0) continue;
    lines.push('', `## ${FAMILY_TITLES[family]}`, '');
    for (const r of routes) {
      const link =
        r.kind === 'rest' && r.method === 'GET' && !r.params && r.content !== 'websocket' ? `[${routeKey(r)}](${baseUrl}${r.path})` : `\`${routeKey(r)}\``;
      lines.push(`- ${link}: ${r.summary} (${routePrice(r)})`);
    }
    for (const m of methods) lines.push(`- \`${m.name}\` (JSON-RPC at ${baseUrl}/v1/rpc): ${m.summary} (${usd(priceUsd(m.price))})`);
  }
  lines.push(
    '',
    '## Optional',
    '',
    `- [Glossary](${baseUrl}/glossary.md): the Bitcoin and payment terms the answers use`,
    `- [Dashboard](${baseUrl}/dashboard): live mempool and optimizer telemetry for people`,
    '',
  );
  return lines.join('\n');
}

export function paymentSection(baseUrl: string, payments: PaymentFacts): string {
  const networks = payments.networks.map((n) => `${n.network} (${n.label})`).join(', ');
  return [
    '## How to pay (x402 v2)',
    '',
    payments.enabled
      ? `Paid routes are paid per request in USDC with x402 version 2, scheme \`exact\` (EIP-3009 transferWithAuthorization). Networks: ${networks}. Settlement mode now: \`${payments.settlement}\`.`
      : 'Payments are disabled on this instance: every route answers without payment.',
    '',
    '1. Send the request as is. A paid route answers `402 Payment Required` with the challenge as JSON body and, base64-encoded, in the `PAYMENT-REQUIRED` header. Malformed requests get their 400 before any payment is asked, so a 402 means the request itself is fine.',
    '2. Pick one entry of `accepts` (network, asset, amount in atomic units: 1000 = 0.001 USD), sign the authorization with your own key (it never leaves you), and repeat the identical request with the `PAYMENT-SIGNATURE` header (base64 JSON PaymentPayload). Stock clients do this: `@x402/fetch` with `@x402/evm`.',
    '3. The answer carries a `PAYMENT-RESPONSE` header (base64 JSON) saying whether and how the payment was settled. Only successful answers are settled; an error answer (4xx/5xx) is not charged, and a JSON-RPC request (one call or a batch) is charged only when every priced call in it answered a result other than null: one error or null and the whole request is free (the same payment may be sent again).',
    '4. A payment is bound to its request (route and, for JSON-RPC, the method names): it cannot be reused elsewhere. Replaying a used signature is refused.',
    '',
    `Example: \`curl -i ${baseUrl}/v1/block-height\` answers 402 with the challenge; a paid retry answers the height.`,
  ].join('\n');
}

function restEntry(route: Route, baseUrl: string): string {
  const lines = [`### ${routeKey(route)}`, '', route.summary + '.', ''];
  if (route.description) lines.push(linkDocuments(route.description, baseUrl), '');
  lines.push(`Price: ${routePrice(route)}.`);
  if (route.errors.length > 0) lines.push(`Errors: ${route.errors.join(', ')} (besides INVALID_REQUEST for malformed input).`);
  lines.push('');
  if (route.example === 'live') {
    lines.push(`Example: \`curl ${baseUrl}${route.path}\` (the answer is live; call it to see it).`, '');
    return lines.join('\n');
  }
  const path = route.kind === 'rest' ? examplePath(route) : route.path;
  const body = route.example.body === undefined ? '' : ` -H 'content-type: application/json' -d '${JSON.stringify(route.example.body)}'`;
  lines.push('Example request:', '', '```sh', `curl${route.method === 'POST' ? ' -X POST' : ''} '${baseUrl}${path}'${body}`, '```', '');
  const answer = typeof route.example.response === 'string' ? route.example.response : json(route.example.response);
  lines.push('Example answer:', '', '```', answer, '```', '');
  return lines.join('\n');
}

function methodEntry(method: RpcMethod, baseUrl: string): string {
  const request = { jsonrpc: '2.0', id: 1, method: method.name, params: method.example.params };
  return [
    `### ${method.name}`,
    '',
    method.summary + '.',
    '',
    ...(method.description ? [linkDocuments(method.description, baseUrl), ''] : []),
    `Price: ${usd(priceUsd(method.price))}.${method.errors.length > 0 ? ` Errors: ${method.errors.join(', ')}.` : ''}`,
    '',
    'Example request:',
    '',
    '```sh',
    `curl -X POST '${baseUrl}/v1/rpc' -H 'content-type: application/json' -d '${JSON.stringify(request)}'`,
    '```',
    '',
    'Example answer:',
    '',
    '```json',
    json({ jsonrpc: '2.0', id: 1, result: method.example.result }),
    '```',
    '',
  ].join('\n');
}

export function llmsFullTxt(registry: Registry, baseUrl: string, payments: PaymentFacts): string {
  const parts = [
    `# ${SERVICE_TITLE}`,
    '',
    `> ${SERVICE_SUMMARY}`,
    '',
    `Base URL: ${baseUrl}. Machine-readable description: ${baseUrl}/openapi.json. Errors are JSON: \`{"success": false, "error": {"code", "message", "docs"}}\`, every code with its status and what to do in [/docs/errors.md](${baseUrl}/docs/errors.md); 503 answers carry \`Retry-After\`.`,
    '',
    paymentSection(baseUrl, payments),
    '',
    '## Routes',
    '',
  ];
  for (const route of registry.routes) parts.push(restEntry(route, baseUrl));
  parts.push(
    '## JSON-RPC methods (POST /v1/rpc)',
    '',
    'JSON-RPC 2.0 envelopes or batches; errors travel with HTTP 200 as Ethereum nodes do. The `svc_*` methods take one object as their only parameter.',
    '',
  );
  for (const method of registry.methods.values()) parts.push(methodEntry(method, baseUrl));
  return parts.join('\n');
}

/** How to use the service as MCP tools (AGENTS.md). */
export function mcpSection(baseUrl: string): string {
  return [
    '## Use it as MCP tools',
    '',
    `The MCP server at \`${baseUrl}${MCP_PATH}\` speaks the Streamable HTTP transport (stateless, JSON answers). Add it to an MCP client as a remote HTTP server, for example:`,
    '',
    '```json',
    json({ mcpServers: { 'btc-fee-intel': { type: 'http', url: `${baseUrl}${MCP_PATH}` } } }),
    '```',
    '',
    '- `tools/list` gives one tool per route and JSON-RPC method, with input and output schemas; each description states its price. The public documents are resources.',
    '- A priced tool called without payment answers `isError: true` with the x402 `PaymentRequired` object in `structuredContent` (and as JSON in `content[0].text`). Sign one of its `accepts` (x402 exact scheme, as for HTTP) and call the same tool with the same arguments again, with the `PaymentPayload` in `_meta["x402/payment"]`. The answer carries the settlement in `_meta["x402/payment-response"]`.',
    '- The payment is bound to the tool and its arguments (the quoted `resource.url` and `accepted.extra`); errors and refusals are never charged; the same payment sent again for the same call is answered again without a second charge.',
  ].join('\n');
}

export function agentsMd(registry: Registry, baseUrl: string, payments: PaymentFacts): string {
  const free = registry.routes.filter((r) => r.kind === 'rest' && r.price === 'free' && !isDocument(r)).map((r) => `\`${routeKey(r)}\``);
  const freeMethods = [...registry.methods.values()].filter((m) => m.price === 'free').map((m) => `\`${m.name}\``);
  return [
    `# AGENTS.md: using the ${SERVICE_TITLE}`,
    '',
    SERVICE_SUMMARY,
    '',
    '## Discover',
    '',
    `- \`GET ${baseUrl}/v1/template/capabilities\` (free): every route and JSON-RPC method with its price, and the optimizer's live state.`,
    `- \`GET ${baseUrl}/openapi.json\`: request and response schemas of every route; \`${baseUrl}/llms-full.txt\`: every route and method with an example.`,
    `- \`GET ${baseUrl}${OPENRPC_PATH}\` (or the free JSON-RPC method \`rpc.discover\` at \`POST ${baseUrl}/v1/rpc\`): the OpenRPC 1.2.6 document of every JSON-RPC method, with params, result, errors, an example and \`x-price-usd\`.`,
    `- MCP: \`${baseUrl}${MCP_PATH}\` (Streamable HTTP): every route and method as a tool at its price (below).`,
    `- Free without payment: ${[...free, ...freeMethods].join(', ')}.`,
    '',
    paymentSection(baseUrl, payments),
    '',
    mcpSection(baseUrl),
    '',
    '## Handle answers',
    '',
    '- `200`: the answer. Answers derived from the mempool or the optimizer cache say when they were computed (`asOf`, `cachedAt`, `cacheAgeMs`); check them before acting on fees.',
    `- \`400\` / \`404\` / \`405\` / \`413\` / \`415\` / \`422\`: fix the request; \`error.code\` names the reason. Every code, its status and what to do: [/docs/errors.md](${baseUrl}/docs/errors.md) (also linked from each error as \`error.docs\`). These are never charged.`,
    '- `402`: pay the challenge and repeat the identical request. A 402 on a request that carried a payment says why it was refused in `error`; do not retry the same signature.',
    '- `409 PAYMENT_IN_PROGRESS`: the same payment is being served right now; wait and retry with the same header to get the same answer.',
    '- `429`: slow down; wait `Retry-After` seconds.',
    '- `503`: the node, the optimizer cache or the payment facilitator is unavailable; wait `Retry-After` seconds. Nothing is charged.',
    '- JSON-RPC: errors come in the `error` member with HTTP 200 (-32602 invalid params, -32601 unknown method, -32000 unavailable with `data.retryAfterSeconds`); a request with a failed or null priced call is not charged at all (a batch is charged whole or not at all); `eth_getTransactionByHash` of an unknown txid and `eth_getBlockByNumber` above the tip answer null before payment, free.',
    '',
    '## Never expect',
    '',
    '- Custody: the service never holds keys or funds and never signs a Bitcoin transaction. A bump plan is a plan; you sign the replacement or child yourself.',
    '- Accounts or API keys: the payment is the credential, per request.',
    '- Guarantees of confirmation: fee answers are projections from the current mempool and can change with every block.',
    '- Free polling of paid routes: poll the free health and cache-statistics routes, and pay for data when it changed.',
    '',
  ].join('\n');
}
