/**
 * Payments benchmark (`npm run bench`, or `npx tsx bench/payments.bench.ts` alone).
 *
 * 1. Verified payments per second on one core: the gate's local checks (EIP-712 digest + ECDSA
 *    recovery + the rest) over pre-signed authorizations, alone and with the SQLite nonce claim;
 *    signature recovery compared across libsecp256k1 (what the gate uses), @noble/curves and viem.
 * 2. End to end over HTTP on loopback (autocannon): a paid route whose answer is cached in memory,
 *    every request carrying a fresh pre-signed authorization, against a free route of the same
 *    server in the same run. The server runs in a child process so the load generator does not
 *    share its event loop.
 * 3. (paymentsLatency.ts) the latency a healthy facilitator adds, the answer time with a blackholed
 *    one against the configured budget, and what synchronous=FULL costs the ledger.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { loadConfig } from '../src/config.js';
import { bindOffer, requirementsBuilder } from '../src/payments/challenge.js';
import { encodeHeaderJson } from '../src/payments/decode.js';
import { openPaymentsDb } from '../src/payments/db.js';
import { domainSeparator, TRANSFER_WITH_AUTHORIZATION_TYPES, transferWithAuthorizationDigest } from '../src/payments/eip712.js';
import { resolveNetworks } from '../src/payments/networks.js';
import { paymentsPlugin } from '../src/payments/plugin.js';
import { recoverAddress, RECOVERY_BACKEND } from '../src/payments/recover.js';
import type { PaymentPayload } from '../src/payments/schemas.js';
import { SqliteReplayStore } from '../src/payments/store/sqliteReplayStore.js';
import { createVerifier } from '../src/payments/verify.js';
import { facilitatorLatencyBench, ledgerDurabilityBench } from './paymentsLatency.js';

const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
/** A fixed public base URL: pre-signed payments name the resource the server quotes (http and inject alike). */
export const PUBLIC_BASE_URL = 'http://127.0.0.1';
export const BENCH_ROUTE = 'GET /v1/block-height';
const ENV = { PAY_TO, X402_NETWORKS: 'eip155:8453,eip155:137,eip155:42161,eip155:480', LOG_LEVEL: 'silent', PUBLIC_BASE_URL };
/** Route prices, in each route's config as the registry's routes carry them (src/api/routes.ts). */
const priced = (key: string, priceUsd: number) => ({ config: { payment: { key, priceUsd } } });
const TYPES = TRANSFER_WITH_AUTHORIZATION_TYPES;

interface NativeSign {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}
const native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSign;

/** Pre-signs `n` Base USDC authorizations (libsecp256k1 signing: fast, low-s like every wallet). */
export function presign(n: number, keys = 16): PaymentPayload[] {
  const config = loadConfig(ENV);
  const base = resolveNetworks(config)[0]!;
  // The offer for GET /v1/block-height, bound to its route as the gate offers it.
  const requirement = bindOffer(requirementsBuilder([base], PAY_TO, config.X402_MAX_TIMEOUT_SECONDS).forPrice(0.001), { route: BENCH_ROUTE })[0]!;
  const separator = domainSeparator({ name: base.name, version: base.version, chainId: base.chainId, verifyingContract: base.asset });
  const accounts = Array.from({ length: keys }, () => {
    const key = secp256k1.utils.randomSecretKey();
    return { key, address: privateKeyToAccount(`0x${Buffer.from(key).toString('hex')}`).address };
  });
  const validBefore = String(Math.floor(Date.now() / 1000) + config.X402_MAX_TIMEOUT_SECONDS);
  const out: PaymentPayload[] = [];
  for (let i = 0; i < n; i++) {
    const a = accounts[i % keys]!;
    const authorization = {
      from: a.address,
      to: PAY_TO,
      value: requirement.amount,
      validAfter: '0',
      validBefore,
      nonce: `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`,
    };
    const { signature, recid } = native.ecdsaSign(transferWithAuthorizationDigest(separator, authorization), a.key);
    const sig = `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`;
    out.push({
      x402Version: 2,
      resource: { url: `${PUBLIC_BASE_URL}/v1/block-height` },
      accepted: { ...requirement, extra: { ...requirement.extra } },
      payload: { signature: sig, authorization },
    });
  }
  return out;
}

function rate(count: number, ms: number): number {
  return Math.round((count / ms) * 1000);
}

function timeIt(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

async function verificationBench(): Promise<Array<{ measure: string; perSecond: number }>> {
  const n = 4000;
  const payloads = presign(n);
  const config = loadConfig(ENV);
  const networks = resolveNetworks(config);
  const offered = bindOffer(requirementsBuilder(networks, PAY_TO, config.X402_MAX_TIMEOUT_SECONDS).forPrice(0.001), { route: BENCH_ROUTE });
  const verifier = createVerifier(networks);
  const now = Math.floor(Date.now() / 1000);
  const base = networks[0]!;
  const separator = domainSeparator({ name: base.name, version: base.version, chainId: base.chainId, verifyingContract: base.asset });

  // Warm up the JIT, then measure.
  for (const p of payloads.slice(0, 200)) verifier.verify(p, offered, now);
  let ok = 0;
  const verifyMs = timeIt(() => {
    for (const p of payloads) if (verifier.verify(p, offered, now).ok) ok++;
  });
  if (ok !== n) throw new Error(`only ${ok}/${n} pre-signed payments verified`);

  const digests = payloads.map((p) => transferWithAuthorizationDigest(separator, p.payload.authorization));
  const digestMs = timeIt(() => {
    for (const p of payloads) transferWithAuthorizationDigest(separator, p.payload.authorization);
  });
  const recoverMs = timeIt(() => {
    for (let i = 0; i < n; i++) recoverAddress(digests[i]!, payloads[i]!.payload.signature);
  });
  const nobleN = 300;
  const nobleMs = timeIt(() => {
    for (let i = 0; i < nobleN; i++) {
      const sig = payloads[i]!.payload.signature;
      const r = BigInt(`0x${sig.slice(2, 66)}`);
      const s = BigInt(`0x${sig.slice(66, 130)}`);
      new secp256k1.Signature(r, s, parseInt(sig.slice(130), 16) - 27).recoverPublicKey(digests[i]!);
    }
  });
  const viemN = 300;
  const domain = { name: base.name, version: base.version, chainId: base.chainId, verifyingContract: base.asset };
  const t = performance.now();
  for (let i = 0; i < viemN; i++) {
    const a = payloads[i]!.payload.authorization;
    const signer = await recoverTypedDataAddress({
      domain,
      types: TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: a.from as `0x${string}`,
        to: a.to as `0x${string}`,
        value: BigInt(a.value),
        validAfter: BigInt(a.validAfter),
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce as `0x${string}`,
      },
      signature: payloads[i]!.payload.signature as `0x${string}`,
    });
    if (signer.toLowerCase() !== a.from.toLowerCase()) throw new Error('viem disagrees with the pre-signed payload');
  }
  const viemMs = performance.now() - t;

  // Verification plus the durable nonce claim (SQLite, WAL), as the single-machine gate does.
  const dir = mkdtempSync(join(tmpdir(), 'x402-bench-'));
  const db = openPaymentsDb(dir);
  const store = new SqliteReplayStore(db);
  const fresh = presign(n);
  const claimMs = await (async () => {
    const t0 = performance.now();
    for (const p of fresh) {
      const v = verifier.verify(p, offered, now);
      if (!v.ok || !(await store.claimNonce(v.nonceKey, (v.validBefore + 3600) * 1000))) throw new Error('claim failed');
    }
    return performance.now() - t0;
  })();
  db.close();
  rmSync(dir, { recursive: true, force: true });

  return [
    { measure: `gate verification (all local checks, ${RECOVERY_BACKEND})`, perSecond: rate(n, verifyMs) },
    { measure: 'gate verification + replay check (SQLite-backed store)', perSecond: rate(n, claimMs) },
    { measure: 'EIP-712 digest only (js-sha3 keccak, domain separator cached)', perSecond: rate(n, digestMs) },
    { measure: `ECDSA recovery only (${RECOVERY_BACKEND})`, perSecond: rate(n, recoverMs) },
    { measure: 'ECDSA recovery, @noble/curves 2.4 (pure JS fallback)', perSecond: rate(nobleN, nobleMs) },
    { measure: 'viem recoverTypedDataAddress (for comparison)', perSecond: rate(viemN, viemMs) },
  ];
}

/** The bench server: the real payments plugin (SQLite store; no facilitator unless `env` names one) and two routes. */
async function benchApp(dataDir: string, env: Record<string, string> = { X402_ALLOW_UNSETTLED: '1' }) {
  const app = Fastify({ logger: false });
  await app.register(paymentsPlugin, {
    config: loadConfig({ ...ENV, DATA_DIR: dataDir, ...env }),
    ...(process.env.BENCH_STORE === 'memory' ? { store: 'memory' as const } : {}),
  });
  const cached = JSON.stringify({ success: true, height: 875_000, hex: '0xd59f8' });
  app.get('/health', priced('GET /health', 0), async (_req, reply) => reply.type('application/json').send('{"success":true,"status":"ok"}'));
  app.get('/v1/block-height', priced(BENCH_ROUTE, 0.001), async (_req, reply) => reply.type('application/json').send(cached));
  // CPU time of this process, so the run can report server CPU per request (the load generator
  // shares the machine's cores; CPU per request is what bounds one process on its own core).
  app.get('/bench/cpu', priced('GET /bench/cpu', 0), async () => process.cpuUsage());
  return app;
}

async function serve(dataDir: string): Promise<void> {
  const app = await benchApp(dataDir);
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
  process.stdout.write(`PORT=${(app.server.address() as { port: number }).port}\n`);
}

async function cpuMicros(base: string): Promise<number> {
  const u = (await (await fetch(`${base}/bench/cpu`)).json()) as { user: number; system: number };
  return u.user + u.system;
}

async function cannon(
  base: string,
  path: string,
  amount: number,
  headers?: string[],
): Promise<{ rps: number; p99: number; non2xx: number; cpuUsPerReq: number }> {
  let i = 0;
  const url = `${base}${path}`;
  const cpu0 = await cpuMicros(base);
  const result = await autocannon({
    url,
    connections: 16,
    amount,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => (headers ? { ...req, headers: { ...req.headers, 'payment-signature': headers[i++]! } } : req),
      },
    ],
  });
  const cpuUsPerReq = Math.round((await cpuMicros(base)) - cpu0) / amount;
  return {
    rps: Math.round(result.requests.total / result.duration),
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    cpuUsPerReq: Math.round(cpuUsPerReq),
  };
}

interface HttpRow {
  route: string;
  requests: number;
  reqPerSec: number;
  p99Ms: number;
  failures: number;
  serverCpuUsPerReq: number;
  /** 1 s of one core divided by the server's CPU time per request. */
  perCoreCapacity: number;
}

async function httpBench(): Promise<HttpRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'x402-bench-http-'));
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    while (!/PORT=\d+/.test(out)) out += String(((await once(child.stdout, 'data')) as [Buffer])[0]);
    const base = `http://127.0.0.1:${/PORT=(\d+)/.exec(out)?.[1]}`;
    const n = 20_000;
    const headers = presign(n + 2000).map((p) => encodeHeaderJson(p));
    await cannon(base, '/health', 2000); // warm-up
    await cannon(base, '/v1/block-height', 2000, headers.slice(n));
    const free = await cannon(base, '/health', n);
    const paid = await cannon(base, '/v1/block-height', n, headers.slice(0, n));
    const row = (route: string, r: typeof free): HttpRow => ({
      route,
      requests: n,
      reqPerSec: r.rps,
      p99Ms: r.p99,
      failures: r.non2xx,
      serverCpuUsPerReq: r.cpuUsPerReq,
      perCoreCapacity: Math.round(1e6 / r.cpuUsPerReq),
    });
    return [row('GET /health (free)', free), row('GET /v1/block-height (paid, fresh authorization each)', paid)];
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The whole plugin (decode, verify, replay check, handler, durable ledger row, PAYMENT-RESPONSE)
 * without the network stack: `app.inject` with 64 requests in flight, on this process's one core.
 */
async function injectBench(): Promise<{ measure: string; perSecond: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'x402-bench-inject-'));
  const app = await benchApp(dir);
  try {
    const n = 6000;
    const headers = presign(n + 1000).map((p) => encodeHeaderJson(p));
    const drive = async (list: string[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < list.length) {
            const h = list[next++]!;
            const res = await app.inject({ method: 'GET', url: '/v1/block-height', headers: { 'payment-signature': h } });
            if (res.statusCode !== 200) throw new Error(`paid request answered ${res.statusCode}`);
          }
        }),
      );
    };
    await drive(headers.slice(n)); // warm-up
    const t = performance.now();
    await drive(headers.slice(0, n));
    return { measure: 'full gate in-process (app.inject, 64 in flight, SQLite ledger)', perSecond: rate(n, performance.now() - t) };
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  console.log('\n## payments (x402 v2 gate)\n');
  await facilitatorLatencyBench({ presign, app: benchApp });
  await ledgerDurabilityBench();
  const verification = await verificationBench();
  verification.push(await injectBench());
  console.table(verification);
  const http = await httpBench();
  console.table(http);
  const [free, paid] = http;
  console.log(
    `paid/free: throughput ratio ${(paid!.reqPerSec / free!.reqPerSec).toFixed(2)} on loopback (${paid!.reqPerSec} vs ${free!.reqPerSec} req/s, load generator on the same ${availableParallelism()}-core machine); ` +
      `server CPU ${paid!.serverCpuUsPerReq} vs ${free!.serverCpuUsPerReq} µs/request → ${paid!.perCoreCapacity} paid req/s per core ` +
      `(target >= 2000 verified paid req/s per process: ${paid!.failures > 0 ? 'NOT met (failures)' : `by server CPU ${paid!.perCoreCapacity >= 2000 ? 'met' : 'NOT met'}, measured on loopback ${paid!.reqPerSec >= 2000 ? 'met' : 'NOT met (load generator shares the cores)'}`})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--serve') await serve(process.argv[3]!);
  else await run();
}
