/**
 * Automatic activity of a simulated node: Poisson arrivals at `txPerSec` (drawn per 250 ms tick)
 * and blocks at exponential intervals with mean `blockIntervalSec` (0 = only on demand). Errors
 * are reported through `log` and never stop the timers.
 */
import type { Simulator } from './simulator.js';

const TICK_MS = 250;

export class Automation {
  private tick: NodeJS.Timeout | undefined;
  private blockTimer: NodeJS.Timeout | undefined;
  private lastDryWarning = 0;

  constructor(
    private readonly sim: Simulator,
    private readonly log: (level: 'warn' | 'error', message: string) => void,
  ) {}

  get running(): boolean {
    return this.tick !== undefined || this.blockTimer !== undefined;
  }

  start(): void {
    if (this.running) return;
    this.sim.clock.useWallClock(true);
    const { txPerSec, blockIntervalSec } = this.sim.options;
    if (txPerSec > 0) {
      this.tick = setInterval(() => this.guard('arrivals', () => this.arrivals(txPerSec)), TICK_MS);
    }
    if (blockIntervalSec > 0) this.scheduleBlock(blockIntervalSec);
  }

  stop(): void {
    clearInterval(this.tick);
    clearTimeout(this.blockTimer);
    this.tick = undefined;
    this.blockTimer = undefined;
    this.sim.clock.useWallClock(false);
  }

  private arrivals(txPerSec: number): void {
    const n = this.sim.rng.poisson((txPerSec * TICK_MS) / 1000);
    for (let i = 0; i < n; i++) {
      if (this.sim.addOne(0) === undefined) {
        if (Date.now() - this.lastDryWarning > 60_000) {
          this.lastDryWarning = Date.now();
          this.log('warn', 'simnet: the wallet could not fund a new transaction (mine a block to free coins)');
        }
        break;
      }
    }
  }

  private scheduleBlock(meanSec: number): void {
    const delayMs = Math.min(this.sim.rng.exponential(meanSec) * 1000, 2 ** 31 - 1);
    this.blockTimer = setTimeout(() => this.blockDue(meanSec), delayMs);
  }

  /** Mines the due block, unless its time would be in the future (a burst of blocks): then it waits for the wall clock. */
  private blockDue(meanSec: number): void {
    const waitMs = this.sim.msUntilBlockTime();
    if (waitMs > 0) {
      this.blockTimer = setTimeout(() => this.blockDue(meanSec), waitMs);
      return;
    }
    this.guard('mining', () => this.sim.mineBlock());
    if (this.blockTimer) this.scheduleBlock(meanSec);
  }

  private guard(what: string, fn: () => unknown): void {
    try {
      fn();
    } catch (error) {
      this.log('error', `simnet ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
}
