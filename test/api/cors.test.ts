/**
 * Browser clients: a preflight from any origin is answered with the methods and headers a paying
 * client needs, and every answer (the 402 challenge included) lets the page read the x402 headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

describe('CORS', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 10, env: { PAYMENTS_ENABLED: 'true', X402_SETTLEMENT: 'demo' } });
  });
  afterAll(async () => world.close());

  it('default: an OPTIONS preflight for a paid POST allows the payment header and caches for a day', async () => {
    const res = await world.app.inject({
      method: 'OPTIONS',
      url: '/v1/template/check',
      headers: {
        origin: 'https://wallet.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, payment-signature',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('payment-signature');
    expect(res.headers['access-control-max-age']).toBe('86400');
  });

  it('behavior: the 402 challenge and free answers expose the x402 headers and Retry-After to scripts', async () => {
    const paid = await world.app.inject({ method: 'GET', url: '/v1/block-height', headers: { origin: 'https://wallet.example' } });
    expect(paid.statusCode).toBe(402);
    expect(paid.headers['access-control-allow-origin']).toBe('*');
    for (const header of ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'Retry-After'])
      expect(String(paid.headers['access-control-expose-headers'])).toContain(header);
    const free = await world.app.inject({ method: 'GET', url: '/health', headers: { origin: 'https://wallet.example' } });
    expect(free.headers['access-control-allow-origin']).toBe('*');
    expect(String(free.headers['access-control-expose-headers'])).toContain('PAYMENT-RESPONSE');
  });

  it('behavior: a wrong method on a served path is 405 with Allow, not 404', async () => {
    const res = await world.app.inject({ method: 'DELETE', url: '/v1/template/check' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json().error.code).toBe('METHOD_NOT_ALLOWED');
  });
});
