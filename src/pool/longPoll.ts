/**
 * BIP 22 long polling for the drop-in: a `getblocktemplate` that sends back the `longpollid` it
 * was given waits until the chain tip moves (a block: at once) or a new optimized template is
 * published (after at least `MIN_TEMPLATE_WAIT_MS`, so a pool is not re-sent a template per
 * mempool change), and at most `maxWaitMs`; then it answers with the template of that moment.
 */
import type { MempoolDiff, MempoolMirror } from '../mempool/mirror.js';
import type { OptimizerService } from '../optimizer/optimizerService.js';
import type { TemplateCache } from '../optimizer/cache/templateCache.js';

/** A template change alone wakes a long poll only once it has waited this long (Core waits a minute for mempool-only changes). */
export const MIN_TEMPLATE_WAIT_MS = 10_000;

/** `<previousblockhash><cycle>`, as Core's `<tip hash><transactions updated>`. */
export function longPollId(previousBlockHash: string, cache: TemplateCache | undefined): string {
  return `${previousBlockHash}${cache?.previousBlockHash === previousBlockHash ? cache.cycle : 0}`;
}

export class LongPoll {
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly mirror: MempoolMirror,
    private readonly optimizer: OptimizerService,
    private readonly maxWaitMs: number,
  ) {}

  /**
   * Resolves when the template a client holds (`id`) is out of date, or after `maxWaitMs`.
   * Answers at once when `id` is not the current one (`currentId`).
   */
  wait(id: string, currentId: () => string): Promise<void> {
    if (id !== currentId()) return Promise.resolve();
    const started = Date.now();
    return new Promise<void>((resolve) => {
      let minTimer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(maxTimer);
        clearTimeout(minTimer);
        this.mirror.off('diff', onDiff);
        this.optimizer.off('published', onPublished);
        this.waiters.delete(done);
        resolve();
      };
      const onDiff = (d: MempoolDiff) => {
        if (d.blocks.length > 0) done();
      };
      const onPublished = (cache: TemplateCache) => {
        if (id.slice(0, 64) !== cache.previousBlockHash) return done();
        if (id === currentId() || minTimer) return;
        const waited = Date.now() - started;
        if (waited >= MIN_TEMPLATE_WAIT_MS) done();
        else minTimer = setTimeout(done, MIN_TEMPLATE_WAIT_MS - waited);
      };
      const maxTimer = setTimeout(done, this.maxWaitMs);
      this.mirror.on('diff', onDiff);
      this.optimizer.on('published', onPublished);
      this.waiters.add(done);
    });
  }

  /** Answers every waiting client now (the server is closing). */
  releaseAll(): void {
    for (const done of [...this.waiters]) done();
  }
}
