/**
 * Resolves the file a worker thread (piscina or `node:worker_threads`) should run, next to the
 * module that asks. From compiled code that is the `.js` file; from TypeScript sources (vitest,
 * `tsx`) it is the `.ts` file, and the worker needs tsx's loader because neither vite's transform
 * nor the parent's loader reaches worker threads (TOOLCHAIN §2.4).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { z } from 'zod';

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
 * @example moduleUrl(import.meta.url, '../optimizer/binding/coreV31Policy') // 'file:///…/src/optimizer/binding/coreV31Policy.ts' under tsx
 */
export function moduleUrl(callerUrl: string, path: string): string {
  return new URL(`${path}.${callerUrl.endsWith('.ts') ? 'ts' : 'js'}`, callerUrl).href;
}

/**
 * @param callerUrl `import.meta.url` of the module that starts the worker
 * @param basename the worker module's name without extension, e.g. `'worker'`
 * @example workerFile(import.meta.url, 'worker') // { filename: '/…/src/optimizer/full/worker.ts', execArgv: ['--import','tsx'] }
 */
export function workerFile(callerUrl: string, basename: string): WorkerFile {
  const filename = fileURLToPath(moduleUrl(callerUrl, `./${basename}`));
  return { filename, execArgv: filename.endsWith('.ts') ? ['--import', 'tsx'] : [] };
}

/** The part of tsx's package.json that locates its ESM register API. */
const TsxPackage = z.object({ exports: z.object({ './esm/api': z.object({ import: z.object({ default: z.string() }) }) }) });

/**
 * Starts a `node:worker_threads` worker on the module `basename` next to the caller. From
 * TypeScript sources `--import tsx` in a worker's `execArgv` does not register tsx's hooks on
 * Node 20 (it registers them on the main thread only), so a small bootstrap registers them through
 * tsx's API and then imports the worker module (as src/simnet does for its own worker).
 */
export function startWorker(callerUrl: string, basename: string, options: WorkerOptions = {}): Worker {
  const { filename, execArgv } = workerFile(callerUrl, basename);
  if (execArgv.length === 0) return new Worker(filename, options);
  const require = createRequire(import.meta.url);
  const tsxDir = dirname(require.resolve('tsx/package.json'));
  const { exports } = TsxPackage.parse(JSON.parse(readFileSync(join(tsxDir, 'package.json'), 'utf8')));
  const api = pathToFileURL(join(tsxDir, exports['./esm/api'].import.default)).href;
  const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(filename).href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
