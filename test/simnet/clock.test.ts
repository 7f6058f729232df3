/**
 * The simulated node never reports a time in the future: every block `time` and `mediantime` and
 * every mempool entry `time` is at most the wall clock when it is read, also when many blocks are
 * mined at once (fast-forward mining on the virtual clock, bursts on the wall clock). Blocks still
 * follow Core's rule that a block's time is later than its parent's median time past.
 */
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../src/simnet/node/clock.js';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
import { coreClient, TEST_SIM } from './helpers.js';

interface Header {
  height: number;
  time: number;
  mediantime: number;
}

/** Every block header (genesis to tip) and every mempool entry time, read in one batch each. */
async function readTimes(sim: SimnetHandle): Promise<{ headers: Header[]; entryTimes: number[]; tipInfo: { time: number; mediantime: number } }> {
  const client = coreClient(sim.rpcUrl);
  const height = (await client.command('getblockcount')) as number;
  const hashes = (await client.command(Array.from({ length: height + 1 }, (_, h) => ({ method: 'getblockhash', parameters: [h] })))) as string[];
  const headers = (await client.command(hashes.map((hash) => ({ method: 'getblockheader', parameters: [hash] })))) as Header[];
  const pool = (await client.command('getrawmempool', true)) as Record<string, { time: number }>;
  const tipInfo = (await client.command('getblockchaininfo')) as { time: number; mediantime: number };
  return { headers, entryTimes: Object.values(pool).map((e) => e.time), tipInfo };
}

/** Asserts the times read are not in the future and that each block is later than its parent's median time past. */
function expectNoFutureTimes(read: Awaited<ReturnType<typeof readTimes>>): void {
  const now = Date.now() / 1000;
  for (const [i, h] of read.headers.entries()) {
    expect(h.time).toBeLessThanOrEqual(now);
    expect(h.mediantime).toBeLessThanOrEqual(h.time);
    const parent = read.headers[i - 1];
    if (parent) expect(h.time).toBeGreaterThan(parent.mediantime);
  }
  for (const t of read.entryTimes) expect(t).toBeLessThanOrEqual(now);
  expect(read.tipInfo.time).toBeLessThanOrEqual(now);
  expect(read.tipInfo.mediantime).toBeLessThanOrEqual(now);
}

describe('simulated clock', () => {
  it('behavior: fast-forward mining from a start just before now never dates a block or entry in the future', async () => {
    // Automatic activity off: the clock is virtual and each mined block would move it ~10 minutes.
    const sim = await startSimnet({ seed: 61, initialTxs: 150, startTime: Math.floor(Date.now() / 1000) - 5, ...TEST_SIM });
    try {
      await sim.control.mineBlocks(20);
      await sim.control.addTransactions(80);
      await sim.control.mineBlocks(8);
      await sim.control.addTransactions(40);
      const read = await readTimes(sim);
      expect(read.headers.length).toBeGreaterThan(230);
      expect(read.entryTimes.length).toBeGreaterThan(20);
      expectNoFutureTimes(read);
      // The clock did move up to the present (blocks were not all squeezed into the past).
      expect(read.tipInfo.time).toBeGreaterThan(Date.now() / 1000 - 60);
    } finally {
      await sim.close();
    }
  });

  it('behavior: on the wall clock, a burst of blocks faster than the median-time rule allows waits for the clock instead of running ahead', async () => {
    const sim = await startSimnet({ seed: 62, initialTxs: 60, txPerSec: 40, blockIntervalSec: 0.05, ...TEST_SIM });
    try {
      const startHeight = (await sim.control.stats()).height;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await sim.control.mineBlocks(15);
      const read = await readTimes(sim);
      expect(read.headers.length - 1).toBeGreaterThanOrEqual(startHeight + 15);
      expectNoFutureTimes(read);
    } finally {
      await sim.close();
    }
  });

  it('error: a start time in the future is refused', async () => {
    await expect(startSimnet({ startTime: Math.floor(Date.now() / 1000) + 3600, ...TEST_SIM })).rejects.toThrow(
      /invalid simnet option startTime: must not be in the future/,
    );
  });

  it('default: a virtual clock moves only when told, and stops at the wall clock', () => {
    let wall = 1_000_005.5;
    const clock = new SimClock(1_000_000, () => wall);
    expect(clock.now()).toBe(1_000_000);
    clock.advance(3.2);
    expect(clock.now()).toBe(1_000_003);
    clock.advance(600);
    expect(clock.now()).toBe(1_000_005);
    wall += 100;
    expect(clock.now()).toBe(1_000_005);
    clock.advanceTo(2_000_000);
    expect(clock.now()).toBe(1_000_105);
    expect(clock.msUntil(1_000_106)).toBe(500);
    clock.useWallClock(true);
    wall += 7;
    expect(clock.now()).toBe(1_000_112);
    expect(new SimClock(5_000_000, () => wall).now()).toBe(1_000_112);
  });
});
