/**
 * True freshness (issue 21 item 5): on the event-driven view, `asOf` is when the view last matched
 * the node (its last applied event batch, or poll), not the last periodic full poll; `ageMs` stays
 * small while events flow. On the simulated node's event feed (the ZMQ-equivalent `npm start` uses).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

let world: TestWorld;
beforeAll(async () => {
  world = await startTestWorld({ seed: 13, initialTxs: 50, events: true });
  await world.app.mempool.mirror.poll();
});
afterAll(() => world?.close());

describe('asOf follows applied events', () => {
  it('after events, mempool answers date from the last event batch, not the older poll', async () => {
    const { mirror } = world.app.mempool;
    const pollAt = mirror.lastPollAt ?? 0;
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < 100 && (mirror.lastEventAt ?? 0) <= pollAt + 1000; i++) {
      await world.simnet.control.addTransactions(1);
      await new Promise((r) => setTimeout(r, 50));
    }
    const eventAt = mirror.lastEventAt ?? 0;
    expect(eventAt).toBeGreaterThan(pollAt + 1000);
    expect(mirror.lastPollAt).toBe(pollAt);
    for (const url of ['/v1/mempool/stats', '/v1/mempool/fees', '/v1/fee-estimate']) {
      const body = (await world.app.inject({ method: 'GET', url })).json<{ asOf: string; ageMs: number }>();
      expect(Date.parse(body.asOf), url).toBeGreaterThanOrEqual(eventAt);
      expect(body.ageMs, url).toBeLessThan(Date.now() - pollAt);
    }
  });
});
