/**
 * fastify's `inject` sends cookies through light-my-request, whose `cookie` dependency is pinned by
 * an npm override to 1.1.1 (cookie 2.x requires Node 22 and made `npm ci` warn EBADENGINE on the
 * Node 20 we support). This checks the pinned version is the one installed and that it works.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

describe('inject with cookies (cookie override)', () => {
  it('default: light-my-request resolves cookie 1.1.1, which supports Node 20', () => {
    const fromLightMyRequest = createRequire(createRequire(import.meta.url).resolve('light-my-request'));
    // cookie's `exports` hide its package.json: read it beside the resolved entry (dist/index.js).
    const entry = fromLightMyRequest.resolve('cookie');
    const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string; engines: { node: string } };
    expect(pkg.version).toBe('1.1.1');
    expect(pkg.engines.node).toBe('>=18');
  });

  it('behavior: cookies given to inject reach the handler as one Cookie header', async () => {
    const app = Fastify();
    app.get('/', async (request) => ({ cookie: request.headers.cookie ?? null }));
    const res = await app.inject({ method: 'GET', url: '/', cookies: { session: 'a b', theme: 'dark' } });
    expect(res.json()).toEqual({ cookie: 'session=a%20b; theme=dark' });
    await app.close();
  });
});
