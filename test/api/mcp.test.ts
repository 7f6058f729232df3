/**
 * The MCP endpoint, as an agent meets it: the official MCP SDK client over Streamable HTTP connects,
 * lists every tool (generated from the registry), calls a free tool, gets the x402 payment-required
 * result for a priced tool, pays it with the stock x402 EVM signer, and gets the answer with the
 * settlement in `_meta`. A payment is single-use and bound to its tool: replayed on another tool, or
 * made for tool A and offered to tool B, it buys nothing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serviceRegistry } from '../../src/api/registry.js';
import { buildTools } from '../../src/api/mcp/tools.js';
import { newAccount, PAY_TO } from '../payments/helpers.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

/** The MCP messages and answers up to the first paid call, for the closing transcript (long answers cut). */
const transcript: string[] = [];
let recording = true;
const cut = (text: string) => (text.length > 700 ? `${text.slice(0, 700)}… (${text.length} characters)` : text);

async function connect(base: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (recording && init?.method === 'POST') {
        transcript.push(`→ POST /mcp ${cut(typeof init.body === 'string' ? init.body : '')}`);
        transcript.push(`← ${res.status} ${cut(await res.clone().text())}`);
      }
      return res;
    },
  });
  await client.connect(transport);
  return client;
}

/** A paying world (demo PAY_TO) with extra `env`, listening, and an SDK client connected to it. */
async function startMcp(env: Record<string, string>, initialTxs: number): Promise<{ world: TestWorld; base: string; client: Client }> {
  const world = await startTestWorld({ initialTxs, env: { PAYMENTS_ENABLED: 'true', PAY_TO, HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000', ...env } });
  await refresh(world);
  const base = await world.app.listen({ host: '127.0.0.1', port: 0 });
  return { world, base, client: await connect(base) };
}

describe('MCP at /mcp (official SDK client, x402 MCP transport)', () => {
  let world: TestWorld;
  let base: string;
  let client: Client;
  const account = newAccount();
  const payer = new x402Client().register('eip155:*', new ExactEvmScheme(account));

  const callTool = async (name: string, args: Record<string, unknown>, payment?: PaymentPayload) =>
    (await client.callTool({ name, arguments: args, ...(payment ? { _meta: { 'x402/payment': payment } } : {}) })) as CallToolResult;

  const paymentRequiredOf = (result: CallToolResult): PaymentRequired => {
    expect(result.isError).toBe(true);
    const challenge = result.structuredContent as unknown as PaymentRequired;
    expect(challenge.x402Version).toBe(2);
    // Both forms, identical, as the x402 MCP transport requires.
    const first = result.content[0];
    expect(first?.type === 'text' ? JSON.parse(first.text) : null).toEqual(challenge);
    return challenge;
  };

  beforeAll(async () => {
    ({ world, base, client } = await startMcp({}, 50));
  });
  afterAll(async () => {
    await client?.close();
    await world.close();
    console.log(`MCP session transcript (initialize → list → paid call):\n${transcript.join('\n')}`);
  });

  it('default: initialize names the server; tools/list has one tool per registry route and method, each with its price', async () => {
    expect(client.getServerVersion()?.name).toBe('Bitcoin data and fee-intelligence API');
    const { tools } = await client.listTools();
    const expected = buildTools(serviceRegistry());
    expect(tools.map((t) => t.name).sort()).toEqual([...expected.keys()].sort());
    for (const tool of tools) {
      const price = expected.get(tool.name)?.priceUsd;
      expect(tool.description, tool.name).toContain(price === 0 ? 'Free.' : `Price: ${price} USD per call`);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.openWorldHint).toBe(true);
    }
    expect(tools.find((t) => t.name === 'block_height')?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'bitcoin_insight')?.annotations?.readOnlyHint).toBe(false);
  });

  it('behavior: a free tool answers without payment, its structured content checked by the client against the output schema', async () => {
    const result = await callTool('template_health', {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ success: true });
    expect(result._meta?.['x402/payment-response']).toBeUndefined();
    const chain = await callTool('eth_chainId', {});
    expect(chain.structuredContent).toEqual({ result: expect.stringMatching(/^0x[0-9a-f]+$/) });
  });

  it('behavior: a priced tool without payment answers the PaymentRequired object; paid, it answers with the settlement in _meta', async () => {
    const unpaid = await callTool('block_height', {});
    const challenge = paymentRequiredOf(unpaid);
    expect(challenge.accepts[0]).toMatchObject({ scheme: 'exact', amount: '1000', payTo: PAY_TO, extra: { route: 'GET /v1/block-height' } });
    expect(challenge.resource?.url).toBe(`${base}/v1/block-height`);
    const ledgerBefore = world.app.payments.ledgerCounts().unsettled;

    const payment = await payer.createPaymentPayload(challenge);
    const paid = await callTool('block_height', {}, payment);
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toEqual({ success: true, height: await world.node.getBlockCount(), hex: expect.any(String) });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, network: 'eip155:8453', payer: account.address, amount: '1000' });
    expect(world.app.payments.ledgerCounts().unsettled).toBe(ledgerBefore + 1);
    recording = false;

    // The same call with the same payment (a lost answer) is answered again, not charged again.
    const again = await callTool('block_height', {}, payment);
    expect(again.structuredContent).toMatchObject({ success: true });
    expect(world.app.payments.ledgerCounts().unsettled).toBe(ledgerBefore + 1);
  });

  it('behavior: a used payment replayed on another tool gets no second answer', async () => {
    const payment = await payer.createPaymentPayload(paymentRequiredOf(await callTool('eth_blockNumber', {})));
    expect((await callTool('eth_blockNumber', {}, payment)).isError).toBeFalsy();
    const replay = await callTool('eth_gasPrice', {}, payment);
    const refused = paymentRequiredOf(replay);
    expect(refused.error).toMatch(/no_matching_payment_requirements|nonce_already_used/);
    expect(replay.structuredContent).not.toHaveProperty('result');
    // The same method with other arguments: the same URL and method names, so it is the nonce that refuses it.
    const ladder = await payer.createPaymentPayload(paymentRequiredOf(await callTool('svc_feeLadder', { request: { targetBlocks: 2 } })));
    expect((await callTool('svc_feeLadder', { request: { targetBlocks: 2 } }, ladder)).structuredContent).toMatchObject({ result: { targetBlocks: 2 } });
    const other = await callTool('svc_feeLadder', { request: { targetBlocks: 3 } }, ladder);
    expect(paymentRequiredOf(other).error).toBe('invalid_exact_evm_nonce_already_used');
  });

  it('behavior: a payment for tool A does not pay tool B at the same price, and stays usable for A', async () => {
    const forHeight = await payer.createPaymentPayload(paymentRequiredOf(await callTool('block_height', {})));
    const onFees = await callTool('mempool_stats', {}, forHeight);
    expect(paymentRequiredOf(onFees).error).toBe('no_matching_payment_requirements');
    // Same tool, other arguments: the quoted resource names the arguments.
    const txids = (await world.node.getRawMempoolTxids()).slice(0, 2);
    const forTx = await payer.createPaymentPayload(paymentRequiredOf(await callTool('tx', { txid: txids[0] })));
    expect(paymentRequiredOf(await callTool('tx', { txid: txids[1] }, forTx)).error).toBe('payment_resource_mismatch');
    expect((await callTool('block_height', {}, forHeight)).isError).toBeFalsy();
  });

  it('behavior: bad arguments are refused before any payment is asked', async () => {
    const bad = await callTool('tx', { txid: 'nothex' });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ success: false, error: { code: expect.stringMatching(/INVALID/) } });
    const unknown = await callTool('block_height', { verbose: true });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toEqual({ success: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('verbose') } });
  });

  it('error: GET is 405 (no sessions); a body that is not MCP is a JSON-RPC error, never a crash; an unknown tool is a tool error', async () => {
    const get = await fetch(`${base}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const post = (body: string) =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    const garbage = await post(JSON.stringify({ hello: 'world' }));
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    expect((await post('{"jsonrpc":')).status).toBe(400);
    const unknown = await callTool('no_such_tool', {});
    expect(unknown).toMatchObject({ isError: true, structuredContent: { success: false, error: { code: 'NOT_FOUND' } } });
  });

  it('error: a client mistake is invalid params (-32602), an unknown resource -32002, never an internal error', async () => {
    const post = async (message: unknown) => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...(message as object) }),
      });
      return (await res.json()) as { error?: { code: number; message: string } };
    };
    for (const [params, where] of [
      [undefined, 'params:'],
      [{ name: 'block_height', arguments: 'str' }, 'params.arguments:'],
      [{ arguments: {} }, 'params.name:'],
    ] as const) {
      const { error } = await post({ method: 'tools/call', params });
      expect(error?.code, JSON.stringify(params)).toBe(-32602);
      // One line naming the first problem, not the validator's whole report.
      expect(error?.message, JSON.stringify(params)).toContain(`invalid params: ${where}`);
      expect(error?.message).not.toContain('\n');
    }
    expect((await post({ method: 'resources/read' })).error?.code).toBe(-32602);
    const missing = await post({ method: 'resources/read', params: { uri: 'nope://x' } });
    expect(missing.error).toMatchObject({ code: -32002, message: expect.stringContaining('nope://x') });
    await expect(client.readResource({ uri: `${base}/no-such-document` })).rejects.toMatchObject({ code: -32002 });
    // An empty batch is one Invalid Request (JSON-RPC 2.0), not a silent 202.
    const empty = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '[]',
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    // A body that is not JSON is a JSON-RPC parse error; other refusals keep the service's own body.
    for (const body of ['{"jsonrpc":', '']) {
      const broken = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
      expect(broken.status, body).toBe(400);
      expect(await broken.json(), body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    }
    const wrongType = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('behavior: the public documents are resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([`${base}/openrpc.json`, `${base}/llms.txt`, `${base}/AGENTS.md`]));
    const read = await client.readResource({ uri: `${base}/openrpc.json` });
    const first = read.contents[0];
    expect(first && 'text' in first ? JSON.parse(first.text).openrpc : null).toBe('1.2.6');
  });

  it('behavior: /llms.txt and /AGENTS.md tell an agent where the MCP server is and how to add it', async () => {
    expect(await (await fetch(`${base}/llms.txt`)).text()).toContain(`connect to ${base}/mcp`);
    const agents = await (await fetch(`${base}/AGENTS.md`)).text();
    expect(agents).toContain('## Use it as MCP tools');
    expect(agents).toContain(`"url": "${base}/mcp"`);
    expect(agents).toContain('_meta["x402/payment"]');
  });
});

describe('MCP and the rate limits (issue 21: a payer can always pay)', () => {
  let world: TestWorld;
  let base: string;
  let client: Client;
  const payer = new x402Client().register('eip155:*', new ExactEvmScheme(newAccount()));

  beforeAll(async () => {
    ({ world, base, client } = await startMcp({ RATE_LIMIT_MAX: '8', RATE_LIMIT_WINDOW_SEC: '600' }, 20));
  });
  afterAll(async () => {
    await client?.close();
    await world.close();
  });

  it('behavior: past the unpaid budget, a paid tool call is answered; other MCP messages are unpaid and limited', async () => {
    const call = async (payment?: PaymentPayload) =>
      (await client.callTool({ name: 'block_height', arguments: {}, ...(payment ? { _meta: { 'x402/payment': payment } } : {}) })) as CallToolResult;
    const challenge = (await call()).structuredContent as unknown as PaymentRequired;
    // Spend this address's unpaid budget on a free route.
    let status = 200;
    for (let i = 0; i < 20 && status !== 429; i++) status = (await fetch(`${base}/v1/template/health`)).status;
    expect(status).toBe(429);
    // The payer still pays and is answered: the MCP message is counted as the paid request it carries.
    const paid = await call(await payer.createPaymentPayload(challenge));
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ success: true });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    // A message that is not a tool call is unpaid: limited like any free request.
    await expect(client.listTools()).rejects.toThrow(/429|RATE_LIMITED|Too Many/i);
  });
});
