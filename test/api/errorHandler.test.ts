import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { Errors } from '../../src/errors.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { ScanAddressSource } from '../../src/node/scanAddressSource.js';

async function appWith(routes: (app: Awaited<ReturnType<typeof buildApp>>) => void) {
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'err-')), PAYMENTS_ENABLED: 'false', OPTIMIZER_ENABLED: 'false' });
  const node = new BitcoinNode({ url: 'http://u:p@127.0.0.1:1', timeoutMs: 500, scanTimeoutMs: 500 });
  const app = await buildApp({ config, node, addressSource: new ScanAddressSource(node), nodeKind: 'real', autoStart: false });
  routes(app);
  return app;
}

describe('errorHandler', () => {
  it('error: an unexpected error is a generic 500 INTERNAL, whatever code it carries (no internals leak)', async () => {
    const app = await appWith((a) => {
      // Every route carries its price (here free), as the registry's routes do.
      const free = (key: string) => ({ config: { payment: { key, priceUsd: 0 } } });
      a.get('/boom/node', free('GET /boom/node'), async () => {
        throw Object.assign(new TypeError('The "path" argument must be of type string. Received /srv/data/secret'), { code: 'ERR_INVALID_ARG_TYPE' });
      });
      a.get('/boom/sqlite', free('GET /boom/sqlite'), async () => {
        throw Object.assign(new Error('database is locked: /srv/data/replacements.sqlite'), { code: 'SQLITE_BUSY' });
      });
      a.get('/ok/catalogue', free('GET /ok/catalogue'), async () => {
        throw new Errors.NODE_UNAVAILABLE('ECONNREFUSED');
      });
    });
    for (const url of ['/boom/node', '/boom/sqlite']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ success: false, error: { code: 'INTERNAL', message: 'Internal error', docs: '/docs/errors.md' } });
    }
    const known = await app.inject({ method: 'GET', url: '/ok/catalogue' });
    expect(known.statusCode).toBe(503);
    expect(known.json().error.code).toBe('NODE_UNAVAILABLE');
    await app.close();
  });
});
