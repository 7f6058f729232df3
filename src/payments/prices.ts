/**
 * THE price table (USD per request). Everything else is derived from it: the gate, the 402
 * challenges, capabilities' `pricingUsdc`, and the OpenAPI / llms.txt text.
 *
 * REST keys are `"<METHOD> <fastify route url>"` exactly as fastify's `onRoute` reports them
 * (HEAD routes take their GET's price). Every `/v1/` route must be listed (a missing one is a
 * start-up error, so a price cannot be forgotten); other routes not listed are free.
 * JSON-RPC methods on `POST /v1/rpc` are priced per call; a batch costs the sum (DESIGN §5).
 */

/** A route that costs nothing; listed so the table is complete. */
export const FREE = 0;

export const REST_PRICES_USD: Readonly<Record<string, number>> = {
  // --- free public routes (SPEC §4) ---
  'GET /health': FREE,
  'GET /v1/template/health': FREE,
  'GET /v1/template/capabilities': FREE,
  'GET /v1/template/cache-stats': FREE,
  'GET /': FREE,
  'GET /openapi.json': FREE,
  'GET /.well-known/openapi.json': FREE,
  'GET /llms.txt': FREE,
  'GET /llms-full.txt': FREE,
  'GET /AGENTS.md': FREE,
  'GET /sitemap.xml': FREE,
  'GET /sitemap.md': FREE,
  'GET /glossary.md': FREE,
  'GET /dashboard': FREE,
  // The WebSocket itself is paid through its single-use ticket (GET /v1/mempool/stream-ticket).
  'GET /v1/mempool/stream': FREE,

  // --- JSON-RPC: the fallback when the route set no quote (see RPC_METHOD_PRICES_USD) ---
  'POST /v1/rpc': 0.001,

  // --- Bitcoin reads ---
  'GET /v1/block-height': 0.001,
  'GET /v1/fee-estimate': 0.001,
  'GET /v1/balance/:address': 0.001,
  'GET /v1/utxos/:address': 0.002,
  'GET /v1/tx/:txid': 0.001,

  // --- mempool ---
  'GET /v1/mempool/stats': 0.001,
  'GET /v1/mempool/fees': 0.001,
  'GET /v1/mempool/tx/:txid': 0.001,
  'GET /v1/mempool/tx/:txid/replacements': 0.001,
  'GET /v1/mempool/stream-ticket': 0.005,

  // --- template intelligence ---
  'POST /v1/template/check': 0.01,
  'POST /v1/template/batch-check': 0.05,
  'POST /v1/template/fee-ladder': 0.01,
  'POST /v1/template/bump-plan': 0.01,
  'POST /v1/bitcoin/insight': 0.01,
  'POST /v1/template/optimized-txids': 0.05,
};

/**
 * Per-method prices on `POST /v1/rpc`. `eth_chainId` and `net_version` are free: stock EVM client
 * libraries call them when they connect, before any paid call. Methods not listed are unknown to
 * the dispatcher (-32601) and cost nothing: nobody pays for a call that cannot succeed.
 */
export const RPC_METHOD_PRICES_USD: Readonly<Record<string, number>> = {
  eth_chainId: FREE,
  net_version: FREE,
  eth_blockNumber: 0.001,
  eth_gasPrice: 0.001,
  eth_getBalance: 0.001,
  eth_getBlockByNumber: 0.001,
  eth_getTransactionByHash: 0.001,
  svc_templateHealth: FREE,
  svc_templateCheck: 0.01,
  svc_feeLadder: 0.01,
  svc_bumpPlan: 0.01,
  svc_bitcoinInsight: 0.01,
  svc_addressInsight: 0.01,
  svc_templateBatchCheck: 0.05,
};

/** Key of a route in `REST_PRICES_USD`. */
export function routeKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url}`;
}

/** USD → atomic token units as a decimal string (USDC: 6 decimals, 0.001 → "1000"). */
export function usdToAtomic(priceUsd: number, decimals = 6): string {
  // Prices are fixed decimals; rounding at 10^-decimals removes binary float noise (0.1+0.2).
  const scaled = Math.round(priceUsd * 10 ** decimals);
  if (!Number.isSafeInteger(scaled) || scaled < 0) throw new RangeError(`price ${priceUsd} out of range`);
  return String(scaled);
}

/** Sum of USD prices without float drift (in micro-dollars). */
export function sumUsd(prices: readonly number[]): number {
  return prices.reduce((acc, p) => acc + Math.round(p * 1e6), 0) / 1e6;
}

/** What a route tells the gate about one request when its price depends on the body. */
export interface PaymentQuote {
  /** Price of this request in USD; 0 = no payment needed. */
  priceUsd: number;
  /** Shown in the challenge's `resource.description`. */
  description: string;
}

/**
 * Quote for a JSON-RPC body (one call or a batch): the sum of the known methods' prices.
 * Unknown methods, malformed elements and non-object bodies cost nothing (they are answered with a
 * JSON-RPC error). The route may quote after validating params instead; this is the default.
 * Complexity: O(n) in the batch length.
 * @example rpcQuote([{ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }]) // { priceUsd: 0.001, … }
 */
export function rpcQuote(body: unknown): PaymentQuote {
  const calls = Array.isArray(body) ? body : [body];
  const priced: string[] = [];
  const prices: number[] = [];
  for (const call of calls) {
    const method = call !== null && typeof call === 'object' ? (call as { method?: unknown }).method : undefined;
    if (typeof method !== 'string' || !Object.hasOwn(RPC_METHOD_PRICES_USD, method)) continue;
    const price = RPC_METHOD_PRICES_USD[method]!;
    if (price > 0) {
      priced.push(method);
      prices.push(price);
    }
  }
  const priceUsd = sumUsd(prices);
  const description =
    priced.length === 0
      ? 'JSON-RPC: free methods only'
      : `JSON-RPC ${Array.isArray(body) ? `batch of ${calls.length}: ` : ''}${summarize(priced)} (${priceUsd} USD)`;
  return { priceUsd, description };
}

function summarize(methods: string[]): string {
  const counts = new Map<string, number>();
  for (const m of methods) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts].map(([m, n]) => (n > 1 ? `${m} ×${n}` : m)).join(', ');
}

/** One row of capabilities' `pricingUsdc`. */
export interface PricingRow {
  price: string;
  routes: string[];
  bestFor: string;
}

const BEST_FOR: Readonly<Record<string, string>> = {
  '0': 'discovery and health: no payment',
  '0.001': 'cheap reads: block height, fees, balances, transactions, mempool state, eth_* calls',
  '0.002': 'address UTXO sets',
  '0.005': 'a 10-minute live mempool stream ticket',
  '0.01': 'template intelligence on one transaction: check, fee ladder, bump plan, insight',
  '0.05': 'batch checks (up to 10 txids) and the full optimized template export',
};

/**
 * Capabilities' `pricingUsdc`: routes and JSON-RPC methods grouped by price, cheapest first.
 * Derived from the table, so it cannot drift from what the gate charges.
 */
export function pricingUsdc(
  rest: Readonly<Record<string, number>> = REST_PRICES_USD,
  rpc: Readonly<Record<string, number>> = RPC_METHOD_PRICES_USD,
): PricingRow[] {
  const groups = new Map<number, string[]>();
  const add = (price: number, name: string) => {
    const list = groups.get(price) ?? [];
    list.push(name);
    groups.set(price, list);
  };
  for (const [key, price] of Object.entries(rest)) if (key !== 'POST /v1/rpc') add(price, key);
  for (const [method, price] of Object.entries(rpc)) add(price, `POST /v1/rpc ${method}`);
  return [...groups.keys()]
    .sort((a, b) => a - b)
    .map((price) => ({
      price: price === 0 ? '0' : String(price),
      routes: groups.get(price)!,
      bestFor: BEST_FOR[String(price)] ?? 'paid requests',
    }));
}
