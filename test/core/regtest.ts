/**
 * A real Bitcoin Core on regtest for the test suite: finds the binary (`BITCOIND`, else
 * `../shared/bin/bitcoind.gz` unpacked into `.cache/core/`), starts it in a temporary datadir on free
 * loopback ports with ZMQ, waits for RPC, creates a wallet and mines spendable coins. A watchdog
 * process kills the node if the test process dies without stopping it: no orphan `bitcoind`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

import { RpcTransport } from '../../src/node/rpcTransport.js';
import { freePort } from '../helpers/loopback.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = join(ROOT, '.cache/core');
/** sha256 of the unpacked v31.99 binary (../shared/bin/README.md). */
const EXPECTED_SHA256 = '7ce18e4c6bf71f97317cef0f0b5a14e06f6426f67741ee20460813202d24e820';

/** sha256 of the unpacked v31.99 bitcoin-cli (../shared/bin/README.md). */
const CLI_SHA256 = '4560293bd72344964d0d71b2fafb43d85388051ac32dc3ec5918ad239c6866a4';

export type BinaryLookup = { path: string } | { missing: string };

/** Core's own `bitcoin-cli` (`BITCOIN_CLI`, else the shared copy unpacked into `.cache/core/`). */
export function findBitcoinCli(): BinaryLookup {
  const fromEnv = process.env.BITCOIN_CLI;
  if (fromEnv) return existsSync(fromEnv) ? { path: fromEnv } : { missing: `BITCOIN_CLI=${fromEnv} does not exist` };
  return unpackShared('bitcoin-cli', CLI_SHA256, 'BITCOIN_CLI');
}

/** The shared copy of a Core binary (`../shared/bin/NAME.gz`), checked and unpacked into `.cache/core/` once. */
function unpackShared(name: string, expectedSha256: string, envName: string): BinaryLookup {
  const target = join(CACHE, name);
  if (existsSync(target)) return { path: target };
  const gz = resolve(ROOT, `../shared/bin/${name}.gz`);
  if (!existsSync(gz)) return { missing: `no ${envName} set and no ${gz}` };
  const binary = gunzipSync(readFileSync(gz));
  const sha = createHash('sha256').update(binary).digest('hex');
  if (sha !== expectedSha256) return { missing: `${gz} unpacks to sha256 ${sha}, expected ${expectedSha256}` };
  mkdirSync(CACHE, { recursive: true });
  // Written under a temporary name and renamed: parallel test files never run a half-written binary.
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, binary);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return { path: target };
}

/** Where the bitcoind binary is, or why there is none. Unpacks the shared copy once. */
export function findBitcoind(): BinaryLookup {
  const fromEnv = process.env.BITCOIND;
  if (fromEnv) return existsSync(fromEnv) ? { path: fromEnv } : { missing: `BITCOIND=${fromEnv} does not exist` };
  return unpackShared('bitcoind', EXPECTED_SHA256, 'BITCOIND');
}

/**
 * Whether the real-Core suites run here. In CI (`REQUIRE_BITCOIND=1`) a missing binary is a failure,
 * not a skip; elsewhere the suite is skipped with one clear line.
 */
export function coreAvailability(): { run: true; path: string } | { run: false; reason: string } {
  const found = findBitcoind();
  if ('path' in found) return { run: true, path: found.path };
  if (process.env.REQUIRE_BITCOIND === '1') throw new Error(`REQUIRE_BITCOIND=1 but no bitcoind: ${found.missing}`);
  console.warn(`real Bitcoin Core tests skipped: ${found.missing}`);
  return { run: false, reason: found.missing };
}

export interface RegtestOptions {
  /** Extra `bitcoind` arguments (`-foo=bar`). */
  args?: string[];
  /** Blocks to mine to the wallet at start (≥ 101 for spendable coins). Default 101. */
  blocks?: number;
}

export interface Regtest {
  /** `http://u:p@127.0.0.1:port`: what BITCOIN_RPC_URL takes. */
  rpcUrl: string;
  /** `tcp://127.0.0.1:port` of `-zmqpubsequence` and `-zmqpubrawtx`. */
  zmqSequenceUrl: string;
  zmqRawTxUrl: string;
  datadir: string;
  /** A wallet address that receives mined coins. */
  minerAddress: string;
  /** Any RPC (wallet RPCs go to the one loaded wallet). */
  rpc<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  /**
   * Stops the node and starts it again on the same datadir, ports and ZMQ endpoints (the mempool is
   * saved and reloaded, the ZMQ message counters start again from 0); reloads the wallet.
   */
  restart(): Promise<void>;
  /** Sends `signal` to the node and waits for it to exit; the datadir is kept, so `restart` brings it back. */
  kill(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Mines `n` blocks to the miner address; returns their hashes. */
  mine(n: number): Promise<string[]>;
  /** Stops the node (RPC `stop`, then SIGKILL after 10 s) and removes the datadir. */
  close(): Promise<void>;
}

const RPC_USER = 'regtest';
const RPC_PASS = 'regtest';

/** Starts a fresh regtest node with a funded wallet. */
export async function startRegtest(binary: string, options: RegtestOptions = {}): Promise<Regtest> {
  // In memory where the machine has it: the chain and wallet databases sync a lot.
  const datadir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'btc-intel-core-'));
  const [rpcPort, p2pPort, zmqSeqPort, zmqRawPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const zmqSequenceUrl = `tcp://127.0.0.1:${zmqSeqPort}`;
  const zmqRawTxUrl = `tcp://127.0.0.1:${zmqRawPort}`;
  const args = [
    '-regtest',
    `-datadir=${datadir}`,
    `-rpcport=${rpcPort}`,
    `-port=${p2pPort}`,
    '-listen=0',
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    `-rpcuser=${RPC_USER}`,
    `-rpcpassword=${RPC_PASS}`,
    '-txindex=1',
    '-fallbackfee=0.0002',
    '-printtoconsole=0',
    '-rpcthreads=8',
    '-rpcworkqueue=256',
    // Tests only: the wallet's SQLite does not wait for the disk (Core's own functional tests do the same).
    '-unsafesqlitesync',
    `-zmqpubsequence=${zmqSequenceUrl}`,
    `-zmqpubrawtx=${zmqRawTxUrl}`,
    ...(options.args ?? []),
  ];
  let stderr = '';
  const launch = () => {
    const node = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    node.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    return { node, watchdog: startWatchdog(node, datadir) };
  };
  let { node: child, watchdog } = launch();
  const rpcUrl = `http://${RPC_USER}:${RPC_PASS}@127.0.0.1:${rpcPort}`;
  const transport = new RpcTransport({ url: rpcUrl, timeoutMs: 120_000 });
  const rpc = <T>(method: string, ...params: unknown[]) => transport.raw(method, params, { fastJson: true }) as Promise<T>;

  const stopNode = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      await rpc('stop').catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const stop = async () => {
    await stopNode();
    watchdog.kill('SIGKILL');
    rmSync(datadir, { recursive: true, force: true });
  };
  const restart = async () => {
    // The watchdog removes the datadir when the node exits: retire it first.
    watchdog.kill('SIGKILL');
    await stopNode();
    ({ node: child, watchdog } = launch());
    await waitForRpc(child, rpc, () => stderr);
    const loaded = await rpc<string[]>('listwallets');
    if (!loaded.includes('miner')) await rpc('loadwallet', 'miner');
  };

  const kill = async (signal: 'SIGTERM' | 'SIGKILL') => {
    // The watchdog removes the datadir when the node exits: retire it first (restart starts a new one).
    watchdog.kill('SIGKILL');
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill(signal);
    await exited;
  };

  try {
    await waitForRpc(child, rpc, () => stderr);
    await rpc('createwallet', 'miner');
    const minerAddress = await rpc<string>('getnewaddress', '', 'bech32');
    const mine = (n: number) => rpc<string[]>('generatetoaddress', n, minerAddress);
    await mine(options.blocks ?? 101);
    return { rpcUrl, zmqSequenceUrl, zmqRawTxUrl, datadir, minerAddress, rpc, mine, restart, kill, close: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForRpc(child: ChildProcess, rpc: (method: string) => Promise<unknown>, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bitcoind exited with code ${child.exitCode}: ${stderr()}`);
    try {
      await rpc('getblockchaininfo');
      return;
    } catch (error) {
      // -28 "Loading…" while warming up, ECONNREFUSED before the RPC server listens.
      if (Date.now() > deadline) throw new Error(`bitcoind RPC not ready after 60 s: ${(error as Error).message}; ${stderr()}`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * A detached shell that outlives us: when this process is gone (killed, crashed, interrupted), it
 * kills bitcoind and removes its datadir.
 */
function startWatchdog(child: ChildProcess, datadir: string): ChildProcess {
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null; sleep 1; rm -rf '${datadir}'`;
  const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog;
}
