/**
 * Where one replica's time goes under paid load (`npx tsx bench/paidProfile.ts`, needs
 * redis-server): the setup of bench/scale.bench.ts (Redis, a simulated node and the mock
 * facilitator in their own processes) with ONE replica started under `node --cpu-prof`; after a
 * warm-up, `REQUESTS` paid `GET /v1/mempool/stats` at 16 connections, then the replica is stopped
 * and the profile of the paid load's window is printed (bench/profileSummary.ts: by part of the
 * paid path, beside the free load's; heaviest functions and files). The .cpuprofile is kept (its
 * path is printed) for Chrome DevTools; `npx tsx bench/paidProfile.ts <file>` summarizes one again.
 *
 * In the same run it prints the replica's CPU per paid request (its own /proc CPU time over the
 * load) against the floor (issue 25): the CPU of a free request (`GET /health`, same replica,
 * same count, same connections) + one ECDSA recovery + one EIP-712 digest (both timed in this
 * process, one core, on the same authorizations, in CPU time as well). Ratio = floor / paid; goal ≥ 0.8.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { decodePaymentHeader } from '../src/payments/decode.js';
import { domainSeparator, transferWithAuthorizationDigest } from '../src/payments/eip712.js';
import { resolveNetworks } from '../src/payments/networks.js';
import { recoverAddress, RECOVERY_BACKEND } from '../src/payments/recover.js';
import { startSimnet } from '../src/simnet/index.js';
import { freePort } from '../test/helpers/loopback.js';
import { CORE_V31_POLICY_MODULE } from '../test/helpers/policyModule.js';
import { startRedis } from '../test/payments/redisServer.js';
import { monotonicUs, summarize, type Window } from './profileSummary.js';
import { facilitatorProcess, load, NETWORKS, PAY_TO, presign, PUBLIC_BASE_URL } from './scale.bench.js';

const REQUESTS = Number(process.env.REQUESTS ?? 4000);
const root = fileURLToPath(new URL('..', import.meta.url));

/** CPU time (user + system) of a process so far, µs, from /proc (Linux). */
function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}
/** The payments database's commits and the writes in them so far (the replica's /metrics). */
async function dbCommits(url: string): Promise<{ commits: number; writes: number; syncs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { commits: read('payments_db_commits'), writes: read('payments_db_commit_writes'), syncs: read('payments_db_syncs') };
}

/** sysconf(_SC_CLK_TCK): 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Mean µs of CPU of one EIP-712 digest and of one ECDSA recovery (libsecp256k1), over the given payment headers. */
function cryptoFloor(headers: string[]): { digestUs: number; recoveryUs: number } {
  const base = resolveNetworks(loadConfig({ PAY_TO, X402_NETWORKS: NETWORKS }))[0];
  if (!base) throw new Error('no network');
  const separator = domainSeparator({ name: base.name, version: base.version, chainId: base.chainId, verifyingContract: base.asset });
  const payloads = headers.map((h) => {
    const d = decodePaymentHeader(h);
    if (d.kind !== 'ok') throw new Error('a pre-signed header does not decode');
    return d.payload.payload;
  });
  // CPU time, as the replica's side is measured (/proc): on a shared machine wall time would count
  // the time this process waited for a core (it doubled the recovery's figure at load 7 on 2 cores).
  const time = (fn: () => void) => {
    for (let k = 0; k < 2; k++) fn(); // the first pass warms the JIT
    const t = process.cpuUsage();
    fn();
    const used = process.cpuUsage(t);
    return (used.user + used.system) / payloads.length;
  };
  const digests = payloads.map((p) => transferWithAuthorizationDigest(separator, p.authorization));
  const digestUs = time(() => {
    for (const p of payloads) transferWithAuthorizationDigest(separator, p.authorization);
  });
  const recoveryUs = time(() => {
    payloads.forEach((p, i) => {
      const d = digests[i];
      if (!d || recoverAddress(d, p.signature) !== p.authorization.from.toLowerCase()) throw new Error('recovery disagrees');
    });
  });
  return { digestUs, recoveryUs };
}

// `npx tsx bench/paidProfile.ts <file.cpuprofile>` summarizes a profile already written.
const given = process.argv[2];
if (given) {
  summarize(given);
  process.exit(0);
}

const redis = await startRedis();
const node = await startSimnet({ seed: 21, blockIntervalSec: 0, txPerSec: 0, initialTxs: 40, policyModule: CORE_V31_POLICY_MODULE });
const facilitator = await facilitatorProcess();
const profDir = mkdtempSync(join(tmpdir(), 'paid-profile-'));
const dataDir = mkdtempSync(join(tmpdir(), 'paid-profile-data-'));
const port = await freePort();
const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--import', 'tsx', join(root, 'src/main.ts')], {
  cwd: root,
  env: {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    BITCOIN_RPC_URL: node.rpcUrl,
    ESPLORA_URL: node.esploraUrl,
    REDIS_URL: redis.url,
    PUBLIC_BASE_URL,
    PAY_TO,
    X402_NETWORKS: NETWORKS,
    X402_FACILITATOR_URL: facilitator.url,
    OPTIMIZER_ENABLED: 'false',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const url = `http://127.0.0.1:${port}`;
const windows: { paid: Window | null; free: Window | null } = { paid: null, free: null };
console.log(`uptime: ${readFileSync('/proc/loadavg', 'utf8').trim()} (load averages 1/5/15 min, running/total, last pid)`);
try {
  for (
    let i = 0;
    !(await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    ));
    i++
  ) {
    if (i > 600 || child.exitCode !== null) throw new Error('the replica did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const headers = presign(REQUESTS + 500);
  const pid = child.pid ?? 0;
  await load(url, headers.slice(REQUESTS));
  await autocannon({ url: `${url}/health`, connections: 16, amount: 500 });
  const db0 = await dbCommits(url);
  let cpu0 = processCpuMicros(pid);
  const fromUs = monotonicUs();
  const result = await load(url, headers.slice(0, REQUESTS));
  windows.paid = { fromUs, toUs: monotonicUs(), requests: REQUESTS };
  const paidUs = (processCpuMicros(pid) - cpu0) / REQUESTS;
  const db1 = await dbCommits(url);
  console.log(`one replica under --cpu-prof: ${JSON.stringify(result)}`);
  const commits = db1.commits - db0.commits;
  console.log(
    `payments database (group commit): ${commits} commits for ${REQUESTS} paid requests, ` +
      `${((db1.writes - db0.writes) / commits).toFixed(1)} writes per commit, ${(commits / REQUESTS).toFixed(2)} commits per paid request, ` +
      `${((db1.syncs - db0.syncs) / REQUESTS).toFixed(2)} WAL syncs per paid request`,
  );
  cpu0 = processCpuMicros(pid);
  const freeFromUs = monotonicUs();
  const free = await autocannon({ url: `${url}/health`, connections: 16, amount: REQUESTS });
  windows.free = { fromUs: freeFromUs, toUs: monotonicUs(), requests: REQUESTS };
  const freeUs = (processCpuMicros(pid) - cpu0) / REQUESTS;
  if (free.non2xx + free.errors > 0) console.log(`warning: ${free.non2xx + free.errors} of the free requests failed`);
  const { digestUs, recoveryUs } = cryptoFloor(headers.slice(0, 2000));
  const floor = freeUs + recoveryUs + digestUs;
  console.log(
    `server CPU per verified paid request: ${paidUs.toFixed(0)} µs vs floor ${floor.toFixed(0)} µs ` +
      `(free GET /health ${freeUs.toFixed(0)} + ECDSA recovery ${recoveryUs.toFixed(0)} (${RECOVERY_BACKEND}) + EIP-712 digest ${digestUs.toFixed(1)}): ` +
      `${(floor / paidUs).toFixed(2)} of the limit (goal ≥ 0.8); ${Math.round(1e6 / paidUs)} paid req/s per core`,
  );
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
  await facilitator.close();
  await node.close();
  await redis.stop();
}
// The main thread's profile (thread 0); tsx's loader thread writes its own.
const file = readdirSync(profDir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
// The windows beside the profile, for a closer look at one part (inclusive times, call trees).
writeFileSync(join(profDir, 'windows.json'), JSON.stringify(windows));
if (file) summarize(join(profDir, file), windows.paid, windows.free);
else console.log('no profile written');
