/**
 * The piscina pool that runs native optimizer calls off the event loop. A task's input buffers are
 * transferred, not copied. A worker that crashes or is aborted (cycle timeout) fails only its task:
 * piscina replaces the thread and the service keeps serving the previous cache.
 */
import { Piscina } from 'piscina';
import type { FastifyBaseLogger } from 'fastify';
import { workerFile } from '../../util/workerFile.js';
import type { OptimizerInput, OptimizerOptions, OptimizerResult } from '../binding/native.js';
import { buffersOf, type CycleTask } from './worker.js';

export class OptimizerPool {
  private readonly pool: Piscina;

  constructor(threads: number, logger?: FastifyBaseLogger) {
    const { filename, execArgv } = workerFile(import.meta.url, 'worker');
    this.pool = new Piscina({
      filename,
      name: 'runCycle',
      execArgv,
      minThreads: 1,
      maxThreads: threads,
      // One cycle at a time is the design; a small queue absorbs a manual refresh racing the timer.
      maxQueue: 4,
      idleTimeout: 60_000,
    });
    // Without a listener a failing worker start would be an unhandled 'error' event.
    this.pool.on('error', (error: unknown) => logger?.error({ err: error }, 'optimizer worker error'));
  }

  /** Runs one native cycle in a worker. The input's buffers are detached afterwards. */
  run(input: OptimizerInput, options: OptimizerOptions, signal?: AbortSignal): Promise<OptimizerResult> {
    const task: CycleTask = { input, options };
    return this.pool.run(task, { transferList: buffersOf(input), signal }) as Promise<OptimizerResult>;
  }

  /** Tasks waiting for a worker (metrics). */
  get queueSize(): number {
    return this.pool.queueSize;
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
