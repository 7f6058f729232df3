/**
 * Every link in every public document answers: starting from the documents a reader or an agent is
 * sent to (llms.txt, llms-full.txt, AGENTS.md, the sitemaps, the overview, the glossary, OpenAPI's
 * externalDocs and servers), every link on this service is followed (and the documents it reaches
 * walked in turn). A free page answers 200; a link to a priced route answers its 402 challenge.
 * Every mention of a `docs/*.md` file in a served text is a link that answers too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { priceUsd } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const BASE = 'https://api.example.com';
const START = ['/llms.txt', '/llms-full.txt', '/AGENTS.md', '/sitemap.xml', '/sitemap.md', '/', '/glossary.md', '/openapi.json'];

/** Links of a text: Markdown `](url)`, HTML `href`/`src`, XML `<loc>`, bare absolute URLs outside code (JSON `url` values included). */
function links(body: string): string[] {
  const found = new Set<string>();
  const add = (url: string | undefined) => {
    if (url) found.add(url.replace(/[).,;:`'"]+$/, ''));
  };
  for (const m of body.matchAll(/\]\(([^)\s]+)\)/g)) add(m[1]);
  for (const m of body.matchAll(/(?:href|src)="([^"]+)"/g)) add(m[1]);
  for (const m of body.matchAll(/<loc>([^<]+)<\/loc>/g)) add(m[1]);
  // A bare URL in prose is a link; one in a code block or inline code is part of a command (`curl -X POST …`).
  const prose = body.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const m of prose.matchAll(/https?:\/\/[^\s"'<>)`\]]+/g)) add(m[0]);
  return [...found];
}

/** A path on this service, or undefined for another site (not fetched) or a path pattern such as `/v1/tx/:txid`. */
function ownPath(url: string): string | undefined {
  const path = url.startsWith(BASE) ? url.slice(BASE.length) || '/' : url.startsWith('/') ? url : undefined;
  if (path === undefined || /[:{]/.test(path.split('?')[0] ?? '')) return undefined;
  return path.split('#')[0];
}

/** `/v1/tx/:txid` → a regexp of the concrete paths it serves. */
function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
}

describe('links of the public documents', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 40, env: { PUBLIC_BASE_URL: BASE, PAYMENTS_ENABLED: 'true', X402_SETTLEMENT: 'demo' } });
    await refresh(world);
  });
  afterAll(async () => world.close());

  it('behavior: every link followed from every public document answers (200 free, 402 priced)', async () => {
    const registry = serviceRegistry();
    // What a GET of a path should answer, from the registry: a bare URL in a `curl -X POST` example
    // names a POST-only route (405 to a GET), a WebSocket route answers a plain GET with 426.
    const expectedStatus = (path: string): number => {
      const bare = path.split('?')[0] ?? path;
      const matching = registry.routes.filter((r) => pathPattern(r.path).test(bare));
      const get = matching.find((r) => r.method === 'GET');
      if (!get) return matching.length > 0 ? 405 : 200;
      if (get.kind === 'rest' && get.content === 'websocket') return 426;
      return get.kind === 'rest' && priceUsd(get.price) > 0 ? 402 : 200;
    };
    const seen = new Set<string>();
    const queue = [...START];
    const walked: string[] = [];
    while (queue.length > 0) {
      const path = queue.shift() ?? '/';
      if (seen.has(path)) continue;
      seen.add(path);
      // The dashboard's live feed never ends: a link to it is checked by its own tests.
      if (path === '/dashboard/feed') continue;
      const res = await world.app.inject({ method: 'GET', url: path });
      expect(res.statusCode, `GET ${path}`).toBe(expectedStatus(path));
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode !== 200 || !/markdown|html|xml|json/.test(type)) continue;
      walked.push(path);
      for (const link of links(res.body)) {
        const own = ownPath(link);
        if (own !== undefined && !seen.has(own)) queue.push(own);
      }
    }
    // The walk reached the served documents of docs/ (from llms.txt, AGENTS.md and the error answers).
    for (const doc of ['/docs/errors.md', '/docs/stream.md', '/docs/bump.md', '/docs/payments.md']) expect(walked, doc).toContain(doc);
    expect(walked.length).toBeGreaterThan(START.length);
  });

  it('behavior: every docs/*.md a served document mentions is a link to its served copy', async () => {
    for (const path of ['/llms-full.txt', '/AGENTS.md', '/llms.txt']) {
      const body = (await world.app.inject({ method: 'GET', url: path })).body;
      const bare = [...body.matchAll(/(?<![\w/[(.-])docs\/([a-z-]+)\.md(?!\]\()/g)].map((m) => m[0]);
      expect(bare, path).toEqual([]);
    }
    const openapi = (await world.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(openapi.externalDocs.url).toBe(`${BASE}/llms-full.txt`);
    expect(openapi.paths['/v1/mempool/stream-ticket'].get.externalDocs.url).toBe(`${BASE}/docs/stream.md`);
  });

  it('error: every error answer links the catalogue of codes, which is served', async () => {
    const res = await world.app.inject({ method: 'GET', url: '/v1/no-such-route' });
    expect(res.statusCode).toBe(404);
    const docs = res.json().error.docs as string;
    expect(docs).toBe('/docs/errors.md');
    const catalogue = await world.app.inject({ method: 'GET', url: docs });
    expect(catalogue.statusCode).toBe(200);
    expect(catalogue.headers['content-type']).toMatch(/^text\/markdown/);
    expect(catalogue.headers['cache-control']).toBe('public, max-age=300');
    expect(catalogue.body).toContain('| `NOT_FOUND` | 404 |');
  });
});
