import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorld, type TestWorld } from '../helpers/testWorld.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let world: TestWorld;
let base: string;
beforeAll(async () => {
  world = await startTestWorld({ initialTxs: 120, seed: 17 });
  await world.app.mempool.mirror.poll();
  await world.app.optimizer.service.refresh();
  base = await world.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => world?.close());

describe('README receipt verification snippet', () => {
  it('default: runs as written and verifies a live receipt', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const snippet = /```js\n(\/\/ verify-receipt\.mjs\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet, 'snippet not found in README').toBeDefined();
    // Inside the repository so that its imports resolve from node_modules.
    const dir = mkdtempSync(join(root, '.tmp-readme-'));
    try {
      writeFileSync(join(dir, 'verify-receipt.mjs'), snippet!);
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'verify-receipt.mjs'), base], { timeout: 30_000 });
      expect(JSON.parse(stdout)).toEqual({ signatureValid: true, txidsMatchReceipt: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
