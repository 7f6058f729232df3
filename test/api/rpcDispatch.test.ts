/**
 * The JSON-RPC answer's chargeability (src/api/rpc/dispatch.ts): a priced call that answers null
 * (EVM's "not found", found only when it ran: the transaction left after the call was planned) is
 * not charged, as a failed call is not; a call answered null while planned is free and unpriced.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiContext, CallInfo, RpcMethod } from '../../src/api/define.js';
import { executeRpc, type RpcPlan } from '../../src/api/rpc/dispatch.js';

const ctx = { checkResponses: true, log: { error: () => undefined } } as unknown as ApiContext;
const info: CallInfo = { log: ctx.log, baseUrl: 'http://127.0.0.1' };

function method(name: string, answer: unknown): RpcMethod {
  return {
    kind: 'rpc',
    family: 'bitcoin',
    name,
    price: 0.001,
    summary: name,
    params: z.tuple([]),
    result: z.string().nullable(),
    errors: [],
    example: { params: [], result: null },
    run: () => Promise.resolve(answer),
  };
}

const plan = (...calls: RpcPlan['calls']): RpcPlan => ({ batch: calls.length > 1, calls, priceUsd: 0.001 * calls.length, methods: [] });

describe('JSON-RPC chargeability', () => {
  it('default: priced calls that all answered a value are chargeable', async () => {
    const answer = await executeRpc(plan({ id: 1, method: method('a', '0x1'), params: [], priceUsd: 0.001 }), ctx, info);
    expect(answer).toEqual({ body: { jsonrpc: '2.0', id: 1, result: '0x1' }, chargeable: true });
  });

  it('behavior: a priced call that answers null is not charged, alone or in a batch', async () => {
    const alone = await executeRpc(plan({ id: 1, method: method('a', null), params: [], priceUsd: 0.001 }), ctx, info);
    expect(alone).toEqual({ body: { jsonrpc: '2.0', id: 1, result: null }, chargeable: false });
    const batch = await executeRpc(
      plan({ id: 1, method: method('a', '0x1'), params: [], priceUsd: 0.001 }, { id: 2, method: method('b', null), params: [], priceUsd: 0.001 }),
      ctx,
      info,
    );
    expect(batch.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', id: 2, result: null },
    ]);
    expect(batch.chargeable).toBe(false);
  });

  it('behavior: a call found absent while planned is answered null and leaves the rest chargeable', async () => {
    const answer = await executeRpc(plan({ id: 1, absent: true }, { id: 2, method: method('a', '0x1'), params: [], priceUsd: 0.001 }), ctx, info);
    expect(answer.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', id: 2, result: '0x1' },
    ]);
    expect(answer.chargeable).toBe(true);
  });
});
