/**
 * The simulator's clock. With automatic activity off it is virtual: it only moves when the
 * simulator says so (a transaction arrives, a block is mined), so a seed reproduces block times
 * and hashes. With automatic activity on it follows the wall clock (never going backwards).
 */
export class SimClock {
  private virtual: number;
  private wall = false;

  /** @param start Unix seconds */
  constructor(start: number) {
    this.virtual = start;
  }

  /** Current time, whole Unix seconds. */
  now(): number {
    const v = Math.floor(this.virtual);
    return this.wall ? Math.max(v, Math.floor(Date.now() / 1000)) : v;
  }

  /** Moves virtual time forward (no effect on wall time). */
  advance(seconds: number): void {
    if (!this.wall) this.virtual += Math.max(0, seconds);
  }

  /** Moves virtual time forward to `t` if it is later. */
  advanceTo(t: number): void {
    this.virtual = Math.max(this.virtual, t);
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
