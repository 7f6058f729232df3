/**
 * The service as `src/main.ts` in a child process on a free loopback port with its own data
 * directory, for the benches that must not share its event loop (hostile, ratelimit, logs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/loopback.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface ChildService {
  url: string;
  child: ChildProcess;
  /** SIGTERM (waiting for the exit), then the data directory removed. */
  stop(): Promise<void>;
}

/** Spawns the service with `env` over HOST/PORT/DATA_DIR; `stdout: 'pipe'` lets the caller read its log lines. */
export async function spawnService(env: Record<string, string>, stdout: 'ignore' | 'pipe' = 'ignore'): Promise<ChildService> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-service-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
