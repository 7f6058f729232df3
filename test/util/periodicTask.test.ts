import { describe, expect, it, vi } from 'vitest';
import { PeriodicTask } from '../../src/util/periodicTask.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicTask', () => {
  it('default: runs now, then again after each run; start twice keeps one schedule', async () => {
    let runs = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const task = new PeriodicTask(
      async () => {
        runs++;
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await tick(2);
        inFlight--;
      },
      () => 0,
    );
    task.start();
    task.start();
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(3), { timeout: 5000 });
    task.stop();
    expect(maxInFlight).toBe(1);
    const seen = runs;
    await tick(30);
    expect(runs).toBe(seen);
    expect(task.nextAt).toBeNull();
  });

  it('behavior: a stop that lands during a run arms no further run; a failing run does not end the schedule', async () => {
    let runs = 0;
    let release!: () => void;
    const task = new PeriodicTask(
      () => {
        runs++;
        if (runs === 1) return Promise.reject(new Error('node down'));
        return new Promise<void>((r) => (release = r));
      },
      () => 1,
    );
    task.start();
    await vi.waitFor(() => expect(runs).toBe(2), { timeout: 5000 });
    task.stop();
    release();
    await tick(20);
    expect(runs).toBe(2);
  });

  it('behavior: stopped and started again during a run (a leader that steps down and leads again), one schedule goes on; the next stop ends it', async () => {
    let runs = 0;
    const pending: Array<() => void> = [];
    const task = new PeriodicTask(
      () => {
        runs++;
        return new Promise<void>((r) => pending.push(r));
      },
      () => 1,
    );
    task.start();
    task.stop();
    task.start();
    expect(runs).toBe(2);
    for (const end of pending.splice(0)) end();
    // One next run (it does not end): a second schedule left over from the first start would run too.
    await vi.waitFor(() => expect(runs).toBe(3), { timeout: 5000 });
    await tick(30);
    expect(runs).toBe(3);
    task.stop();
    for (const end of pending.splice(0)) end();
    await tick(30);
    expect(runs).toBe(3);
    expect(task.nextAt).toBeNull();
  });
});
