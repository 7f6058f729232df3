/**
 * True freshness on real Bitcoin Core (issue 21 item 5): the service follows Core's ZMQ `sequence`
 * topic with the full periodic check every 60 s; while wallet sends change the mempool for ~25 s,
 * every mempool answer's `asOf` / `ageMs` says the view matched the node a moment ago (the last
 * applied event), not at the last full check, and the answer's count is Core's count then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ask, startServiceOnCore, type CoreWorld } from './coreWorld.js';
import { coreAvailability, startRegtest, type Regtest } from './regtest.js';

const available = coreAvailability();

/** The full check against the node (`getrawmempool`) while following events: long, so only events can keep asOf fresh. */
const FULL_CHECK_MS = 60_000;
/** How old a mempool answer may say it is while Core's mempool changes every second or so. */
const FRESH_MS = 5_000;
const RUN_MS = 25_000;
const MEMPOOL_URLS = ['/v1/mempool/stats', '/v1/mempool/fees', '/v1/fee-estimate'];

describe.runIf(available.run)('mempool answers on the event-driven view of real Core stay fresh', () => {
  let core: Regtest;
  let world: CoreWorld;

  beforeAll(async () => {
    if (!available.run) return;
    // 40 mature coinbases: every send spends a confirmed coin (no long unconfirmed chain).
    core = await startRegtest(available.path, { blocks: 140 });
    world = await startServiceOnCore(core, {
      ZMQ_URL: core.zmqSequenceUrl,
      ZMQ_RAWTX_URL: core.zmqRawTxUrl,
      MEMPOOL_EVENTS_QUIET_MS: String(FULL_CHECK_MS),
    });
    // What `autoStart` does for the mempool: the first full sync now, the next after FULL_CHECK_MS.
    world.app.mempool.mirror.start();
    const deadline = Date.now() + 30_000;
    while (!world.app.mempool.mirror.ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }, 300_000);

  afterAll(async () => {
    await world?.close();
    await core?.close();
  });

  it('behavior: over 25 s of wallet sends, asOf/ageMs of every mempool answer stay within seconds', async () => {
    const { mirror, follower } = world.app.mempool;
    expect(mirror.ready).toBe(true);
    const firstSyncAt = mirror.lastPollAt ?? 0;
    const pollsBefore = mirror.pollCount;
    const started = Date.now();
    let worstAgeMs = 0;
    let reads = 0;
    let sends = 0;
    while (Date.now() - started < RUN_MS) {
      await core.rpc('sendtoaddress', core.minerAddress, Number((0.001 + sends * 0.00001).toFixed(8)));
      sends += 1;
      await new Promise((r) => setTimeout(r, 700));
      const coreCount = (await core.rpc<string[]>('getrawmempool')).length;
      for (const url of MEMPOOL_URLS) {
        const { status, body } = await ask(world, 'GET', url);
        expect(status, url).toBe(200);
        const readAt = Date.now();
        reads += 1;
        worstAgeMs = Math.max(worstAgeMs, body.ageMs);
        expect(body.ageMs, `${url} after ${Math.round((readAt - started) / 1000)} s`).toBeLessThan(FRESH_MS);
        expect(readAt - Date.parse(body.asOf), url).toBeLessThan(FRESH_MS + 100);
        // The age states when the view matched the node: the data is Core's (no answer dated now with old counts).
        if (url === '/v1/mempool/stats') expect(body.count).toBe(coreCount);
        if (url === '/v1/mempool/fees') expect(body.totals.count).toBe(coreCount);
      }
    }
    // The events did it: no full check ran during the run, and it is long past the first one.
    expect(mirror.pollCount).toBe(pollsBefore);
    expect(follower?.mode).toBe('events');
    expect(Date.now() - firstSyncAt).toBeGreaterThan(RUN_MS);
    console.log(
      `true freshness on Core/ZMQ: ${sends} sends, ${reads} reads over ${Math.round((Date.now() - started) / 1000)} s, worst ageMs ${worstAgeMs} (full check every ${FULL_CHECK_MS / 1000} s)`,
    );
  }, 120_000);
});
