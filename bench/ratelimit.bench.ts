/**
 * Rate-limit flood benchmark (issue 21.1; `npm run bench -- ratelimit`).
 *
 * One client address (X-Forwarded-For, trusted in these runs) floods the service with unpaid
 * requests, half to a paid route without a payment (402 within its challenge allowance, then 429),
 * half to a free route, with junk `PAYMENT-SIGNATURE` headers on a third of them, while `/health`
 * is probed by one sequential client. `/health` p50/p99 under the flood against an idle server, in
 * one run, as absolute figures and as ratios. The service and the flood run in child processes
 * (bench/hostile.bench.ts's harness), so neither shares the probe's event loop.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { probeHealth, startService } from './hostile.bench.js';

const FLOOD_CONNECTIONS = 20;
const FLOOD_SECONDS = 10;

/** The autocannon CLI in a child process: unpaid GETs from one address on `FLOOD_CONNECTIONS` connections. */
function flood(url: string, path: string, junk: boolean): Promise<{ requests: number; statuses: string }> {
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const headers = ['-H', 'x-forwarded-for=203.0.113.66', ...(junk ? ['-H', 'payment-signature=junk'] : [])];
  const child = spawn(process.execPath, [cli, '-c', String(FLOOD_CONNECTIONS / 4), '-d', String(FLOOD_SECONDS), '-j', ...headers, `${url}${path}`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return once(child, 'exit').then(() => {
    const report = JSON.parse(out) as { requests: { total: number }; statusCodeStats?: Record<string, { count: number }> };
    return {
      requests: report.requests.total,
      statuses: Object.entries(report.statusCodeStats ?? {})
        .map(([code, s]) => `${code}×${s.count}`)
        .join(' '),
    };
  });
}

interface Row {
  scenario: string;
  healthRequests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  healthNon2xx: number;
  floodRequests: number;
  floodStatuses: string;
}

async function scenario(name: string, env: Record<string, string>, flooded: boolean): Promise<Row> {
  const service = await startService(env);
  try {
    const floods = flooded
      ? [
          flood(service.url, '/v1/fee-estimate', false),
          flood(service.url, '/v1/fee-estimate', true),
          flood(service.url, '/v1/template/health', false),
          flood(service.url, '/v1/template/health', true),
        ]
      : [];
    if (flooded) await new Promise((r) => setTimeout(r, 1000));
    const health = await probeHealth(service.url);
    const done = await Promise.all(floods);
    return {
      scenario: name,
      healthRequests: health.requests,
      p50Ms: health.p50,
      p99Ms: health.p99,
      maxMs: health.max,
      healthNon2xx: health.non2xx,
      floodRequests: done.reduce((n, d) => n + d.requests, 0),
      floodStatuses: done.map((d) => d.statuses).join(' | ') || '-',
    };
  } finally {
    await service.stop();
  }
}

export async function run(): Promise<void> {
  console.log(
    `\n/health while one address floods unpaid requests (${FLOOD_CONNECTIONS} connections: paid route without payment, free route, each with and without a junk payment header)`,
  );
  const limits = { PAYMENTS_ENABLED: 'true' };
  const idle = await scenario('idle (baseline)', limits, false);
  const flooded = await scenario('flood, rate limits default', limits, true);
  const unlimited = await scenario('flood, rate limits off', { ...limits, RATE_LIMIT_MAX: '0' }, true);
  console.table([idle, flooded, unlimited]);
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
  console.log(
    `ratelimit /health under flood (limits default): p50 ${flooded.p50Ms} ms vs idle ${idle.p50Ms} ms (×${ratio(flooded.p50Ms, idle.p50Ms)}), ` +
      `p99 ${flooded.p99Ms} ms vs idle ${idle.p99Ms} ms (×${ratio(flooded.p99Ms, idle.p99Ms)}), /health non-2xx ${flooded.healthNon2xx}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
