/**
 * The real application (buildApp, the real routes) on the embedded simulated node, paid by the
 * stock x402 client over HTTP on 127.0.0.1:0: a REST route, a JSON-RPC call, and a stock viem
 * public client whose transport fetch pays.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { SimnetHandle } from '../../src/simnet/index.js';
import { BitcoinNode } from '../../src/node/bitcoinNode.js';
import { PaymentError } from '../../src/payments/verify.js';
import { listenPaidApp, type PaidApp } from './paidApp.js';
import { challengeOf, newAccount, PAY_TO } from './helpers.js';

describe('stock x402 client against the real app on the simulated node', () => {
  let sim: SimnetHandle;
  let app: App;
  let base: string;
  const account = newAccount();
  const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));

  let world: PaidApp | undefined;
  beforeAll(async () => {
    world = await listenPaidApp({ seed: 11, initialTxs: 50 });
    ({ app, sim, base } = world);
  });
  afterAll(() => world?.close());

  it('default: GET /v1/block-height answers 402 with the challenge, then 200 once paid', async () => {
    const unpaid = await fetch(`${base}/v1/block-height`);
    expect(unpaid.status).toBe(402);
    const challenge = challengeOf({ headers: { 'payment-required': unpaid.headers.get('payment-required') } });
    expect(challenge.error).toBe(PaymentError.MISSING);
    expect(challenge.accepts[0]).toMatchObject({ network: 'eip155:8453', amount: '1000', payTo: PAY_TO });

    const res = await pay(`${base}/v1/block-height`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; height: number };
    expect(body.success).toBe(true);
    expect(body.height).toBe(await new BitcoinNode({ url: sim.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 5000 }).getBlockCount());
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true, payer: account.address });
  });

  it('behavior: free routes answer without payment; a malformed request gets 400 before any payment', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const bad = await fetch(`${base}/v1/tx/not-a-txid`);
    expect(bad.status).toBe(400);
  });

  it('behavior: pays a JSON-RPC eth_blockNumber call', async () => {
    const res = await pay(`${base}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: string };
    expect(body.result).toMatch(/^0x[0-9a-f]+$/);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).success).toBe(true);
  });

  it('behavior: a stock viem public client with a paying transport reads eth_blockNumber', async () => {
    const client = createPublicClient({ transport: http(`${base}/v1/rpc`, { fetchFn: pay, retryCount: 0 }) });
    const height = await client.getBlockNumber({ cacheTime: 0 });
    expect(height).toBe(BigInt(await new BitcoinNode({ url: sim.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 5000 }).getBlockCount()));
    expect(app.payments.ledgerCounts().unsettled).toBeGreaterThanOrEqual(3);
  });
});
