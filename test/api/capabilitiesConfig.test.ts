/**
 * Capabilities from the configuration (issue 21 item 8): every number capabilities states about
 * limits and cadence is the running configuration's. Started with non-default values; compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const ENV = {
  STREAM_TICKET_TTL_SECONDS: '120',
  RPC_BATCH_MAX: '7',
  BODY_LIMIT_BYTES: '50000',
  OPTIMIZER_INTERVAL_SEC: '17',
  OPTIMIZER_TIMEOUT_SEC: '9',
  OPTIMIZER_MAX_TX_COUNT: '1234',
};

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ seed: 2, initialTxs: 20, env: ENV });
});
afterAll(() => world?.close());

describe('capabilities state the running configuration', () => {
  it('limits and cadence', async () => {
    const body = (await world.app.inject({ method: 'GET', url: '/v1/template/capabilities' })).json();
    expect(body.limits).toMatchObject({ streamTicketTtlSeconds: 120, jsonRpcBatchMax: 7, bodyLimitBytes: 50_000 });
    expect(body.optimizerCache.cadence.fullIntervalSec).toBe(17);
    expect(body.optimizerCache).toMatchObject({ cacheIntervalSeconds: 17, timeoutSeconds: 9, request: { max_tx_count: 1234 } });
  });
});
