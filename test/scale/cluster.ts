/**
 * A small production-shaped cluster for test/scale: Redis, one shared Bitcoin node (a real
 * `bitcoind` on regtest with a few wallet transactions in its mempool, or the embedded simulated
 * node in this process, which benchmarks use), three replicas of the service (`src/main.ts`, each its own
 * process and DATA_DIR, one receipt key, competing for the optimizer lease) and haproxy in front
 * with `deploy/haproxy.cfg` as it is. Every process is stopped by its PID.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimnet } from '../../src/simnet/index.js';
import { findBitcoind, startRegtest } from '../core/regtest.js';
import { CORE_V31_POLICY_MODULE } from '../helpers/policyModule.js';
import { switchableProxy, type SwitchableProxy } from '../helpers/switchableProxy.js';
import { redisAvailable, startRedis, type RedisServer } from '../payments/redisServer.js';
import { freePort } from '../helpers/loopback.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECEIPT_KEY = '3c'.repeat(32);
/** The optimizer leader's lease in the cluster (ms). */
export const OPTIMIZER_LEASE_MS = 3000;

export function haproxyAvailable(): boolean {
  return spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
}

export type ClusterNode = 'bitcoind' | 'simnet';

/** Why the scale suite cannot run here, or null. */
export function clusterMissing(node: ClusterNode = 'simnet'): string | null {
  if (!redisAvailable()) return 'redis-server is not installed';
  if (!haproxyAvailable()) return 'haproxy is not installed';
  if (node === 'bitcoind') {
    const found = findBitcoind();
    if ('missing' in found) {
      if (process.env.REQUIRE_BITCOIND === '1') throw new Error(`REQUIRE_BITCOIND=1 but no bitcoind: ${found.missing}`);
      return `no bitcoind: ${found.missing}`;
    }
  }
  return null;
}

interface SharedNode {
  rpcUrl: string;
  esploraUrl: string | undefined;
  close(): Promise<void>;
}

async function startNode(kind: ClusterNode): Promise<SharedNode> {
  if (kind === 'simnet') {
    const simnet = await startSimnet({ seed: 21, blockIntervalSec: 0, txPerSec: 0, initialTxs: 40, policyModule: CORE_V31_POLICY_MODULE });
    return { rpcUrl: simnet.rpcUrl, esploraUrl: simnet.esploraUrl, close: () => simnet.close() };
  }
  const found = findBitcoind();
  if ('missing' in found) throw new Error(found.missing);
  // 150 blocks: 50 mature coinbases, so the payments below need no unconfirmed change.
  const core = await startRegtest(found.path, { blocks: 150 });
  try {
    // A mempool to optimize: wallet payments at fee rates from 1 to 40 sat/vB.
    for (let i = 0; i < 40; i++) {
      const address = await core.rpc<string>('getnewaddress', '', 'bech32');
      await core.rpc('sendtoaddress', address, (1_000_000 + i * 1000) / 1e8, '', '', false, true, null, 'unset', false, 1 + i);
    }
  } catch (error) {
    await core.close();
    throw error;
  }
  return { rpcUrl: core.rpcUrl, esploraUrl: undefined, close: () => core.close() };
}

/**
 * Waits until `url` answers 200 from one of `pids` (a replica's /health names its process): a port
 * picked free can be taken by another test file's server before our process binds it, and that
 * server's /health must not pass for ours.
 */
async function waitFor(url: string, child: ChildProcess, what: string, pids: ReadonlyArray<number | undefined>): Promise<void> {
  for (let i = 0; ; i++) {
    const pid = await fetch(url).then(
      async (r) => (r.status === 200 ? ((await r.json()) as { service?: { pid?: number } }).service?.pid : undefined),
      () => undefined,
    );
    if (pid !== undefined && pids.includes(pid)) return;
    if (pid !== undefined && i > 20) throw new Error(`${url} is answered by another process (pid ${pid}), not ${what}`);
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited before it served`);
    if (i > 600) throw new Error(`${what} did not serve ${url} within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  await once(child, 'exit');
}

export interface Replica {
  name: string;
  url: string;
  dataDir: string;
  process: ChildProcess;
  /** kill -9. */
  kill(): Promise<void>;
}

export interface Cluster {
  /** haproxy's address: what clients use. */
  url: string;
  replicas: Replica[];
  node: SharedNode;
  /** The last replica reaches the node through this proxy: `down()` cuts that replica off alone. */
  lastReplicaNode: SwitchableProxy;
  close(): Promise<void>;
}

export async function startCluster(env: Record<string, string> = {}, nodeKind: ClusterNode = 'simnet'): Promise<Cluster> {
  const redis: RedisServer = await startRedis();
  const node = await startNode(nodeKind).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  const lastReplicaNode = await switchableProxy(node.rpcUrl);
  const lbPort = await freePort();
  const url = `http://127.0.0.1:${lbPort}`;
  const replicas: Replica[] = [];
  let haproxy: ChildProcess | undefined;
  const close = async () => {
    if (haproxy) await stopChild(haproxy);
    await Promise.all(replicas.map((r) => stopChild(r.process)));
    for (const r of replicas) rmSync(r.dataDir, { recursive: true, force: true });
    await lastReplicaNode.close();
    await node.close();
    await redis.stop();
  };
  try {
    // haproxy binds its port at once (its backends count as down until they answer its checks), so
    // the port picked free cannot be taken by another test file's server while the replicas start.
    const ports = [await freePort(), await freePort(), await freePort()];
    const [r1, r2, r3] = ports.map((port) => `127.0.0.1:${port}`);
    haproxy = spawn('haproxy', ['-db', '-f', join(ROOT, 'deploy/haproxy.cfg')], {
      env: { ...process.env, HAPROXY_BIND: `127.0.0.1:${lbPort}`, REPLICA_1: r1 ?? '', REPLICA_2: r2 ?? '', REPLICA_3: r3 ?? '' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    for (const [k, name] of ['r1', 'r2', 'r3'].entries()) {
      const nodeUrl = name === 'r3' ? lastReplicaNode.url : node.rpcUrl;
      const port = ports[k] ?? 0;
      const dataDir = mkdtempSync(join(tmpdir(), `scale-${name}-`));
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
        cwd: ROOT,
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: dataDir,
          LOG_LEVEL: 'error',
          BITCOIN_RPC_URL: nodeUrl,
          ...(node.esploraUrl ? { ESPLORA_URL: node.esploraUrl } : {}),
          REDIS_URL: redis.url,
          PUBLIC_BASE_URL: url,
          TRUST_PROXY: '127.0.0.1',
          // One deployment: one receipt key; one optimizer leader at a time (a short lease here).
          RECEIPT_SECRET_KEY: RECEIPT_KEY,
          OPTIMIZER_LEASE_MS: String(OPTIMIZER_LEASE_MS),
          OPTIMIZER_INTERVAL_SEC: '2',
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const replica: Replica = { name, url: `http://127.0.0.1:${port}`, dataDir, process: child, kill: () => stopChild(child, 'SIGKILL') };
      replicas.push(replica);
    }
    await Promise.all(replicas.map((r) => waitFor(`${r.url}/health`, r.process, `replica ${r.name}`, [r.process.pid])));
    await waitFor(
      `${url}/health`,
      haproxy,
      'haproxy',
      replicas.map((r) => r.process.pid),
    );
    return { url, replicas, node, lastReplicaNode, close };
  } catch (error) {
    await close();
    throw error;
  }
}
