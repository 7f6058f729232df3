/**
 * The public documents are generated from the registry: every route and method appears where an
 * agent looks for it, links are absolute from PUBLIC_BASE_URL, and each document is served free
 * with its own content type and a cache lifetime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { priceUsd, routeKey } from '../../src/api/define.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const BASE = 'https://api.example.com';

describe('public documents', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 40, env: { PUBLIC_BASE_URL: `${BASE}/`, PAYMENTS_ENABLED: 'true', X402_SETTLEMENT: 'demo' } });
    await refresh(world);
  });
  afterAll(async () => world.close());

  const get = async (url: string) => {
    const res = await world.app.inject({ method: 'GET', url });
    expect(res.statusCode, url).toBe(200);
    return res;
  };

  it('default: each document answers 200 without payment, with its content type and a cache lifetime', async () => {
    const expected: Record<string, RegExp> = {
      '/llms.txt': /^text\/markdown/,
      '/llms-full.txt': /^text\/markdown/,
      '/AGENTS.md': /^text\/markdown/,
      '/sitemap.xml': /^application\/xml/,
      '/sitemap.md': /^text\/markdown/,
      '/glossary.md': /^text\/markdown/,
      '/': /^text\/html/,
      '/openapi.json': /^application\/json/,
    };
    for (const [url, type] of Object.entries(expected)) {
      const res = await get(url);
      expect(res.headers['content-type'], url).toMatch(type);
      if (url !== '/') expect(res.headers['cache-control'], url).toBe('public, max-age=300');
    }
  });

  it('behavior: /llms.txt has the llmstxt.org shape with absolute links to the documents and the free routes', async () => {
    const body = (await get('/llms.txt')).body;
    const lines = body.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((l) => l.startsWith('> '))).toBeDefined();
    for (const doc of ['/llms-full.txt', '/AGENTS.md', '/openapi.json', '/glossary.md', '/sitemap.xml']) expect(body).toContain(`](${BASE}${doc})`);
    expect(body).toContain(`[GET /v1/template/capabilities](${BASE}/v1/template/capabilities)`);
    expect(body).not.toMatch(/\]\(\//); // no relative link
  });

  it('behavior: /llms-full.txt documents every route and method of the registry with its price and an example', async () => {
    const body = (await get('/llms-full.txt')).body;
    const registry = serviceRegistry();
    for (const route of registry.routes) {
      const section = body.split(`### ${routeKey(route)}\n`)[1]?.split('\n### ')[0];
      expect(section, routeKey(route)).toBeDefined();
      if (route.kind === 'rest') expect(section).toContain(priceUsd(route.price) === 0 ? 'Price: free.' : `Price: ${priceUsd(route.price)} USD.`);
      expect(section).toMatch(/Example/);
    }
    for (const method of registry.methods.values()) {
      const section = body.split(`### ${method.name}\n`)[1]?.split('\n### ')[0];
      expect(section, method.name).toContain(`"method":"${method.name}"`);
      expect(section).toContain(priceUsd(method.price) === 0 ? 'Price: free.' : `Price: ${priceUsd(method.price)} USD.`);
    }
    expect(body).toContain('PAYMENT-SIGNATURE');
    expect(body).toContain(`curl '${BASE}/v1/tx/`);
  });

  it('behavior: /AGENTS.md tells an agent how to pay, what each failure means and that nothing is custodied', async () => {
    const body = (await get('/AGENTS.md')).body;
    for (const needle of ['402', 'PAYMENT-REQUIRED', 'PAYMENT-SIGNATURE', '503', 'Retry-After', '429', 'never holds keys or funds', 'demo'])
      expect(body).toContain(needle);
  });

  it('behavior: /sitemap.xml lists absolute URLs of free pages, each of which answers 200', async () => {
    const body = (await get('/sitemap.xml')).body;
    expect(body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    const locs = [...body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? '');
    expect(locs).toContain(`${BASE}/dashboard`);
    expect(locs).toContain(`${BASE}/health`);
    expect(locs).not.toContain(`${BASE}/v1/block-height`); // paid
    for (const loc of locs) {
      expect(loc.startsWith(BASE)).toBe(true);
      await get(loc.slice(BASE.length));
    }
    const md = (await get('/sitemap.md')).body;
    for (const loc of locs) expect(md).toContain(`](${loc})`);
  });

  it('behavior: /glossary.md defines the terms the answers use', async () => {
    const body = (await get('/glossary.md')).body;
    for (const term of ['sat/vB', 'vsize', 'weight', 'chunk', 'cluster', 'CPFP', 'RBF', 'block template', 'baseline', 'upper bound', 'x402'])
      expect(body).toContain(`## ${term}`);
  });

  it('behavior: / shows the live status and every priced route', async () => {
    const body = (await get('/')).body;
    const size = world.app.mempool.mirror.txs.size;
    expect(size).toBeGreaterThan(0);
    expect(body).toContain(`${size.toLocaleString('en-US')} txs`);
    expect(body).toContain('<code>POST /v1/template/optimized-txids</code>');
    expect(body).toContain('<code>svc_feeLadder</code>');
    expect(body).not.toMatch(/<script>/); // scripts are same-origin files only
  });
});
