/**
 * Hostile-body benchmark (issue 16; `npm run bench -- hostile`, or `npx tsx bench/hostile.bench.ts`).
 *
 * `/health` p99 while 10 clients post 1 MB deeply nested JSON arrays to `/v1/rpc` without payment,
 * against `/health` p99 on an idle server in the same run (goal: under 50 ms under load). The
 * service runs as `src/main.ts` (embedded simulated node, optimizer off) in a child process, and
 * the hostile senders run as the autocannon CLI in another, so neither shares the event loop of
 * the server or of the `/health` probe. Two hostile runs: rate limit off (only the route's body
 * limit refuses them, from Content-Length) and at its default (most are refused with 429 first);
 * then bodies just under /v1/rpc's limit, which are read whole and refused by the nesting check.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { ONE_CALL_BODY_BYTES } from '../src/api/bodyLimits.js';
import { loadConfig } from '../src/config.js';
import { spawnService } from './childService.js';

const SECONDS = 8;
const HOSTILE_CLIENTS = 10;
const BODY_BYTES = 1024 * 1024;

export async function startService(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const service = await spawnService({
    LOG_LEVEL: 'warn',
    OPTIMIZER_ENABLED: 'false',
    TRUST_PROXY: 'true',
    SIMNET_INITIAL_TXS: '500',
    SIMNET_TX_PER_SEC: '1',
    ...env,
  });
  for (let i = 0; ; i++) {
    const ok = await fetch(`${service.url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (i > 600 || service.child.exitCode !== null) {
      await service.stop();
      throw new Error('the service did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return service;
}

/**
 * `/health` latency from one sequential client for `SECONDS`. Each probe names itself a new
 * client (X-Forwarded-For, trusted in these runs) so that the probe, thousands of requests a
 * second, is not the one rate-limited: a load balancer checks a few times a minute.
 */
export async function probeHealth(url: string): Promise<{ requests: number; p50: number; p99: number; max: number; non2xx: number }> {
  let n = 0;
  const result = await autocannon({
    url: `${url}/health`,
    connections: 1,
    duration: SECONDS,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': `10.${(++n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` } }) }],
  });
  return { requests: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, non2xx: result.non2xx };
}

/** The autocannon CLI in a child process posting `bodyFile` with `HOSTILE_CLIENTS` connections. */
function hostileSenders(url: string, bodyFile: string): { done: Promise<string> } {
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const child = spawn(
    process.execPath,
    [
      cli,
      ...['-c', String(HOSTILE_CLIENTS), '-d', String(SECONDS + 2), '-m', 'POST', '-i', bodyFile, '-j'],
      ...['-H', 'content-type=application/json', '-H', 'x-forwarded-for=203.0.113.66'],
      `${url}/v1/rpc`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { done: once(child, 'exit').then(() => out) };
}

export interface Row {
  scenario: string;
  healthRequests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  healthNon2xx: number;
  hostileRequests: string;
  hostileStatuses: string;
}

export async function scenario(name: string, env: Record<string, string>, bodyFile: string | null): Promise<Row> {
  const service = await startService(env);
  try {
    const senders = bodyFile ? hostileSenders(service.url, bodyFile) : null;
    // Let the senders connect before measuring.
    if (senders) await new Promise((r) => setTimeout(r, 1000));
    const health = await probeHealth(service.url);
    let hostileRequests = '-';
    let hostileStatuses = '-';
    if (senders) {
      const report = JSON.parse(await senders.done) as { requests: { total: number }; statusCodeStats?: Record<string, { count: number }> };
      hostileRequests = String(report.requests.total);
      hostileStatuses = Object.entries(report.statusCodeStats ?? {})
        .map(([code, s]) => `${code}×${s.count}`)
        .join(' ');
    }
    return {
      scenario: name,
      healthRequests: health.requests,
      p50Ms: health.p50,
      p99Ms: health.p99,
      maxMs: health.max,
      healthNon2xx: health.non2xx,
      hostileRequests,
      hostileStatuses,
    };
  } finally {
    await service.stop();
  }
}

/** Writes a `BODY_BYTES` deeply nested JSON array into `dir`; returns its path. */
export function hostileBody(dir: string): string {
  const bodyFile = join(dir, 'nested.json');
  const depth = BODY_BYTES / 2;
  writeFileSync(bodyFile, '['.repeat(depth) + ']'.repeat(depth));
  return bodyFile;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-body-'));
  const bodyFile = hostileBody(dir);
  // Just under /v1/rpc's own limit: read whole, then refused by the nesting check before parsing.
  const underFile = join(dir, 'nested-under-limit.json');
  const underDepth = Math.floor((loadConfig({}).RPC_BATCH_MAX * ONE_CALL_BODY_BYTES - 1) / 2);
  writeFileSync(underFile, '['.repeat(underDepth) + ']'.repeat(underDepth));
  try {
    console.log(`\n/health under ${HOSTILE_CLIENTS} clients posting ${BODY_BYTES} B nested JSON arrays to /v1/rpc (unpaid), ${SECONDS} s each`);
    const rows = [
      await scenario('idle (baseline)', { RATE_LIMIT_MAX: '0' }, null),
      await scenario('hostile, rate limit off', { RATE_LIMIT_MAX: '0' }, bodyFile),
      await scenario('hostile, rate limit default', {}, bodyFile),
      await scenario(`hostile ${underDepth * 2} B (under the limit), rate limit off`, { RATE_LIMIT_MAX: '0' }, underFile),
    ];
    console.table(rows);
    const worst = Math.max(...rows.map((r) => r.p99Ms));
    console.log(
      `hostile-body /health p99: ${rows
        .slice(1)
        .map((r) => `${r.p99Ms} ms (${r.scenario})`)
        .join(', ')}; goal < 50 ms: ${worst < 50 ? 'met' : 'NOT met'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
