/**
 * Resolves the file a worker thread (piscina or `node:worker_threads`) should run, next to the
 * module that asks. From compiled code that is the `.js` file; from TypeScript sources (vitest,
 * `tsx`) it is the `.ts` file, and the worker needs tsx's loader because neither vite's transform
 * nor the parent's loader reaches worker threads (TOOLCHAIN §2.4).
 */
import { fileURLToPath } from 'node:url';

export interface WorkerFile {
  /** Absolute path of the worker module. */
  filename: string;
  /** `execArgv` for the worker: `['--import', 'tsx']` when it is TypeScript. */
  execArgv: string[];
}

/**
 * @param callerUrl `import.meta.url` of the module that starts the worker
 * @param basename the worker module's name without extension, e.g. `'worker'`
 * @example workerFile(import.meta.url, 'worker') // { filename: '/…/src/optimizer/worker.ts', execArgv: ['--import','tsx'] }
 */
export function workerFile(callerUrl: string, basename: string): WorkerFile {
  const isTs = callerUrl.endsWith('.ts');
  const filename = fileURLToPath(new URL(`./${basename}.${isTs ? 'ts' : 'js'}`, callerUrl));
  return { filename, execArgv: isTs ? ['--import', 'tsx'] : [] };
}
