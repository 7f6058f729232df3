import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertPaymentConfig, ConfigError } from '../../src/config.js';
import { MAX_PAYMENT_HEADER_CHARS } from '../../src/payments/decode.js';
import { PaymentError } from '../../src/payments/verify.js';
import { challengeOf, decodeHeader, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';

type App = Awaited<ReturnType<typeof stubApp>>;

let tmp: ReturnType<typeof tempDir>;
let app: App;
const account = newAccount();

beforeEach(async () => {
  tmp = tempDir();
  app = await stubApp({ config: testConfig({ DATA_DIR: tmp.dir, PAY_TO }) });
});
afterEach(async () => {
  await app.close();
  tmp.remove();
});

async function challenge(url = '/v1/paid', method: 'GET' | 'POST' = 'GET', payload?: object) {
  const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
  expect(res.statusCode).toBe(402);
  return challengeOf(res);
}

async function pay(header: string, url = '/v1/paid') {
  return app.inject({ method: 'GET', url, headers: { 'payment-signature': header } });
}

describe('challenge', () => {
  it('default: a paid route without payment answers 402 with the challenge in body and header', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/paid' });
    expect(res.statusCode).toBe(402);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-expose-headers']).toBe('PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-Payment-Charged, Retry-After');
    const header = challengeOf(res);
    expect(res.json()).toEqual(header);
    expect(header).toMatchObject({
      x402Version: 2,
      error: PaymentError.MISSING,
      resource: { url: 'http://localhost:80/v1/paid', mimeType: 'application/json' },
    });
    expect(header.accepts.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:84532', 'eip155:480']);
    expect(header.accepts[0]).toEqual({
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '1000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2', route: 'GET /v1/paid' },
    });
    expect(header.accepts[1]!.extra).toEqual({ name: 'USDC', version: '2', route: 'GET /v1/paid' });
    expect(header.settlement).toBe('local-unsettled');
    expect(header.extensions).toHaveProperty(['payment-identifier', 'info', 'required'], false);
  });

  it('behavior: HEAD of a paid GET answers 405 and is never charged, even with a valid payment', async () => {
    const header = paymentHeader(await signPayment(account, requirementFor(await challenge())));
    const head = await app.inject({ method: 'HEAD', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('GET');
    expect(head.headers['payment-response']).toBeUndefined();
    expect(app.payments.ledgerCounts().unsettled).toBe(0);
    expect(app.served()).toBe(0);
    // The payment is still good for the GET it was made for.
    expect((await pay(header)).statusCode).toBe(200);
  });

  it('behavior: free routes never look at payment headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/health', headers: { 'payment-signature': '!!garbage!!' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['payment-required']).toBeUndefined();
  });

  it('behavior: a malformed request gets its 400 before any payment is asked', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/echo', payload: { txid: 'nope' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_TXID');
  });

  it('args: the JSON-RPC price is the quote of the body (a batch costs the sum; free methods are free)', async () => {
    const one = await challenge('/v1/rpc', 'POST', { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' });
    expect(one.accepts[0]!.amount).toBe('1000');
    const batch = await challenge('/v1/rpc', 'POST', [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'svc_templateBatchCheck' },
      { jsonrpc: '2.0', id: 3, method: 'eth_chainId' },
    ]);
    expect(batch.accepts[0]!.amount).toBe('51000');
    const free = await app.inject({ method: 'POST', url: '/v1/rpc', payload: { jsonrpc: '2.0', id: 1, method: 'eth_chainId' } });
    expect(free.statusCode).toBe(200);
    expect(free.json().result).toBe('0x2105');
  });
});

describe('payment', () => {
  it('default: a valid payment is served with PAYMENT-RESPONSE and recorded unsettled (no facilitator)', async () => {
    const req = requirementFor(await challenge());
    const res = await pay(paymentHeader(await signPayment(account, req)));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, served: 1 });
    expect(res.headers['cache-control']).toBe('no-store');
    const settlement = decodeHeader<Record<string, unknown>>(res.headers['payment-response']);
    expect(settlement).toMatchObject({
      success: true,
      transaction: '',
      network: 'eip155:8453',
      payer: account.address,
      amount: '1000',
      extra: { settlement: 'unsettled' },
    });
    expect(app.payments.ledgerCounts()).toEqual({ pending: 0, settled: 0, unsettled: 1, failed: 0 });
    expect(app.payments.settlement).toBe('local-unsettled');
    expect(app.payments.health()).toMatchObject({
      enabled: true,
      settlement: 'local-unsettled',
      note: expect.stringContaining('settlement is OFF'),
      facilitator: { configured: false },
      ledger: { unsettled: 1 },
    });
  });

  it('behavior: Base Sepolia pays with its own EIP-712 domain ("USDC")', async () => {
    const req = requirementFor(await challenge(), 'eip155:84532');
    const res = await pay(paymentHeader(await signPayment(account, req)));
    expect(res.statusCode).toBe(200);
  });

  it('behavior: a header sent again for the same request gets the same answer, charged once; elsewhere it is a replay', async () => {
    const header = paymentHeader(await signPayment(account, requirementFor(await challenge())));
    const first = await pay(header);
    expect(first.statusCode).toBe(200);
    const again = await pay(header);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['x-payment-idempotent-replay']).toBe('true');
    expect(again.headers['payment-response']).toBe(first.headers['payment-response']);
    expect(app.served()).toBe(1);
    expect(app.payments.ledgerCounts().unsettled).toBe(1);
    // The same header on another request (same route and URL, another body) is a replay.
    const echo = requirementFor(await challenge('/v1/echo', 'POST', { txid: 'a'.repeat(64) }));
    const paid = paymentHeader(await signPayment(account, echo));
    const post = (txid: string) => app.inject({ method: 'POST', url: '/v1/echo', payload: { txid }, headers: { 'payment-signature': paid } });
    expect((await post('a'.repeat(64))).statusCode).toBe(200);
    const elsewhere = await post('b'.repeat(64));
    expect(elsewhere.statusCode).toBe(402);
    expect(challengeOf(elsewhere).error).toBe(PaymentError.NONCE_USED);
    expect(app.served()).toBe(2);
  });

  it('behavior: 20 concurrent copies of one authorization run the handler once and are charged once', async () => {
    const header = paymentHeader(await signPayment(account, requirementFor(await challenge())));
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(header)));
    const ok = results.filter((r) => r.statusCode === 200);
    const first = ok.find((r) => r.headers['x-payment-idempotent-replay'] === undefined);
    expect(ok.filter((r) => r.headers['x-payment-idempotent-replay'] === undefined)).toHaveLength(1);
    for (const r of ok) expect(r.body).toBe(first!.body);
    // The others: the replayed answer, or come back in a moment; never a 402 that would make a client pay again.
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      expect(r.statusCode).toBe(409);
      expect(r.json().error.code).toBe('PAYMENT_IN_PROGRESS');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(app.served()).toBe(1);
    expect(app.payments.ledgerCounts().unsettled).toBe(1);
  });

  it('behavior: nothing is charged when the handler fails, and the same authorization can be retried', async () => {
    const req = requirementFor(await challenge('/v1/fails'));
    const header = paymentHeader(await signPayment(account, req));
    const failed = await pay(header, '/v1/fails');
    expect(failed.statusCode).toBe(500);
    expect(failed.headers['payment-response']).toBeUndefined();
    expect(app.payments.ledgerCounts().unsettled).toBe(0);
    // The claim was given back: the same header is not refused as a replay.
    expect((await pay(header, '/v1/fails')).statusCode).toBe(500);
  });

  it('behavior: a client that goes away before the answer is not charged; its authorization stays usable', async () => {
    const { request } = await import('node:http');
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    // The challenge of the server the client talks to: the payment is bound to its URL.
    const offer = challengeOf({ headers: { 'payment-required': (await fetch(`${base}/v1/slow`)).headers.get('payment-required') } });
    const header = paymentHeader(await signPayment(account, requirementFor(offer)));
    const entered = app.slowEntered();
    const req = request(`${base}/v1/slow`, { headers: { 'payment-signature': header } });
    req.on('error', () => undefined);
    req.end();
    const { closed } = await entered;
    req.destroy();
    await closed;
    app.releaseSlow();
    // The same authorization is accepted again once the abandoned request has given its claim back.
    let res: Response | null = null;
    for (let i = 0; i < 200 && res?.status !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 10));
      const inside = app.slowEntered();
      const p = fetch(`${base}/v1/slow`, { headers: { 'payment-signature': header } });
      await Promise.race([p, inside.then(() => app.releaseSlow())]);
      res = await p;
    }
    expect(res!.status).toBe(200);
    expect(app.payments.ledgerCounts().unsettled).toBe(1);
  });

  it('behavior: a JSON-RPC answer with nothing chargeable releases the claim', async () => {
    const body = [{ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ['x'] }];
    const req = requirementFor(await challenge('/v1/rpc', 'POST', body));
    const header = paymentHeader(await signPayment(account, req));
    const first = await app.inject({ method: 'POST', url: '/v1/rpc', payload: body, headers: { 'payment-signature': header } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['payment-response']).toBeUndefined();
    const second = await app.inject({ method: 'POST', url: '/v1/rpc', payload: body, headers: { 'payment-signature': header } });
    expect(second.statusCode).toBe(200);
    expect(app.payments.ledgerCounts().unsettled).toBe(0);
  });

  it('behavior: a payment for one request does not pay for a pricier one', async () => {
    const cheap = requirementFor(await challenge());
    const header = paymentHeader(await signPayment(account, cheap));
    const res = await app.inject({ method: 'POST', url: '/v1/echo', payload: { txid: 'a'.repeat(64) }, headers: { 'payment-signature': header } });
    expect(res.statusCode).toBe(402);
    expect(challengeOf(res).error).toBe(PaymentError.NO_MATCH);
  });
});

describe('refusals', () => {
  const cases: Array<[string, (req: Awaited<ReturnType<typeof requirementFor>>) => Promise<unknown>, string]> = [
    ['wrong network', async (req) => signPayment(account, { ...req, network: 'eip155:137' }), PaymentError.NETWORK],
    ['accepted not matching (amount)', async (req) => signPayment(account, req, {}, { accepted: { ...req, amount: '1' } }), PaymentError.NO_MATCH],
    [
      'accepted not matching (payTo)',
      async (req) => signPayment(account, req, {}, { accepted: { ...req, payTo: '0x000000000000000000000000000000000000dEaD' } }),
      PaymentError.NO_MATCH,
    ],
    [
      'accepted not matching (extra)',
      async (req) => signPayment(account, req, {}, { accepted: { ...req, extra: { name: 'USDC', version: '2' } } }),
      PaymentError.NO_MATCH,
    ],
    ['scheme', async (req) => signPayment(account, req, {}, { accepted: { ...req, scheme: 'upto' } }), PaymentError.SCHEME],
    [
      'wrong payTo in the authorization',
      async (req) => signPayment(account, req, { to: '0x000000000000000000000000000000000000dEaD' }),
      PaymentError.RECIPIENT,
    ],
    ['value too low', async (req) => signPayment(account, req, { value: '999' }), PaymentError.VALUE],
    ['value too high', async (req) => signPayment(account, req, { value: '1001' }), PaymentError.VALUE],
    ['expired', async (req) => signPayment(account, req, { validBefore: String(Math.floor(Date.now() / 1000) - 1) }), PaymentError.VALID_BEFORE],
    [
      'expires within the margin',
      async (req) => signPayment(account, req, { validBefore: String(Math.floor(Date.now() / 1000) + 3) }),
      PaymentError.VALID_BEFORE,
    ],
    ['not yet valid', async (req) => signPayment(account, req, { validAfter: String(Math.floor(Date.now() / 1000) + 120) }), PaymentError.VALID_AFTER],
    [
      'absurdly long window',
      async (req) => signPayment(account, req, { validBefore: String(Math.floor(Date.now() / 1000) + 30 * 86400) }),
      PaymentError.WINDOW,
    ],
    ['foreign signature (signed by another key)', async (req) => signPayment(account, req, {}, { signer: newAccount() }), PaymentError.SIGNATURE],
    ['signature under another domain', async (req) => signPayment(account, req, {}, { domainName: 'USDC' }), PaymentError.SIGNATURE],
    [
      'tampered value after signing',
      async (req) => {
        const p = await signPayment(account, { ...req, amount: '1' });
        return { ...p, accepted: req, payload: { ...p.payload, authorization: { ...p.payload.authorization, value: req.amount } } };
      },
      PaymentError.SIGNATURE,
    ],
    [
      'bad signature bytes',
      async (req) => {
        const p = await signPayment(account, req);
        return { ...p, payload: { ...p.payload, signature: `0x${'11'.repeat(65)}` } };
      },
      PaymentError.SIGNATURE,
    ],
    [
      'version 1 payload',
      async (req) => ({ x402Version: 1, scheme: 'exact', network: 'base', payload: (await signPayment(account, req)).payload }),
      PaymentError.VERSION_1,
    ],
    ['version 3 payload', async (req) => ({ ...(await signPayment(account, req)), x402Version: 3 }), PaymentError.VERSION],
  ];
  for (const [name, make, error] of cases) {
    it(`error: ${name} → 402 ${error}`, async () => {
      const req = requirementFor(await challenge());
      const res = await pay(paymentHeader(await make(req)));
      expect(res.statusCode).toBe(402);
      const c = challengeOf(res);
      expect(c.error).toBe(error);
      expect(res.json()).toEqual(c);
      expect(c.accepts.length).toBe(3);
      expect(app.served()).toBe(0);
    });
  }

  it('error: a v1 X-PAYMENT header alone is refused with its own error', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/paid', headers: { 'x-payment': 'e30=' } });
    expect(challengeOf(res).error).toBe(PaymentError.VERSION_1);
  });

  const malformed: Array<[string, string]> = [
    ['garbage base64', '%%%not base64%%%'],
    ['base64 of not-JSON', Buffer.from('hello').toString('base64')],
    ['base64url alphabet', Buffer.from(JSON.stringify({ x402Version: 2, a: '???>>>' })).toString('base64url')],
    ['JSON without a version', Buffer.from('{"a":1}').toString('base64')],
    ['v2 payload of the wrong shape', Buffer.from(JSON.stringify({ x402Version: 2, accepted: {}, payload: {} })).toString('base64')],
    ['oversized header', 'A'.repeat(MAX_PAYMENT_HEADER_CHARS + 4)],
  ];
  for (const [name, header] of malformed) {
    it(`error: PAYMENT_MALFORMED ${name} → 400`, async () => {
      const res = await pay(header);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'PAYMENT_MALFORMED' } });
      expect(app.served()).toBe(0);
    });
  }
});

describe('payment-identifier', () => {
  const ext = (id: string) => ({ 'payment-identifier': { info: { required: false, id } } });

  it('behavior: same id and same payload → the cached answer, charged once', async () => {
    const req = requirementFor(await challenge());
    const header = paymentHeader(await signPayment(account, req, {}, { extensions: ext('pay_0123456789abcdef0123') }));
    const first = await pay(header);
    const second = await pay(header);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['payment-response']).toBe(first.headers['payment-response']);
    expect(second.headers['x-payment-idempotent-replay']).toBe('true');
    expect(app.served()).toBe(1);
    expect(app.payments.ledgerCounts().unsettled).toBe(1);
  });

  it('behavior: concurrent retries with one id and one payload are served once (others: 409 in progress or the cached answer)', async () => {
    const req = requirementFor(await challenge());
    const header = paymentHeader(await signPayment(account, req, {}, { extensions: ext('pay_concurrent_0123456789') }));
    const results = await Promise.all(Array.from({ length: 8 }, () => pay(header)));
    expect(app.served()).toBe(1);
    for (const r of results) {
      if (r.statusCode === 409) expect(r.json().error.code).toBe('PAYMENT_IN_PROGRESS');
      else expect(r.statusCode).toBe(200);
    }
    const later = await pay(header);
    expect(later.statusCode).toBe(200);
    expect(later.headers['x-payment-idempotent-replay']).toBe('true');
    expect(app.payments.ledgerCounts().unsettled).toBe(1);
  });

  it('error: PAYMENT_ID_CONFLICT same id with another payload → 409', async () => {
    const req = requirementFor(await challenge());
    const id = 'pay_conflict_0123456789';
    expect((await pay(paymentHeader(await signPayment(account, req, {}, { extensions: ext(id) })))).statusCode).toBe(200);
    const other = await pay(paymentHeader(await signPayment(account, req, {}, { extensions: ext(id) })));
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('PAYMENT_ID_CONFLICT');
    expect(app.served()).toBe(1);
  });

  it('error: PAYMENT_MALFORMED an id outside 16-128 [A-Za-z0-9_-] → 400', async () => {
    const req = requirementFor(await challenge());
    const res = await pay(paymentHeader(await signPayment(account, req, {}, { extensions: ext('short') })));
    expect(res.statusCode).toBe(400);
  });
});

describe('configuration', () => {
  it('behavior: PAYMENTS_ENABLED=false opens paid routes', async () => {
    const open = await stubApp({ config: testConfig({ DATA_DIR: tmp.dir, PAYMENTS_ENABLED: 'false' }) });
    try {
      expect((await open.inject({ method: 'GET', url: '/v1/paid' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('behavior: demo mode (no PAY_TO) offers the placeholder payTo and says so', async () => {
    const demo = await stubApp({ config: testConfig({ DATA_DIR: tmp.dir }), store: 'memory' });
    try {
      const c = challengeOf(await demo.inject({ method: 'GET', url: '/v1/paid' }));
      expect(c.accepts[0]!.payTo).toBe('0x0000000000000000000000000000000000000402');
      expect(demo.payments.settlement).toBe('demo');
      expect(demo.payments.capabilities.payment).toMatchObject({ customerApiKeys: false, settlement: 'demo' });
      expect(demo.payments.capabilities.customerAuth).toBe('x402 only');
    } finally {
      await demo.close();
    }
  });

  it('error: assertPaymentConfig refuses a mainnet PAY_TO without a facilitator unless allowed', () => {
    const base = { DATA_DIR: tmp.dir, X402_NETWORKS: 'eip155:8453,eip155:84532' };
    expect(() => assertPaymentConfig(testConfig({ ...base, PAY_TO }))).toThrow(ConfigError);
    expect(() => assertPaymentConfig(testConfig({ ...base, PAY_TO }))).toThrow(/X402_ALLOW_UNSETTLED/);
    expect(() => assertPaymentConfig(testConfig({ ...base, PAY_TO, X402_ALLOW_UNSETTLED: '1' }))).not.toThrow();
    expect(() => assertPaymentConfig(testConfig({ ...base, PAY_TO, X402_FACILITATOR_URL: 'https://facilitator.example' }))).not.toThrow();
    expect(() => assertPaymentConfig(testConfig({ ...base, PAY_TO, X402_NETWORKS: 'eip155:84532' }))).not.toThrow();
    expect(() => assertPaymentConfig(testConfig(base))).not.toThrow(); // demo mode
  });

  it('error: unknown or repeated networks in X402_NETWORKS are configuration errors', () => {
    expect(() => testConfig({ X402_NETWORKS: 'eip155:1' })).toThrow(/X402_NETWORKS/);
    expect(() => testConfig({ X402_NETWORKS: 'eip155:8453,eip155:8453' })).toThrow(/X402_NETWORKS/);
  });

  it('error: PAYMENT_ROUTE_UNPRICED a /v1/ route missing from the price table fails start-up', async () => {
    const app2 = await stubApp({ config: testConfig({ DATA_DIR: tmp.dir }), store: 'memory' });
    void app2.register(async (scope) => {
      scope.get('/v1/forgotten', async () => ({}));
    });
    await expect(app2.ready()).rejects.toThrow(/GET \/v1\/forgotten/);
    await app2.close().catch(() => undefined);
  });
});
