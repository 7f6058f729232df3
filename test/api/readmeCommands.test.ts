/**
 * The README runs as written. The service is started as `npm start` starts it (src/main.ts, the
 * default configuration: payments on, demo mode, the embedded simulated node), on a free port read
 * from its start line; then every `sh` block of the README runs in order in one shell, as a person
 * in one terminal would, after every `js` block was saved under the name of its first comment line.
 * `sh ci` blocks are CI's own steps (.ci/run runs `npm ci` and `npm test`); `sh real-node` blocks
 * need a Bitcoin Core and are the only ones not run. A start on a busy port ends with one line
 * saying so. Needs the built CLI (`npm run build`, part of `npm ci`) for the `btc-template` block.
 * (`npx btc-template` in the clone would reinstall the package and rebuild the native module: the
 * README says `bin/btc-template.mjs`.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

interface Block {
  info: string;
  code: string;
}
const blocks: Block[] = [...readme.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: (m[1] ?? '').trim(), code: m[2] ?? '' }));

interface Started {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startService(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', SIMNET_INITIAL_TXS: '400', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function run(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README commands', () => {
  let service: Started;
  let base: string;
  let port: number;
  const dir = mkdtempSync(join(root, '.tmp-readme-'));
  beforeAll(async () => {
    service = startService({ PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'readme-')) });
    // The start line is for a person: it names the service, the dashboard and the documents.
    base = await until('the start line', () => /^serving (http:\/\/127\.0\.0\.1:\d+) · dashboard /m.exec(service.stderr())?.[1], 120_000);
    port = Number(new URL(base).port);
    await until(
      'the first optimizer cycle',
      async () => ((await (await fetch(`${base}/v1/template/health`)).json()) as { ready?: boolean }).ready || undefined,
      120_000,
    );
  }, 240_000);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('default: the start line names the service, dashboard and documents URLs', () => {
    expect(service.stderr()).toContain(`serving ${base} · dashboard ${base}/dashboard · documents ${base}/llms.txt`);
  });

  it('default: every fenced block is runnable, CI’s, a real node’s, a named script or plain text', () => {
    for (const b of blocks) expect(['sh', 'sh ci', 'sh real-node', 'js', '']).toContain(b.info);
    for (const b of blocks.filter((x) => x.info === 'js')) expect(b.code).toMatch(/^\/\/ [\w-]+\.mjs\n/);
    // CI runs exactly the `sh ci` commands.
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    for (const b of blocks.filter((x) => x.info === 'sh ci'))
      for (const line of b.code.split('\n').filter(Boolean)) {
        for (const command of line
          .replace(/#.*$/, '')
          .split('&&')
          .map((c) => c.trim()))
          if (command !== 'npm start') expect(ci, command).toMatch(new RegExp(`^${command}$`, 'm'));
      }
  });

  it('default: every sh block runs as written against the started service (paid sample, receipt check, CLI)', async () => {
    expect(existsSync(join(root, 'dist/cli/template.js')), 'build the CLI first: npm run build').toBe(true);
    // The shell runs in a directory of the clone with its own files; `bin/` is the clone's.
    symlinkSync(join(root, 'bin'), join(dir, 'bin'));
    for (const b of blocks.filter((x) => x.info === 'js')) writeFileSync(join(dir, b.code.split('\n')[0]?.slice(3) ?? 'x.mjs'), b.code);
    const runnable = blocks.filter((x) => x.info === 'sh');
    // One shell, in README order, on the port this service got; a marker line between the blocks.
    const script = ['set -euo pipefail', ...runnable.flatMap((b, i) => [`printf '\\n@@block ${i}\\n'`, b.code.replaceAll(':8402', `:${port}`)])].join('\n');
    const { code, stdout, stderr } = await run(script, dir);
    expect(code, stderr).toBe(0);
    const outputs = stdout.split(/\n@@block \d+\n/).slice(1);
    expect(outputs).toHaveLength(runnable.length);
    const byCommand = (needle: string) => outputs[runnable.findIndex((b) => b.code.includes(needle))] ?? '';
    expect(byCommand('curl -s localhost')).toMatch(/HTTP\/1\.1 402/);
    expect(byCommand('curl -s localhost').toLowerCase()).toContain('payment-required:');
    // The paid sample paid in demo mode with a fresh key and printed the answer.
    const paid = JSON.parse(byCommand('node pay.mjs').trim().split('\n').at(-1) ?? '{}') as { success?: boolean; blocks?: number; feeRateSatVb?: number };
    expect(paid).toMatchObject({ success: true, blocks: 3 });
    expect(paid.feeRateSatVb).toBeGreaterThan(0);
    expect(JSON.parse(byCommand('node verify-receipt.mjs').trim())).toEqual({ signatureValid: true, txidsMatchReceipt: true });
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { txCount: number; templates: { optimized: { txids: string[] } } };
    expect(report.txCount).toBe(3000);
    expect(report.templates.optimized.txids.length).toBeGreaterThan(0);
  }, 240_000);

  it('error: a start on a busy port ends with one line saying so and how to pick another', async () => {
    const second = startService({ PORT: String(port), DATA_DIR: mkdtempSync(join(tmpdir(), 'readme-busy-')), SIMNET_INITIAL_TXS: '20' });
    const code = await second.exited;
    expect(code).toBe(1);
    expect(second.stderr()).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    expect(second.stderr()).toContain(`PORT=${port + 1} npm start`);
    expect(second.stderr()).not.toMatch(/fatal|EADDRINUSE|at .*\.js:\d+/);
  }, 120_000);
});
