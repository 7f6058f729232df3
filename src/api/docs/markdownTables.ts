/**
 * The route and method tables of the README (and later the public documents), generated from the
 * registry: `npm run docs:routes` writes them between markers, and a test fails when the README and
 * the registry differ.
 */
import { priceUsd, routeKey, type Registry } from '../define.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const price = (usd: number) => (usd === 0 ? 'free' : String(usd));

/** `| route | price | answer |` rows for every REST route. */
export function restRouteTable(registry: Registry): string {
  const rows = registry.routes.map((r) => `| \`${routeKey(r)}\` | ${r.kind === 'rest' ? price(priceUsd(r.price)) : 'per method'} | ${cell(r.summary)} |`);
  return ['| route | price (USD) | answer |', '|---|---|---|', ...rows].join('\n');
}

/** `| method | price | answer |` rows for every JSON-RPC method. */
export function rpcMethodTable(registry: Registry): string {
  const rows = [...registry.methods.values()].map((m) => `| \`${m.name}\` | ${price(priceUsd(m.price))} | ${cell(m.summary)} |`);
  return ['| method | price (USD) | answer |', '|---|---|---|', ...rows].join('\n');
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`; throws when the markers are missing. */
export function replaceBetweenMarkers(text: string, name: string, content: string): string {
  const pattern = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
  if (!pattern.test(text)) throw new Error(`no <!-- ${name}:start/end --> markers`);
  return text.replace(pattern, `<!-- ${name}:start -->\n${content}\n<!-- ${name}:end -->`);
}
