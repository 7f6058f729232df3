/**
 * Log lines sized for attack: an expected failure repeated by every request (the node down, a
 * refused payment) is logged once, and then at most once per interval with how many times it
 * happened in between, so a flood of a million identical failures writes a few lines, not a
 * million (issue 22: 1.37 KB per 503 was 1.37 GB per million requests).
 *
 * Keyed by what the failure is (its code), not by who asked: one key per kind of failure. Keys are
 * bounded (least recently seen forgotten first), so varied failures cannot grow the map.
 */
import { LRUCache } from 'lru-cache';

export interface LogSamplerOptions {
  /** At most one line per key in this many ms (default 60,000). */
  intervalMs?: number;
  /** Keys remembered (default 256). */
  maxKeys?: number;
  now?: () => number;
}

interface KeyState {
  /** When the last line of this key was written. */
  loggedAt: number;
  /** Occurrences not logged since. */
  suppressed: number;
}

export class LogSampler {
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly keys: LRUCache<string, KeyState>;

  constructor(options: LogSamplerOptions = {}) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.keys = new LRUCache({ max: options.maxKeys ?? 256 });
  }

  /**
   * One occurrence of `key`. Returns `undefined` when it is not to be logged, else how many
   * occurrences were not logged since its last line (0 for the first). Complexity: O(1).
   */
  take(key: string): { suppressed: number } | undefined {
    const at = this.now();
    const state = this.keys.get(key);
    if (state && at - state.loggedAt < this.intervalMs) {
      state.suppressed++;
      return undefined;
    }
    this.keys.set(key, { loggedAt: at, suppressed: 0 });
    return { suppressed: state?.suppressed ?? 0 };
  }

  /**
   * The failure of `key` is over (the state changed back): forgets it, so its next occurrence is
   * logged at once. Returns how many occurrences were not logged since its last line, or `undefined`
   * when the key was not failing.
   */
  clear(key: string): number | undefined {
    const state = this.keys.get(key);
    if (!state) return undefined;
    this.keys.delete(key);
    return state.suppressed;
  }
}
