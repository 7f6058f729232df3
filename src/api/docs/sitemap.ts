/**
 * `/sitemap.xml` (sitemaps.org 0.9) and `/sitemap.md`: every page a crawler or an agent can fetch
 * with a plain GET and no payment — the public documents, the dashboard and the free GET routes
 * without parameters — with absolute URLs.
 */
import { priceUsd, type Registry, type Route } from '../define.js';
import { isDocument } from '../shared/serviceFacts.js';

/** Free GET routes without path parameters that answer something a reader wants (not the dashboard's scripts or feed, nor a WebSocket). */
function pages(registry: Registry): Route[] {
  return registry.routes.filter(
    (r) =>
      r.kind === 'rest' && r.method === 'GET' && priceUsd(r.price) === 0 && !r.params && r.content !== 'websocket' && (r.family !== 'docs' || isDocument(r)),
  );
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function sitemapXml(registry: Registry, baseUrl: string): string {
  const urls = pages(registry).map(
    (r) => `  <url><loc>${escapeXml(baseUrl + r.path)}</loc><changefreq>${r.family === 'docs' ? 'daily' : 'always'}</changefreq></url>`,
  );
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', ...urls, '</urlset>', ''].join('\n');
}

export function sitemapMd(registry: Registry, baseUrl: string): string {
  const lines = ['# Sitemap', '', 'Everything here is free to fetch with a GET. Paid routes are listed in /llms-full.txt and /openapi.json.', ''];
  for (const r of pages(registry)) lines.push(`- [${r.path}](${baseUrl}${r.path}): ${r.summary}`);
  lines.push('');
  return lines.join('\n');
}
