/**
 * The node's reachability, checked in the background: `getblockchaininfo` every interval with a
 * short timeout of its own, one check at a time. Readers (`/health`, the before-payment check of
 * paid routes) read the last result and never wait on the node: a blackholed node cannot hold a
 * load balancer's probe, and a stopped node is known down within one interval.
 */
import type { BitcoinNode } from './bitcoinNode.js';
import type { BlockchainInfo } from './schemas.js';

export interface NodeCheck {
  /** When the check ended, ms since the epoch. */
  at: number;
  ok: boolean;
  error: string | null;
}

export interface NodeWatchOptions {
  intervalMs: number;
  timeoutMs: number;
  now?: () => number;
}

export class NodeWatch {
  /** The last finished check; undefined before the first one ends. */
  last: NodeCheck | undefined;
  /** Failed checks in a row (0 after a success). */
  failures = 0;
  /** The answer of the last successful check (last known chain state). */
  info: BlockchainInfo | undefined;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly node: Pick<BitcoinNode, 'getBlockchainInfo'>,
    private readonly options: NodeWatchOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** One check (a check already running is shared). Never rejects. */
  check(): Promise<void> {
    this.running ??= this.node
      .getBlockchainInfo({ timeoutMs: this.options.timeoutMs })
      .then(
        (info) => {
          this.info = info;
          this.failures = 0;
          this.last = { at: this.now(), ok: true, error: null };
        },
        (error: unknown) => {
          this.failures += 1;
          this.last = { at: this.now(), ok: false, error: error instanceof Error ? error.message : String(error) };
        },
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  start(): void {
    if (this.timer) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
