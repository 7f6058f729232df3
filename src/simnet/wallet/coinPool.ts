/**
 * A set of coins with O(1) insert, delete and uniformly random pick (array + position map, delete
 * by swapping with the last element). Iteration order depends only on the sequence of operations,
 * which keeps the simulator deterministic.
 */
import { at } from '../../util/at.js';
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
    const item = at(this.items, i);
    // Move the last element into the hole (nothing to move when `i` was the last).
    const lastItem = this.items.pop();
    const lastKey = this.keys.pop();
    if (i < this.items.length && lastItem !== undefined && lastKey !== undefined) {
      this.items[i] = lastItem;
      this.keys[i] = lastKey;
      this.positions.set(lastKey, i);
    }
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
