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
 * `file:` URL of the module at `path` (relative to the caller, without extension) in the caller's
 * own form: `.ts` when the caller runs from TypeScript sources, `.js` when it is compiled. For
 * modules another thread `import()`s by URL (a worker file, or a module handed to a worker).
 * @param callerUrl `import.meta.url` of the module that asks
 * @example moduleUrl(import.meta.url, '../optimizer/coreV31Policy') // 'file:///…/src/optimizer/coreV31Policy.ts' under tsx
 */
export function moduleUrl(callerUrl: string, path: string): string {
  return new URL(`${path}.${callerUrl.endsWith('.ts') ? 'ts' : 'js'}`, callerUrl).href;
}

/**
 * @param callerUrl `import.meta.url` of the module that starts the worker
 * @param basename the worker module's name without extension, e.g. `'worker'`
 * @example workerFile(import.meta.url, 'worker') // { filename: '/…/src/optimizer/worker.ts', execArgv: ['--import','tsx'] }
 */
export function workerFile(callerUrl: string, basename: string): WorkerFile {
  const filename = fileURLToPath(moduleUrl(callerUrl, `./${basename}`));
  return { filename, execArgv: filename.endsWith('.ts') ? ['--import', 'tsx'] : [] };
}
