/**
 * The simulator's clock, which never runs ahead of the wall clock: every time the node reports
 * (block, median and entry times) is at most the wall-clock time at which it was set.
 *
 * With automatic activity off it is virtual: it only moves when the simulator says so (a
 * transaction arrives, a block is mined), so a seed reproduces block times and hashes. A virtual
 * clock that would pass the wall clock stops at it instead; runs stay reproducible as long as they
 * start far enough in the past (the default start is), and fast-forward mining cannot reach the
 * future. With automatic activity on it is the wall clock.
 */
export class SimClock {
  private virtual: number;
  private wall = false;

  /**
   * @param start Unix seconds, not after the wall clock
   * @param wallSeconds the wall clock, Unix seconds (fractional)
   */
  constructor(
    start: number,
    private readonly wallSeconds: () => number = () => Date.now() / 1000,
  ) {
    this.virtual = Math.min(start, wallSeconds());
  }

  /** Current time, whole Unix seconds; never later than the wall clock. */
  now(): number {
    const wall = Math.floor(this.wallSeconds());
    return this.wall ? wall : Math.min(Math.floor(this.virtual), wall);
  }

  /** Moves virtual time forward, at most to the wall clock (no effect on wall time). */
  advance(seconds: number): void {
    if (!this.wall) this.virtual = Math.min(this.virtual + Math.max(0, seconds), Math.max(this.virtual, this.wallSeconds()));
  }

  /** Moves virtual time forward to `t` if it is later, at most to the wall clock. */
  advanceTo(t: number): void {
    this.virtual = Math.max(this.virtual, Math.min(t, this.wallSeconds()));
  }

  /** Milliseconds until the wall clock reaches Unix second `t` (0 when it has). */
  msUntil(t: number): number {
    return Math.max(0, Math.ceil(t * 1000 - this.wallSeconds() * 1000));
  }

  /** Switches between wall-clock time (automatic activity) and virtual time, continuing from now. */
  useWallClock(on: boolean): void {
    this.virtual = Math.max(this.virtual, this.now());
    this.wall = on;
  }

  get isWall(): boolean {
    return this.wall;
  }
}
