/**
 * The stock x402 client (@x402/fetch + @x402/evm, throwaway key) paying real HTTP requests on
 * loopback: a REST route, a JSON-RPC call, and a viem public client whose transport fetch pays.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, PAY_TO, stubApp, tempDir, testConfig } from './helpers.js';

describe('stock x402 client', () => {
  let tmp: ReturnType<typeof tempDir>;
  let app: Awaited<ReturnType<typeof stubApp>>;
  let base: string;
  const account = newAccount();
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  const payingFetch = wrapFetchWithPayment(fetch, client);

  beforeAll(async () => {
    tmp = tempDir();
    app = await stubApp({ config: testConfig({ DATA_DIR: tmp.dir, PAY_TO }) });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    tmp.remove();
  });

  it('default: pays a REST route and gets 200 with PAYMENT-RESPONSE', async () => {
    const res = await payingFetch(`${base}/v1/paid`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true });
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453', payer: account.address });
    expect(res.headers.get('access-control-expose-headers')).toContain('PAYMENT-RESPONSE');
  });

  it('behavior: pays a JSON-RPC call (price from the body) and gets 200 with PAYMENT-RESPONSE', async () => {
    const res = await payingFetch(`${base}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x2a' });
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).success).toBe(true);
  });

  it('behavior: a stock viem public client with a paying transport fetch calls eth_blockNumber', async () => {
    const publicClient = createPublicClient({ transport: http(`${base}/v1/rpc`, { fetchFn: payingFetch, retryCount: 0 }) });
    expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(42n);
  });

  it('behavior: its header sent again is answered again without a second charge, and refused on another route', async () => {
    let sent: string | null = null;
    const spying = wrapFetchWithPayment(async (input: string | URL | Request, init?: RequestInit) => {
      const req = new Request(input, init);
      sent ??= req.headers.get('payment-signature');
      return fetch(req);
    }, client);
    const before = app.payments.ledgerCounts().unsettled;
    expect((await spying(`${base}/v1/paid`)).status).toBe(200);
    expect(sent).toBeTruthy();
    const again = await fetch(`${base}/v1/paid`, { headers: { 'payment-signature': sent! } });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-payment-idempotent-replay')).toBe('true');
    expect(app.payments.ledgerCounts().unsettled).toBe(before + 1);
    const replay = await fetch(`${base}/v1/echo`, {
      method: 'POST',
      headers: { 'payment-signature': sent!, 'content-type': 'application/json' },
      body: JSON.stringify({ txid: 'a'.repeat(64) }),
    });
    expect(replay.status).toBe(402);
  });
});
