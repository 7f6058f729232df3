/**
 * Scale-out load figures (issue 16; `npm run bench -- scale`, needs redis-server and haproxy).
 *
 * Requests/s and p99 of a cached paid read (`GET /v1/mempool/stats`, answered from the mempool
 * view), every request carrying a fresh pre-signed authorization verified and settled through a
 * local mock facilitator (`/verify` + `/settle` over loopback, its own process), against one replica directly and
 * against three replicas behind haproxy (deploy/haproxy.cfg) sharing Redis, in the same run and
 * the same cluster (test/scale/cluster.ts), plus one replica at one connection (the latency of a
 * paid request with nothing queued); then, on a fresh single service, `/health` p99 while 10
 * clients post 1 MB nested JSON bodies (bench/hostile.bench.ts's scenario; goal < 50 ms). One
 * summary line carries the figures. On this 2-core machine the load generator, haproxy, Redis,
 * the node and the replicas share the cores: the figures compare, they do not promise. Where a
 * replica's time goes: `npx tsx bench/paidProfile.ts`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../src/config.js';
import { bindOffer, requirementsBuilder } from '../src/payments/challenge.js';
import { encodeHeaderJson } from '../src/payments/decode.js';
import { domainSeparator, transferWithAuthorizationDigest } from '../src/payments/eip712.js';
import { resolveNetworks } from '../src/payments/networks.js';
import { clusterMissing, startCluster } from '../test/scale/cluster.js';
import { hostileBody, scenario, type Row } from './hostile.bench.js';

export const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
export const PUBLIC_BASE_URL = 'http://127.0.0.1';
export const NETWORKS = 'eip155:8453';
const ROUTE = '/v1/mempool/stats';
const PRICE_USD = 0.001;
const REQUESTS = 4000;
const CONNECTIONS = 16;
/** Requests at one connection: the latency of one paid request with nothing queued. */
const SEQUENTIAL = 500;

interface NativeSign {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}
const native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSign;

/** `n` payment headers for `GET ROUTE`, signed with libsecp256k1 by 16 payers. */
export function presign(n: number): string[] {
  const config = loadConfig({ PAY_TO, X402_NETWORKS: NETWORKS });
  const base = resolveNetworks(config)[0];
  if (!base) throw new Error('no network');
  const requirement = bindOffer(requirementsBuilder([base], PAY_TO, config.X402_MAX_TIMEOUT_SECONDS).forPrice(PRICE_USD), { route: `GET ${ROUTE}` })[0];
  if (!requirement) throw new Error('no requirement');
  const separator = domainSeparator({ name: base.name, version: base.version, chainId: base.chainId, verifyingContract: base.asset });
  const payers = Array.from({ length: 16 }, () => {
    const key = secp256k1.utils.randomSecretKey();
    return { key, address: privateKeyToAccount(`0x${Buffer.from(key).toString('hex')}`).address };
  });
  const validBefore = String(Math.floor(Date.now() / 1000) + config.X402_MAX_TIMEOUT_SECONDS);
  return Array.from({ length: n }, (_, i) => {
    const payer = payers[i % payers.length] ?? payers[0];
    if (!payer) throw new Error('no payer');
    const authorization = {
      from: payer.address,
      to: PAY_TO,
      value: requirement.amount,
      validAfter: '0',
      validBefore,
      nonce: `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`,
    };
    const { signature, recid } = native.ecdsaSign(transferWithAuthorizationDigest(separator, authorization), payer.key);
    return encodeHeaderJson({
      x402Version: 2,
      resource: { url: `${PUBLIC_BASE_URL}${ROUTE}` },
      accepted: requirement,
      payload: { signature: `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`, authorization },
    });
  });
}

/** The mock facilitator (test/helpers/mockFacilitator.ts) in its own process: not behind the load generator's event loop. */
export async function facilitatorProcess(): Promise<{ url: string; close(): Promise<void> }> {
  const helper = fileURLToPath(new URL('../test/helpers/mockFacilitator.ts', import.meta.url));
  const script = `const { startMockFacilitator } = await import(${JSON.stringify(helper)}); const f = await startMockFacilitator('ok'); console.log('URL=' + f.url);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  while (!/URL=\S+/.test(out)) out += String(((await once(child.stdout, 'data')) as [Buffer])[0]);
  return {
    url: /URL=(\S+)/.exec(out)?.[1] ?? '',
    async close() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export async function load(
  url: string,
  headers: string[],
  connections = CONNECTIONS,
): Promise<{ reqPerSec: number; p50Ms: number; p99Ms: number; failures: number }> {
  let i = 0;
  const result = await autocannon({
    url: `${url}${ROUTE}`,
    connections,
    amount: headers.length,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'payment-signature': headers[i++] ?? '' } }) }],
  });
  return {
    reqPerSec: Math.round(result.requests.total / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors,
  };
}

export async function run(): Promise<void> {
  const missing = clusterMissing();
  if (missing) {
    console.log(`bench/scale skipped: ${missing}`);
    return;
  }
  const facilitator = await facilitatorProcess();
  const cluster = await startCluster({
    PAY_TO,
    X402_NETWORKS: NETWORKS,
    X402_FACILITATOR_URL: facilitator.url,
    PUBLIC_BASE_URL,
    LOG_LEVEL: 'warn',
  });
  let rows: Array<{ setup: string; connections: number; reqPerSec: number; p50Ms: number; p99Ms: number; failures: number }>;
  try {
    const headers = presign(3 * REQUESTS + SEQUENTIAL + 600);
    const direct = cluster.replicas[0]?.url ?? '';
    const at = (from: number, n: number) => headers.slice(from, from + n);
    // Warm-up on every path (JIT, connections, the first mempool poll).
    await load(direct, at(3 * REQUESTS + SEQUENTIAL, 300));
    await load(cluster.url, at(3 * REQUESTS + SEQUENTIAL + 300, 300));
    rows = [
      { setup: 'one replica, direct', connections: CONNECTIONS, ...(await load(direct, at(0, REQUESTS))) },
      { setup: 'three replicas behind haproxy', connections: CONNECTIONS, ...(await load(cluster.url, at(REQUESTS, 2 * REQUESTS))) },
      { setup: 'one replica, direct', connections: 1, ...(await load(direct, at(3 * REQUESTS, SEQUENTIAL), 1)) },
    ];
  } finally {
    await cluster.close();
    await facilitator.close();
  }
  // The hostile-body figure (bench/hostile.bench.ts) in the same run, on a fresh single service.
  const dir = mkdtempSync(join(tmpdir(), 'scale-hostile-'));
  let hostile: Row;
  try {
    hostile = await scenario('hostile, rate limit off', { RATE_LIMIT_MAX: '0' }, hostileBody(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nGET ${ROUTE} (paid ${PRICE_USD} USD, every request a new authorization, mock facilitator verify + settle)`);
  console.table(rows);
  const [one, three] = rows;
  console.log(
    `scale: one replica ${one?.reqPerSec} req/s (p50 ${one?.p50Ms} ms, p99 ${one?.p99Ms} ms) | three replicas behind haproxy ${three?.reqPerSec} req/s ` +
      `(p50 ${three?.p50Ms} ms, p99 ${three?.p99Ms} ms), ${CONNECTIONS} connections | /health p99 while 10 clients post 1 MB nested bodies: ` +
      `${hostile.p99Ms} ms (goal < 50 ms: ${hostile.p99Ms < 50 ? 'met' : 'NOT met'})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
