/**
 * The embedded simulated Bitcoin node. `startSimnet()` starts a regtest-style network simulator in
 * a worker thread and returns its Bitcoin Core JSON-RPC URL (HTTP Basic auth, random loopback
 * port; talk to it with the `bitcoin-core` client exactly as to a real node), its Esplora base URL,
 * and a control handle for the owning process only.
 *
 * The node has no mining policy of its own: `policyModule` names a module that the worker
 * `import()`s and whose `mempoolPolicy` export chooses block templates and chunks (the project's is
 * `src/optimizer/binding/coreV31Policy.ts`, Core v31's algorithm through the native optimizer).
 *
 * @example
 * const policyModule = moduleUrl(import.meta.url, './optimizer/binding/coreV31Policy'); // from src/main.ts
 * const sim = await startSimnet({ seed: 7, initialTxs: 500, policyModule });
 * const node = new BitcoinNode({ url: sim.rpcUrl, timeoutMs: 5000, scanTimeoutMs: 30000 });
 * await node.getBlockCount();          // 212
 * await sim.control.mineBlocks(1);     // the template's transactions leave the mempool
 * await sim.close();
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { workerFile } from '../util/workerFile.js';
import type { ControlMethod, OwnerMessage, WorkerInit, WorkerMessage } from './protocol.js';
import type { CreateSpendOptions, CreatedSpend, SimulatorStats, WalletAddressInfo } from './node/simulator.js';
import { firstIssue } from '../util/zodIssue.js';

export type { CreateSpendOptions, CreatedSpend, SimulatorStats, WalletAddressInfo } from './node/simulator.js';

export interface SimnetOptions {
  /**
   * URL (`file:` or any specifier `import()` accepts in the worker) of the module whose
   * `mempoolPolicy(input: PolicyInput): PolicyResult` export is the node's block-template and
   * chunk policy. Required: the simulator never falls back to a policy of its own.
   */
  policyModule: string;
  /** Seed of every random choice (default 1). Same seed + same control calls (automatic off) = same chain and mempool. */
  seed?: number;
  /** Mean block interval in seconds, exponential (default 0 = only on demand). */
  blockIntervalSec?: number;
  /** Mean Poisson arrival rate, transactions per second (default 0 = none). */
  txPerSec?: number;
  /** Mempool size at start (default 0). */
  initialTxs?: number;
  /**
   * Unix seconds at which the pre-built history ends; not in the future (the node never reports a
   * time later than the wall clock). Default: the wall clock when automatic activity is on;
   * otherwise the fixed 2026-01-01T00:00:00Z (or now, on a machine whose clock is earlier), so runs
   * without it are reproducible.
   */
  startTime?: number;
  /**
   * Confirmed wallet coins created at start (default max(8,000, 2 × initialTxs)). Each added
   * transaction uses ~1.6 on average (unconfirmed change is reused as they run low): to add N
   * transactions without mining, ask for about 2 N.
   */
  fundingUtxos?: number;
  /** Receives the worker's log lines (default: warnings and errors to stderr). */
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Start-up timeout, ms (default 120,000). */
  startTimeoutMs?: number;
}

/** Control of a running simulator: only for the process that owns it, never reachable over its HTTP API. */
export interface SimnetControl {
  /** Mines `n` blocks now from the node's own template; returns their hashes. */
  mineBlocks(n: number): Promise<string[]>;
  /** Adds `n` transactions of the realistic mix now; returns the txids added (fewer if the wallet runs dry). */
  addTransactions(n: number): Promise<string[]>;
  /** Replaces `txid` (or a random replaceable simulator transaction) with a valid RBF replacement now. */
  replaceTransaction(txid?: string): Promise<{ replaced: string[]; replacement: string }>;
  /** Poisson arrivals and the block timer on/off (on also switches the clock to wall time). */
  setAutomatic(on: boolean): Promise<void>;
  /** Addresses with confirmed and/or unconfirmed funds, with their type and balances in sats. */
  walletAddresses(): Promise<WalletAddressInfo[]>;
  stats(): Promise<SimulatorStats & { automatic: boolean }>;
  /**
   * Builds, signs and returns (without submitting) a replacement of mempool transaction `fromTxid`
   * (`kind: 'replacement'`, default: same inputs, change pays `feeRateSatVb` × size exactly, rules
   * not pre-checked) or a child spending its outputs (`kind: 'child'`), for relay tests.
   */
  createSpend(options: CreateSpendOptions): Promise<CreatedSpend>;
}

export interface SimnetHandle {
  /** `http://user:pass@127.0.0.1:PORT` */
  rpcUrl: string;
  /** `http://127.0.0.1:PORT/esplora` */
  esploraUrl: string;
  /**
   * `tcp://127.0.0.1:PORT`: ZMQ notifications as Core's `-zmqpubsequence` and `-zmqpubrawtx` send
   * them (both topics on this one endpoint).
   */
  zmqUrl: string;
  control: SimnetControl;
  /** Milliseconds the worker took to build the chain and mempool. */
  startupMs: number;
  /** Stops automatic activity, closes the server and terminates the worker. Idempotent. */
  close(): Promise<void>;
}

const FIXED_START_TIME = 1_767_225_600; // 2026-01-01T00:00:00Z

const Options = z.object({
  policyModule: z
    .string({ error: 'required: the URL of a module exporting mempoolPolicy(input), the block-template policy (e.g. src/optimizer/binding/coreV31Policy.ts)' })
    .refine((s) => URL.canParse(s), 'not a URL'),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  blockIntervalSec: z
    .number()
    .finite()
    .min(0)
    .max(86_400 * 365)
    .optional(),
  txPerSec: z.number().finite().min(0).max(10_000).optional(),
  initialTxs: z.number().int().min(0).max(1_000_000).optional(),
  // After the regtest genesis (2011) plus room for the pre-built history.
  startTime: z
    .number()
    .int()
    .min(1_400_000_000)
    .refine((t) => t <= Date.now() / 1000, 'must not be in the future')
    .optional(),
  fundingUtxos: z.number().int().min(100).max(3_000_000).optional(),
  startTimeoutMs: z.number().int().positive().optional(),
});

/** The part of tsx's package.json that locates its ESM register API. */
const TsxPackage = z.object({ exports: z.object({ './esm/api': z.object({ import: z.object({ default: z.string() }) }) }) });

/**
 * Starts `worker.ts`/`worker.js` (resolved by `workerFile`). From TypeScript sources the worker
 * needs tsx, but on Node 20 `--import tsx` in a worker's `execArgv` does not register tsx's hooks
 * (tsx registers them on the main thread only), so a small bootstrap registers them through
 * tsx's API and then imports the worker module.
 */
function spawnWorker(workerData: WorkerInit): Worker {
  const { filename, execArgv } = workerFile(import.meta.url, 'worker');
  if (execArgv.length === 0) return new Worker(filename, { workerData });
  const require = createRequire(import.meta.url);
  const tsxDir = dirname(require.resolve('tsx/package.json'));
  const { exports } = TsxPackage.parse(JSON.parse(readFileSync(join(tsxDir, 'package.json'), 'utf8')));
  const api = pathToFileURL(join(tsxDir, exports['./esm/api'].import.default)).href;
  const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(filename).href)}); })`;
  return new Worker(code, { eval: true, workerData });
}

function defaultLog(level: 'info' | 'warn' | 'error', message: string): void {
  if (level !== 'info') console.error(message);
}

/**
 * Starts a simulated node in a worker thread and resolves when its RPC server answers.
 * @throws Error for an invalid option, when the worker fails to start (the error names the cause) or times out
 */
export function startSimnet(options: SimnetOptions): Promise<SimnetHandle> {
  const checked = Options.safeParse({ ...options, log: undefined });
  if (!checked.success) {
    const issue = firstIssue(checked.error);
    return Promise.reject(new Error(`invalid simnet option ${issue.where}: ${issue.message}`));
  }
  const txPerSec = options.txPerSec ?? 0;
  const blockIntervalSec = options.blockIntervalSec ?? 0;
  const initialTxs = options.initialTxs ?? 0;
  const automatic = txPerSec > 0 || blockIntervalSec > 0;
  const init: WorkerInit = {
    seed: options.seed ?? 1,
    blockIntervalSec,
    txPerSec,
    initialTxs,
    startTime: options.startTime ?? (automatic ? Math.floor(Date.now() / 1000) : Math.min(FIXED_START_TIME, Math.floor(Date.now() / 1000))),
    fundingUtxos: options.fundingUtxos ?? Math.max(8_000, 2 * initialTxs),
    addressCount: 1024,
    historyBlocks: 8,
    policyModule: checked.data.policyModule,
  };
  const log = options.log ?? defaultLog;
  const worker = spawnWorker(init);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  let closing: Promise<void> | undefined;
  let onClosed: (() => void) | undefined;

  const fail = (error: Error): void => {
    failure ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };

  return new Promise<SimnetHandle>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`simnet did not start within ${options.startTimeoutMs ?? 120_000} ms`));
      void worker.terminate();
    }, options.startTimeoutMs ?? 120_000);

    const call = (method: ControlMethod, args: unknown[]): Promise<unknown> => {
      if (closing) return Promise.reject(new Error('simnet is closed'));
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise((res, rej) => {
        pending.set(id, { resolve: res, reject: rej });
        worker.postMessage({ type: 'call', id, method, args } satisfies OwnerMessage);
      });
    };

    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'ready': {
          clearTimeout(timer);
          const base = `127.0.0.1:${message.port}`;
          resolve({
            rpcUrl: `http://${message.username}:${message.password}@${base}`,
            esploraUrl: `http://${base}/esplora`,
            zmqUrl: message.zmqUrl,
            startupMs: message.startupMs,
            control: {
              mineBlocks: (n) => call('mineBlocks', [n]) as Promise<string[]>,
              addTransactions: (n) => call('addTransactions', [n]) as Promise<string[]>,
              replaceTransaction: (txid) => call('replaceTransaction', [txid]) as Promise<{ replaced: string[]; replacement: string }>,
              setAutomatic: async (on) => {
                await call('setAutomatic', [on]);
              },
              walletAddresses: () => call('walletAddresses', []) as Promise<WalletAddressInfo[]>,
              stats: () => call('stats', []) as Promise<SimulatorStats & { automatic: boolean }>,
              createSpend: (o) => call('createSpend', [o]) as Promise<CreatedSpend>,
            },
            close: () => (closing ??= shutdown()),
          });
          return;
        }
        case 'result': {
          const p = pending.get(message.id);
          pending.delete(message.id);
          if (message.ok) p?.resolve(message.value);
          else p?.reject(new Error(`simnet: ${message.error}`));
          return;
        }
        case 'log':
          log(message.level, message.message);
          return;
        case 'fatal': {
          const error = new Error(`simnet worker failed: ${message.error}`);
          log('error', error.message);
          clearTimeout(timer);
          fail(error);
          reject(error);
          void worker.terminate();
          return;
        }
        case 'closed':
          onClosed?.();
          return;
      }
    });
    worker.on('error', (error) => {
      const wrapped = new Error(`simnet worker crashed: ${error.message}`, { cause: error });
      log('error', wrapped.message);
      clearTimeout(timer);
      fail(wrapped);
      reject(wrapped);
    });
    worker.on('exit', (code) => {
      clearTimeout(timer);
      const error = closing ? new Error('simnet is closed') : new Error(`simnet worker exited (code ${code})`);
      if (!closing && code !== 0) log('error', error.message);
      fail(error);
      reject(error);
      onClosed?.();
    });

    async function shutdown(): Promise<void> {
      if (!failure) {
        await new Promise<void>((done) => {
          const giveUp = setTimeout(done, 5_000);
          onClosed = () => {
            clearTimeout(giveUp);
            done();
          };
          worker.postMessage({ type: 'close' } satisfies OwnerMessage);
        });
      }
      await worker.terminate();
      fail(new Error('simnet is closed'));
    }
  });
}
