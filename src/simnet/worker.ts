/**
 * Worker-thread entry of a simulated node: builds the simulator, serves its RPC/Esplora server,
 * runs automatic activity, and executes control calls from the owning thread. Signing thousands
 * of transactions here never blocks the owner's event loop; long control calls yield every 100
 * transactions so the RPC server keeps answering meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { Automation } from './node/automation.js';
import { bootstrapSimulator } from './node/bootstrap.js';
import type { MempoolPolicy } from './mempool/policy.js';
import { ControlArgs, type ControlMethod, type OwnerMessage, type WorkerInit, type WorkerMessage } from './protocol.js';
import { simnetMethods } from './rpc/methods.js';
import { startRpcServer, type RunningServer } from './rpc/server.js';
import type { Simulator } from './node/simulator.js';
import { ZmqPublisher } from './node/zmqPublisher.js';

function ownerPort(): MessagePort {
  if (!parentPort) throw new Error('simnet worker must run in a worker thread');
  return parentPort;
}

const port = ownerPort();

const post = (message: WorkerMessage): void => port.postMessage(message);
const log = (level: 'info' | 'warn' | 'error', message: string): void => post({ type: 'log', level, message });

function controls(sim: Simulator, automation: Automation): Record<ControlMethod, (...args: never[]) => unknown> {
  return {
    mineBlocks: (n: number) => sim.mineBlocks(n),
    addTransactions: (n: number) => sim.addTransactions(n),
    replaceTransaction: (txid?: string) => sim.replaceTransaction(txid),
    setAutomatic: (on: boolean) => (on ? automation.start() : automation.stop()),
    walletAddresses: () => sim.walletAddresses(),
    stats: () => ({ ...sim.stats(), automatic: automation.running }),
    createSpend: (options: Parameters<Simulator['createSpend']>[0]) => sim.createSpend(options),
  };
}

/**
 * The mining policy the owner handed in: `import()` of `specifier`, whose `mempoolPolicy` export
 * must be a function (the simulator checks its input and results on every call).
 * @throws Error naming the module when it cannot be loaded or lacks the export
 */
async function loadPolicy(specifier: string): Promise<MempoolPolicy> {
  let module: Record<string, unknown>;
  try {
    module = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`cannot load the policy module ${specifier}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const policy = module.mempoolPolicy;
  if (typeof policy !== 'function') throw new Error(`the policy module ${specifier} does not export a function mempoolPolicy(input)`);
  return policy as MempoolPolicy;
}

async function main(init: WorkerInit): Promise<void> {
  const started = Date.now();
  const policy = await loadPolicy(init.policyModule);
  const sim = await bootstrapSimulator({ ...init, policy, historyTxsPerBlock: 120 });
  const username = 'simnet';
  const password = randomBytes(24).toString('hex');
  const server: RunningServer = await startRpcServer(sim, { username, password, methods: simnetMethods(started), log: (m) => log('error', m) });
  const zmq = new ZmqPublisher();
  const zmqUrl = await zmq.bind();
  sim.mempool.listen(zmq);
  sim.blockListeners.push((block) => zmq.blockConnected(block));
  const automation = new Automation(sim, log);
  if (init.txPerSec > 0 || init.blockIntervalSec > 0) automation.start();
  const table = controls(sim, automation);
  // Idle-time warming of per-entry RPC data, so a verbose mempool call rarely computes much.
  const warm = setInterval(() => sim.entryInfo.refreshSome(20), 100);

  port.on('message', (message: OwnerMessage) => {
    if (message.type === 'close') {
      clearInterval(warm);
      automation.stop();
      zmq.close();
      void server.close().finally(() => post({ type: 'closed' }));
      return;
    }
    const { id, method } = message;
    const schema = Object.hasOwn(ControlArgs, method) ? ControlArgs[method] : undefined;
    const parsed = schema?.safeParse(message.args);
    if (!schema || !parsed?.success) {
      post({ type: 'result', id, ok: false, error: `bad control call ${String(method)}: ${parsed?.error?.issues[0]?.message ?? 'unknown method'}` });
      return;
    }
    Promise.resolve()
      .then(() => (table[method] as (...args: unknown[]) => unknown)(...(parsed.data as unknown[])))
      .then(
        (value) => post({ type: 'result', id, ok: true, value: value ?? null }),
        (error: unknown) => post({ type: 'result', id, ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
  });
  post({ type: 'ready', port: server.port, username, password, zmqUrl, startupMs: Date.now() - started });
}

main(workerData as WorkerInit).catch((error: unknown) => {
  post({ type: 'fatal', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
