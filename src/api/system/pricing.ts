/**
 * What the service charges, derived from the registry: capabilities' `pricingUsdc` (routes and
 * JSON-RPC methods grouped by price, cheapest first), its REST endpoint list and JSON-RPC method
 * list. Nothing here is hand-kept, so it cannot disagree with what the gate charges.
 */
import { priceUsd, routeKey, type Registry } from '../define.js';

export interface PricingRow {
  /** USD per request, as a decimal string ("0" for free). */
  price: string;
  /** `"GET /v1/tx/:txid"` or `"POST /v1/rpc eth_blockNumber"`. */
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

/** Complexity: O(routes + methods). */
export function pricingUsdc(registry: Registry): PricingRow[] {
  const groups = new Map<number, string[]>();
  const add = (price: number, name: string) => {
    const list = groups.get(price) ?? [];
    list.push(name);
    groups.set(price, list);
  };
  for (const route of registry.routes) if (route.kind === 'rest') add(priceUsd(route.price), routeKey(route));
  for (const method of registry.methods.values()) add(priceUsd(method.price), `POST /v1/rpc ${method.name}`);
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([price, routes]) => ({ price: String(price), routes, bestFor: BEST_FOR[String(price)] ?? 'paid requests' }));
}

export interface EndpointRow {
  method: 'GET' | 'POST';
  path: string;
  /** USD; null for `POST /v1/rpc`, priced per method. */
  priceUsd: number | null;
  summary: string;
}

export function restEndpoints(registry: Registry): EndpointRow[] {
  return registry.routes.map((r) => ({ method: r.method, path: r.path, priceUsd: r.kind === 'rest' ? priceUsd(r.price) : null, summary: r.summary }));
}

export function rpcMethodRows(registry: Registry): Array<{ method: string; priceUsd: number; summary: string }> {
  return [...registry.methods.values()].map((m) => ({ method: m.name, priceUsd: priceUsd(m.price), summary: m.summary }));
}
