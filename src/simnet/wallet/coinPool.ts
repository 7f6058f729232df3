/**
 * A set of coins with O(1) insert, delete and uniformly random pick (array + position map, delete
 * by swapping with the last element). Iteration order depends only on the sequence of operations,
 * which keeps the simulator deterministic.
 */
import type { Rng } from '../util/random.js';

export class CoinPool<T> {
  private readonly items: T[] = [];
  private readonly keys: string[] = [];
  private readonly positions = new Map<string, number>();

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.positions.has(key);
  }

  get(key: string): T | undefined {
    const i = this.positions.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  add(key: string, item: T): void {
    if (this.positions.has(key)) return;
    this.positions.set(key, this.items.length);
    this.items.push(item);
    this.keys.push(key);
  }

  delete(key: string): T | undefined {
    const i = this.positions.get(key);
    if (i === undefined) return undefined;
    const item = this.items[i]!;
    const last = this.items.length - 1;
    if (i !== last) {
      this.items[i] = this.items[last]!;
      this.keys[i] = this.keys[last]!;
      this.positions.set(this.keys[i]!, i);
    }
    this.items.pop();
    this.keys.pop();
    this.positions.delete(key);
    return item;
  }

  /** A uniformly random element, or undefined when empty. */
  pick(rng: Rng): T | undefined {
    return this.items.length ? this.items[Math.floor(rng.float() * this.items.length)] : undefined;
  }

  values(): readonly T[] {
    return this.items;
  }
}
