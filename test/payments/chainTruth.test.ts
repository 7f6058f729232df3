/**
 * Issue 22.2: after a lost settle outcome, a re-settle refused as "already used" is judged by the
 * chain's truth, not marked failed. The first settle reaches the mock facilitator, which charges
 * the authorization but answers after our settle timeout (as when the process dies during the
 * call): the row is pending. The facilitator then refuses any re-settle of that authorization
 * (`invalid_exact_evm_nonce_already_used`, as a real one does), and a mock chain on loopback
 * answers the token's `authorizationState(authorizer, nonce)` from the facilitator's charges.
 */
import { createServer } from 'node:http';
import { decodeFunctionData, encodeFunctionResult, parseAbi } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { startMockFacilitator, type MockFacilitator } from '../helpers/mockFacilitator.js';
import { until } from './fixtures/paidProcess.js';
import { challengeOf, newAccount, PAY_TO, paymentHeader, requirementFor, signPayment, stubApp, tempDir, testConfig } from './helpers.js';

const ABI = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']);

interface MockChain {
  url: string;
  calls: number;
  /** Answers every authorization as unused (a chain that contradicts the facilitator). */
  sayUnused: boolean;
  close(): Promise<void>;
}

/** A JSON-RPC endpoint answering `eth_call` of `authorizationState` from the facilitator's charges. */
async function startMockChain(facilitator: MockFacilitator): Promise<MockChain> {
  const chain = { url: '', calls: 0, sayUnused: false, close: async () => undefined };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(text) as { id: number; method: string; params: [{ data: `0x${string}` }] };
      const reply = (body: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...body }));
      if (call.method !== 'eth_call') return reply({ error: { code: -32601, message: 'method not found' } });
      chain.calls++;
      const { args } = decodeFunctionData({ abi: ABI, data: call.params[0].data });
      const used = !chain.sayUnused && facilitator.charges.has(`${args[0]}:${args[1]}`.toLowerCase());
      reply({ result: encodeFunctionResult({ abi: ABI, functionName: 'authorizationState', result: used }) });
    });
  });
  const served = await listenOnLoopback(server);
  return Object.assign(chain, served);
}

let tmp: ReturnType<typeof tempDir>;
let mock: MockFacilitator;
let chain: MockChain;
const apps: Array<Awaited<ReturnType<typeof stubApp>>> = [];

beforeEach(async () => {
  tmp = tempDir();
  mock = await startMockFacilitator('slow', 1500);
  chain = await startMockChain(mock);
});
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  await chain.close();
  await mock.close();
  tmp.remove();
});

/** Pays once: served 200 with the settlement pending (its outcome lost), the authorization charged, then the facilitator refuses re-settles. */
async function paidPending(chainUrls: string | undefined) {
  const config = testConfig({
    DATA_DIR: tmp.dir,
    PAY_TO,
    X402_NETWORKS: 'eip155:8453',
    X402_FACILITATOR_URL: mock.url,
    X402_FACILITATOR_VERIFY: 'false',
    X402_FACILITATOR_SETTLE_TIMEOUT_MS: '300',
    ...(chainUrls ? { X402_CHAIN_RPC_URLS: chainUrls } : {}),
  });
  const app = await stubApp({ config, reconcileIntervalMs: 3_600_000 });
  apps.push(app);
  await app.ready();
  const requirement = requirementFor(challengeOf(await app.inject({ method: 'GET', url: '/v1/paid' })));
  const header = paymentHeader(await signPayment(newAccount(), requirement));
  const first = await app.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
  expect(first.statusCode).toBe(200);
  expect(app.payments.ledgerCounts()).toMatchObject({ pending: 1 });
  await until(() => mock.charges.size === 1, 'the facilitator charging the first settle');
  mock.mode = 'ok';
  mock.refuseUsed = true;
  return { app, header };
}

describe('settle by the chain’s truth after a lost settle outcome (issue 22.2)', () => {
  it('behavior: a re-settle refused as already used, with the authorization used on chain, is settled (not failed); the retry is answered', async () => {
    const { app, header } = await paidPending(`eip155:8453=${chain.url}`);
    expect(await app.payments.reconcile()).toMatchObject({ attempted: 1, settled: 1, failed: 0 });
    expect(app.payments.ledgerCounts()).toMatchObject({ pending: 0, settled: 1, failed: 0 });
    expect(chain.calls).toBe(1);
    const retry = await app.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(retry.statusCode).toBe(200);
    expect(mock.charges.size).toBe(1);
  });

  it('behavior: with no chain endpoint the payment stays pending (answered, retried), never failed', async () => {
    const { app, header } = await paidPending(undefined);
    expect(await app.payments.reconcile()).toMatchObject({ attempted: 1, settled: 0, failed: 0, pending: 1 });
    expect(app.payments.ledgerCounts()).toMatchObject({ pending: 1, failed: 0 });
    const retry = await app.inject({ method: 'GET', url: '/v1/paid', headers: { 'payment-signature': header } });
    expect(retry.statusCode).toBe(200);
  });

  it('behavior: an unreachable chain endpoint leaves it pending too', async () => {
    const { app } = await paidPending('eip155:8453=http://127.0.0.1:9');
    expect(await app.payments.reconcile()).toMatchObject({ settled: 0, failed: 0, pending: 1 });
  });

  it('error: a refused re-settle whose authorization is unused on chain is failed', async () => {
    const { app } = await paidPending(`eip155:8453=${chain.url}`);
    chain.sayUnused = true;
    expect(await app.payments.reconcile()).toMatchObject({ settled: 0, failed: 1 });
    expect(app.payments.ledgerCounts()).toMatchObject({ pending: 0, failed: 1 });
  });
});
