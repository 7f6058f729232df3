/**
 * `/metrics` counts what a Prometheus operator watches: requests by route pattern and status,
 * payments by outcome, optimizer cycles by phase, and the live size of the mempool view.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { refresh, startTestWorld, type TestWorld } from '../helpers/testWorld.js';
import { challengeOf, newAccount, paymentHeader, requirementFor, signPayment } from '../payments/helpers.js';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('GET /metrics', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startTestWorld({ initialTxs: 30, env: { PAYMENTS_ENABLED: 'true', X402_SETTLEMENT: 'demo' } });
    await refresh(world);
    await refresh(world);
  });
  afterAll(async () => world.close());

  it('default: Prometheus text with request, payment, optimizer and mempool metrics', async () => {
    for (let i = 0; i < 3; i++) await world.app.inject({ method: 'GET', url: '/health' });
    // A known txid: an unknown one is a free 404 before the challenge.
    const [knownTxid = ''] = world.app.mempool.mirror.txs.keys();
    await world.app.inject({ method: 'GET', url: `/v1/tx/${knownTxid}` });
    await world.app.inject({ method: 'GET', url: '/v1/block-height', headers: { 'payment-signature': 'bm90IGEgcGF5bWVudA==' } });
    await world.app.inject({ method: 'GET', url: '/no/such/route' });
    const res = await world.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = res.body;
    expect(sample(text, 'http_requests_total', 'method="GET",route="/health",status="200"')).toBe(3);
    expect(sample(text, 'http_requests_total', 'method="GET",route="/v1/tx/:txid",status="402"')).toBe(1);
    expect(sample(text, 'http_requests_total', 'method="GET",route="unmatched",status="404"')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/health",status="200"')).toBe(3);
    expect(sample(text, 'payments_total', 'outcome="challenged"')).toBe(1);
    expect(sample(text, 'payments_total', 'outcome="refused"')).toBe(1);
    const cycles = world.app.optimizer.service.cycleCount;
    expect(cycles).toBe(2);
    expect(sample(text, 'optimizer_cycles_total', 'status="ok"')).toBe(cycles);
    expect(sample(text, 'optimizer_cycle_phase_seconds_count', 'phase="optimize"')).toBe(cycles);
    expect(sample(text, 'mempool_transactions')).toBe(world.app.mempool.mirror.txs.size);
    expect(sample(text, 'optimizer_pool_queue_depth')).toBe(0);
    // No REDIS_URL: this replica runs its own cycles.
    expect(sample(text, 'optimizer_role', 'role="single"')).toBe(1);
    expect(sample(text, 'optimizer_role', 'role="leader"')).toBe(0);
    expect(sample(text, 'stream_clients', 'kind="dashboard"')).toBe(0);
    expect(sample(text, 'stream_clients', 'kind="mempool"')).toBe(0);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('behavior: the payments database commits and the writes they held (group commit) count a paid request', async () => {
    const before = (await world.app.inject({ method: 'GET', url: '/metrics' })).body;
    const challenge = challengeOf(await world.app.inject({ method: 'GET', url: '/v1/block-height' }));
    const paid = await world.app.inject({
      method: 'GET',
      url: '/v1/block-height',
      headers: { 'payment-signature': paymentHeader(await signPayment(newAccount(), requirementFor(challenge))) },
    });
    expect(paid.statusCode).toBe(200);
    const after = (await world.app.inject({ method: 'GET', url: '/metrics' })).body;
    const grew = (name: string) => (sample(after, name) ?? Number.NaN) - (sample(before, name) ?? Number.NaN);
    // Its ledger row (and, one process without Redis, its claim and kept answer): at least one commit, one write each.
    expect(grew('payments_db_commits')).toBeGreaterThanOrEqual(1);
    expect(grew('payments_db_commit_writes')).toBeGreaterThanOrEqual(grew('payments_db_commits'));
  });
});
