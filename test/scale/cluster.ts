/**
 * A small production-shaped cluster for test/scale: Redis, one shared Bitcoin node (the embedded
 * simulated node, in this process), three replicas of the service (`src/main.ts`, each its own
 * process and DATA_DIR, one receipt key, competing for the optimizer lease) and haproxy in front
 * with `deploy/haproxy.cfg` as it is. Every process is stopped by its PID.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimnet, type SimnetHandle } from '../../src/simnet/index.js';
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

/** Why the scale suite cannot run here, or null. */
export function clusterMissing(): string | null {
  if (!redisAvailable()) return 'redis-server is not installed';
  if (!haproxyAvailable()) return 'haproxy is not installed';
  return null;
}

async function waitFor(url: string, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
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
  node: SimnetHandle;
  /** The last replica reaches the node through this proxy: `down()` cuts that replica off alone. */
  lastReplicaNode: SwitchableProxy;
  close(): Promise<void>;
}

export async function startCluster(env: Record<string, string> = {}): Promise<Cluster> {
  const redis: RedisServer = await startRedis();
  const node = await startSimnet({ seed: 21, blockIntervalSec: 0, txPerSec: 0, initialTxs: 40, policyModule: CORE_V31_POLICY_MODULE });
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
    for (const name of ['r1', 'r2', 'r3']) {
      const nodeUrl = name === 'r3' ? lastReplicaNode.url : node.rpcUrl;
      const port = await freePort();
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
          ESPLORA_URL: node.esploraUrl,
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
    await Promise.all(replicas.map((r) => waitFor(`${r.url}/health`, r.process, `replica ${r.name}`)));
    const [r1, r2, r3] = replicas.map((r) => r.url.replace('http://', ''));
    haproxy = spawn('haproxy', ['-db', '-f', join(ROOT, 'deploy/haproxy.cfg')], {
      env: { ...process.env, HAPROXY_BIND: `127.0.0.1:${lbPort}`, REPLICA_1: r1 ?? '', REPLICA_2: r2 ?? '', REPLICA_3: r3 ?? '' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    await waitFor(`${url}/health`, haproxy, 'haproxy');
    return { url, replicas, node, lastReplicaNode, close };
  } catch (error) {
    await close();
    throw error;
  }
}
