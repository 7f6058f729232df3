/**
 * Issue 15 on the real application (buildApp, the real routes and JSON-RPC dispatch) over HTTP on
 * the simulated node: a JSON-RPC batch with a failed priced call is not charged, a payment is bound
 * to the route, URL and methods it was offered for, HEAD on a paid route is never charged, and the
 * challenge, capabilities and /health say that this local mode never settles on chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { EsploraAddressSource } from '../../src/node/esploraAddressSource.js';
import { PaymentError } from '../../src/payments/verify.js';
import { listenPaidApp, type PaidApp } from './paidApp.js';
import { challengeOf, newAccount, paymentHeader, requirementFor, signPayment } from './helpers.js';

const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

describe('payments on the real app', () => {
  let app: App;
  let base: string;
  const account = newAccount();

  let world: PaidApp | undefined;
  beforeAll(async () => {
    world = await listenPaidApp({
      seed: 12,
      initialTxs: 20,
      // The address index is down (nothing listens on port 9): balance calls fail with a server error.
      addressSource: () => new EsploraAddressSource('http://127.0.0.1:9', 1000),
      checkResponses: true,
    });
    ({ app, base } = world);
  });
  afterAll(() => world?.close());

  async function offer(path: string, init: RequestInit = {}) {
    const res = await fetch(`${base}${path}`, init);
    expect(res.status).toBe(402);
    return challengeOf({ headers: { 'payment-required': res.headers.get('payment-required') } });
  }
  const rpc = (body: unknown, header?: string) =>
    fetch(`${base}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(header ? { 'payment-signature': header } : {}) },
      body: JSON.stringify(body),
    });

  it('behavior: a JSON-RPC batch with one failed priced call is answered as it is, free, and its payment can be used again', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [ADDRESS] },
    ];
    const challenge = challengeOf({ headers: { 'payment-required': (await rpc(batch)).headers.get('payment-required') } });
    expect(requirementFor(challenge).extra).toMatchObject({ route: 'POST /v1/rpc', methods: ['eth_blockNumber', 'eth_getBalance'] });
    const header = paymentHeader(await signPayment(account, requirementFor(challenge)));
    const before = app.payments.ledgerCounts().unsettled;
    for (let round = 0; round < 2; round++) {
      const res = await rpc(batch, header);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Array<{ id: number; result?: string; error?: { code: number } }>;
      expect(body.find((r) => r.id === 1)?.result).toMatch(/^0x[0-9a-f]+$/);
      expect(body.find((r) => r.id === 2)?.error?.code).toBe(-32000);
      expect(res.headers.get('x-payment-charged')).toBe('false');
      expect(res.headers.get('payment-response')).toBeNull();
      expect(app.payments.ledgerCounts().unsettled).toBe(before);
    }
  });

  it('behavior: an unknown txid and a block above the tip are answered null before payment, free; in a batch only the rest is priced', async () => {
    const unknown = { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [`0x${'ab'.repeat(32)}`] };
    const aboveTip = { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['0xffffff', false] };
    const before = app.payments.ledgerCounts().unsettled;
    for (const call of [unknown, aboveTip, [unknown, aboveTip]]) {
      const res = await rpc(call);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result?: unknown } | Array<{ result?: unknown }>;
      for (const answer of Array.isArray(body) ? body : [body]) expect(answer).toMatchObject({ result: null });
      expect(res.headers.get('payment-response')).toBeNull();
    }
    // Beside a priced call, the null one is not in the price nor in the methods the payment is bound to.
    const batch = [unknown, { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] }];
    const challenge = challengeOf({ headers: { 'payment-required': (await rpc(batch)).headers.get('payment-required') } });
    expect(requirementFor(challenge).extra).toMatchObject({ methods: ['eth_blockNumber'] });
    const alone = challengeOf({ headers: { 'payment-required': (await rpc({ ...batch[1] })).headers.get('payment-required') } });
    expect(requirementFor(challenge).amount).toBe(requirementFor(alone).amount);
    const res = await rpc(batch, paymentHeader(await signPayment(account, requirementFor(challenge))));
    const body = (await res.json()) as Array<{ id: number; result?: unknown }>;
    expect(body.find((r) => r.id === 1)?.result).toBeNull();
    expect(body.find((r) => r.id === 3)?.result).toMatch(/^0x[0-9a-f]+$/);
    expect(app.payments.ledgerCounts().unsettled).toBe(before + 1);
  });

  it('behavior: a batch whose every priced call succeeded is charged once', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ];
    const challenge = challengeOf({ headers: { 'payment-required': (await rpc(batch)).headers.get('payment-required') } });
    const before = app.payments.ledgerCounts().unsettled;
    const res = await rpc(batch, paymentHeader(await signPayment(account, requirementFor(challenge))));
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-response')).not.toBeNull();
    expect(res.headers.get('x-payment-charged')).toBeNull();
    expect(app.payments.ledgerCounts().unsettled).toBe(before + 1);
  });

  it('error: a payment made for /v1/block-height is refused on /v1/mempool/stats (same price)', async () => {
    const header = paymentHeader(await signPayment(account, requirementFor(await offer('/v1/block-height'))));
    const res = await fetch(`${base}/v1/mempool/stats`, { headers: { 'payment-signature': header } });
    expect(res.status).toBe(402);
    expect(challengeOf({ headers: { 'payment-required': res.headers.get('payment-required') } }).error).toBe(PaymentError.NO_MATCH);
    // It still pays for what it was made for.
    expect((await fetch(`${base}/v1/block-height`, { headers: { 'payment-signature': header } })).status).toBe(200);
  });

  it('error: a JSON-RPC payment made for eth_blockNumber is refused for eth_gasPrice (same price)', async () => {
    const challenge = challengeOf({
      headers: { 'payment-required': (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).headers.get('payment-required') },
    });
    const header = paymentHeader(await signPayment(account, requirementFor(challenge)));
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] }, header);
    expect(res.status).toBe(402);
    expect(challengeOf({ headers: { 'payment-required': res.headers.get('payment-required') } }).error).toBe(PaymentError.NO_MATCH);
  });

  it('error: a payment whose resource names another URL is refused', async () => {
    const challenge = await offer('/v1/block-height');
    const header = paymentHeader(
      await signPayment(account, requirementFor(challenge), {}, { resource: { ...challenge.resource, url: `${base}/v1/mempool/stats` } }),
    );
    const res = await fetch(`${base}/v1/block-height`, { headers: { 'payment-signature': header } });
    expect(res.status).toBe(402);
    expect(challengeOf({ headers: { 'payment-required': res.headers.get('payment-required') } }).error).toBe(PaymentError.RESOURCE);
  });

  it('behavior: without TRUST_PROXY a client-supplied X-Forwarded-Host never enters the quoted resource', async () => {
    const challenge = await offer('/v1/block-height', { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } });
    expect(challenge.resource.url).toBe(`${base}/v1/block-height`);
  });

  it('behavior: HEAD on a paid route answers 405 and is never charged, even with a valid payment', async () => {
    const header = paymentHeader(await signPayment(account, requirementFor(await offer('/v1/block-height'))));
    const before = app.payments.ledgerCounts().unsettled;
    const head = await fetch(`${base}/v1/block-height`, { method: 'HEAD', headers: { 'payment-signature': header } });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toContain('GET');
    expect(head.headers.get('payment-response')).toBeNull();
    expect(app.payments.ledgerCounts().unsettled).toBe(before);
  });

  it('behavior: the challenge, capabilities and /health say in one field that this mode never settles on chain', async () => {
    expect((await offer('/v1/block-height')).settlement).toBe('local-unsettled');
    const caps = (await (await fetch(`${base}/v1/template/capabilities`)).json()) as { payment: { settlement: string } };
    expect(caps.payment.settlement).toBe('local-unsettled');
    const health = (await (await fetch(`${base}/health`)).json()) as { payments: { settlement: string } };
    expect(health.payments.settlement).toBe('local-unsettled');
  });
});
