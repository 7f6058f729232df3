/**
 * Runs a task now and again `delayMs()` after each run ends, so runs never overlap. `start` twice
 * keeps one schedule; `stop` ends it, also when it lands during a run (no timer is re-armed), and a
 * `start` after it, even during that run, makes the one schedule that goes on.
 * Errors are the task's to handle: a rejection is ignored and the schedule goes on.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private active = false;
  /** Counts the starts: a loop whose start is not the latest ends (stopped and started during its run). */
  private generation = 0;
  /** When the next run is due (ms since the epoch), or null when none is scheduled. */
  nextAt: number | null = null;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly delayMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.active) return;
    this.active = true;
    const generation = ++this.generation;
    const loop = async (): Promise<void> => {
      await this.task().catch(() => undefined);
      if (!this.active || generation !== this.generation) return;
      const delay = this.delayMs();
      this.nextAt = this.now() + delay;
      this.timer = setTimeout(() => void loop(), delay);
      this.timer.unref();
    };
    void loop();
  }

  /** Ends the schedule. The caller waits for a run in progress itself, if it needs to. */
  stop(): void {
    this.active = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextAt = null;
  }
}
