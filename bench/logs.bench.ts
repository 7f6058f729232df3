/**
 * Log volume during a node outage (issue 22 item 4; `npm run bench -- logs`).
 *
 * The service runs as `src/main.ts` at the default `LOG_LEVEL` (info) in a child process whose
 * stdout (pino's lines) is counted; its node is a simulated node started here, stopped once the
 * service is up, so the service goes through a real outage: polls fail, and past
 * `NODE_STALE_AFTER_MS` its answers are 503 `NODE_UNAVAILABLE` and `/health` is 503. Then:
 *
 * - idle: bytes logged over `IDLE_SECONDS` with no request (polls failing in the background);
 * - flood: `REQUESTS` requests from one address to routes that answer 503 during the outage,
 *   with the rate limit off (every request reaches the failure path) and at its default.
 *
 * Bytes per million requests = (flood bytes − idle rate × flood time) / requests × 10⁶. Goal: under
 * 10 MB per million. The lines that mark the outage's start (the first failed poll, the first 503
 * of each kind, each written once per kind and minute after that) are shown in their own row.
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startSimnet } from '../src/simnet/index.js';
import { spawnService } from './childService.js';
import { CORE_V31_POLICY_MODULE } from '../test/helpers/policyModule.js';

const REQUESTS = 20_000;
const IDLE_SECONDS = 10;
const GOAL_BYTES_PER_MILLION = 10 * 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Outage {
  url: string;
  /** Bytes and lines the service has logged so far. */
  logged(): { bytes: number; lines: number };
  /** Bytes and lines logged when the node went down, until the outage was measured. */
  start: { bytes: number; lines: number; seconds: number };
  stop(): Promise<void>;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The service on a simulated node, then the node stopped and the service past its staleness limit. */
async function serviceInOutage(env: Record<string, string>): Promise<Outage> {
  const sim = await startSimnet({ seed: 3, initialTxs: 300, txPerSec: 0, blockIntervalSec: 0, policyModule: CORE_V31_POLICY_MODULE });
  const service = await spawnService(
    {
      BITCOIN_RPC_URL: sim.rpcUrl,
      BITCOIN_RPC_TIMEOUT_MS: '500',
      MEMPOOL_POLL_MS: '1000',
      NODE_STALE_AFTER_MS: '2000',
      OPTIMIZER_ENABLED: 'false',
      LOG_LEVEL: 'info',
      ...env,
    },
    'pipe',
  );
  const { child, url } = service;
  let bytes = 0;
  let lines = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (const b of chunk) if (b === 0x0a) lines++;
  });
  const health = () =>
    fetch(`${url}/health`).then(
      (r) => r.status,
      () => 0,
    );
  const stop = async () => {
    await service.stop();
    await sim.close().catch(() => undefined);
  };
  try {
    await until('the service', async () => (await health()) === 200 || child.exitCode !== null, 120_000);
    if (child.exitCode !== null) throw new Error('the service did not start');
    const up = { bytes, lines, at: performance.now() };
    await sim.close();
    await until('the outage (/health 503)', async () => (await health()) === 503, 30_000);
    // Let the first lines of the outage (the first failed poll, the first 503) be written.
    await sleep(1000);
    const start = { bytes: bytes - up.bytes, lines: lines - up.lines, seconds: Math.round((performance.now() - up.at) / 100) / 10 };
    return { url, logged: () => ({ bytes, lines }), start, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Row {
  scenario: string;
  requests: number;
  seconds: number;
  statuses: string;
  bytesLogged: number;
  linesLogged: number;
  bytesPerMillion: string;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

async function scenario(name: string, env: Record<string, string>): Promise<{ rows: Row[]; perMillion: number }> {
  const outage = await serviceInOutage(env);
  try {
    const start: Row = {
      scenario: `${name}: node down → /health 503`,
      requests: 0,
      seconds: outage.start.seconds,
      statuses: '-',
      bytesLogged: outage.start.bytes,
      linesLogged: outage.start.lines,
      bytesPerMillion: '-',
    };
    const idleStart = outage.logged();
    const idleStarted = performance.now();
    await sleep(IDLE_SECONDS * 1000);
    const idleSeconds = (performance.now() - idleStarted) / 1000;
    const idleBytes = outage.logged().bytes - idleStart.bytes;
    const idle: Row = {
      scenario: `${name}: idle outage`,
      requests: 0,
      seconds: Math.round(idleSeconds * 10) / 10,
      statuses: '-',
      bytesLogged: idleBytes,
      linesLogged: outage.logged().lines - idleStart.lines,
      bytesPerMillion: '-',
    };

    const floodStart = outage.logged();
    const floodStarted = performance.now();
    const result = await autocannon({
      url: outage.url,
      connections: 10,
      amount: REQUESTS,
      requests: [{ path: '/v1/mempool/stats' }, { path: '/v1/fee-estimate' }, { path: '/v1/mempool/fees' }, { path: '/health' }],
    });
    // Lines of the last requests reach the pipe a moment later.
    await sleep(500);
    const floodSeconds = (performance.now() - floodStarted) / 1000;
    const floodBytes = outage.logged().bytes - floodStart.bytes;
    const requests = result.requests.total;
    const attributable = Math.max(0, floodBytes - (idleBytes / idleSeconds) * floodSeconds);
    const perMillion = (attributable / Math.max(1, requests)) * 1e6;
    const statuses = Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})
      .map(([code, s]) => `${code}×${s.count}`)
      .join(' ');
    const flood: Row = {
      scenario: `${name}: ${requests} requests`,
      requests,
      seconds: Math.round(floodSeconds * 10) / 10,
      statuses,
      bytesLogged: floodBytes,
      linesLogged: outage.logged().lines - floodStart.lines,
      bytesPerMillion: mb(perMillion),
    };
    return { rows: [start, idle, flood], perMillion };
  } finally {
    await outage.stop();
  }
}

export async function run(): Promise<void> {
  console.log(`\nbytes logged (LOG_LEVEL=info) during a node outage: idle ${IDLE_SECONDS} s, then ${REQUESTS} requests from one address`);
  const off = await scenario('rate limit off', { RATE_LIMIT_MAX: '0' });
  const limited = await scenario('rate limit default', {});
  console.table([...off.rows, ...limited.rows]);
  const worst = Math.max(off.perMillion, limited.perMillion);
  console.log(
    `log volume during an outage: ${mb(off.perMillion)} per million requests (rate limit off), ${mb(limited.perMillion)} (default); goal < 10 MB: ${worst < GOAL_BYTES_PER_MILLION ? 'met' : 'NOT met'}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
