/**
 * Strict inputs (issue 21 item 2, DESIGN §5): an unknown query parameter, body field or JSON-RPC
 * param field is refused with 400 UNKNOWN_PARAMETER / -32602 naming it and the accepted ones,
 * before payment (a paid world: the answer is 400, not the 402 challenge) and before any work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/api/docs/openapi.js';
import { serviceRegistry } from '../../src/api/registry.js';
import { first } from '../helpers/first.js';
import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';
let paid: TestWorld;
let txid: string;
beforeAll(async () => {
  paid = await startTestWorld({ seed: 8, initialTxs: 60, env: { PAYMENTS_ENABLED: 'true', PAY_TO, X402_NETWORKS: 'eip155:84532' } });
  await refresh(paid);
  txid = first([...paid.app.mempool.mirror.txs.keys()]);
});
afterAll(() => paid?.close());

describe('REST: unknown parameters are 400 UNKNOWN_PARAMETER before payment', () => {
  it('GET /v1/fee-estimate?target=3 names target and the accepted blocks', async () => {
    const res = await paid.app.inject({ method: 'GET', url: '/v1/fee-estimate?target=3' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('UNKNOWN_PARAMETER');
    expect(res.json().error.message).toContain('"target"');
    expect(res.json().error.message).toContain('accepted: blocks');
  });

  it('POST /v1/template/check {txid, targetBlock} names targetBlock and the accepted fields', async () => {
    const res = await paid.app.inject({ method: 'POST', url: '/v1/template/check', payload: { txid, targetBlock: 1 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('UNKNOWN_PARAMETER');
    expect(res.json().error.message).toContain('"targetBlock"');
    expect(res.json().error.message).toContain('accepted: txid, targetBlocks');
  });

  it('a paid route without query parameters refuses any', async () => {
    const res = await paid.app.inject({ method: 'GET', url: '/v1/block-height?verbose=1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('UNKNOWN_PARAMETER');
    expect(res.json().error.message).toContain('"verbose"');
  });

  it('an unknown parameter is refused before the txid is looked up: 400, not 404, on every route taking a txid', async () => {
    const unknownTxid = 'ab'.repeat(32);
    for (const url of [`/v1/tx/${unknownTxid}?x=1`, `/v1/mempool/tx/${unknownTxid}?x=1`, `/v1/mempool/tx/${unknownTxid}/replacements?x=1`]) {
      const res = await paid.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code, url).toBe('UNKNOWN_PARAMETER');
    }
    expect((await paid.app.inject({ method: 'GET', url: `/v1/tx/${unknownTxid}` })).statusCode).toBe(404);
  });

  it('an optional body with an unknown field is refused too; the known request still asks for payment', async () => {
    const bad = await paid.app.inject({ method: 'POST', url: '/v1/template/fee-ladder', payload: { target: 3 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('UNKNOWN_PARAMETER');
    const good = await paid.app.inject({ method: 'GET', url: '/v1/fee-estimate?blocks=3' });
    expect(good.statusCode).toBe(402);
  });
});

describe('JSON-RPC: unknown param fields are -32602 before payment', () => {
  it('svc_feeLadder [{targetBlock: 3}]', async () => {
    const res = await paid.app.inject({
      method: 'POST',
      url: '/v1/rpc',
      payload: { jsonrpc: '2.0', id: 1, method: 'svc_feeLadder', params: [{ targetBlock: 3 }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().error.code).toBe(-32602);
    expect(res.json().error.message).toContain('"targetBlock"');
    expect(res.json().error.message).toContain('accepted: targetBlocks');
  });

  it('svc_templateCheck with an extra field', async () => {
    const res = await paid.app.inject({
      method: 'POST',
      url: '/v1/rpc',
      payload: { jsonrpc: '2.0', id: 1, method: 'svc_templateCheck', params: [{ txid, targetBlocks: 2, verbose: true }] },
    });
    expect(res.json().error.code).toBe(-32602);
    expect(res.json().error.message).toContain('"verbose"');
  });
});

describe('OpenAPI', () => {
  it('request objects say additionalProperties: false', () => {
    const doc = buildOpenApi(serviceRegistry(), 'http://localhost');
    const check = doc.paths['/v1/template/check']?.post as { requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } } };
    const schema = check.requestBody.content['application/json'].schema;
    const resolved = typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.split('/').pop() ?? ''] : schema;
    expect(resolved?.additionalProperties).toBe(false);
  });
});
