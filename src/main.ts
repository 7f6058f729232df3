/**
 * The service entry: reads the configuration, starts the embedded simulated node when no Bitcoin
 * node is configured, builds the app and listens. The only module that reads `process.env`,
 * listens or exits. A bad configuration stops the start with one line and exit code 2.
 */
import { createServer } from 'node:net';
import { assertPaymentConfig, ConfigError, loadConfig, type Config } from './config.js';
import { buildApp } from './app.js';
import { BitcoinNode } from './node/bitcoinNode.js';
import { EsploraAddressSource } from './node/esploraAddressSource.js';
import { ScanAddressSource } from './node/scanAddressSource.js';
import { startSimnet, type SimnetHandle } from './simnet/index.js';
import { mallocHugePagesHere } from './util/mallocHugePages.js';
import { listenErrorLine, serviceBaseUrl, startLine } from './util/startMessages.js';
import { moduleUrl } from './util/workerFile.js';

function readConfig(): Config {
  try {
    const config = loadConfig(process.env);
    assertPaymentConfig(config);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** Stops at once, with one line, when the port cannot be listened on: before the simulated node spends its start-up time. */
async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const error = await new Promise<unknown>((resolve) => {
    const probe = createServer();
    probe.once('error', resolve);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
  const line = error === undefined ? undefined : listenErrorLine(error, host, port);
  if (line) {
    process.stderr.write(line);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  let config = readConfig();
  await checkPort(config.HOST, config.PORT);
  const logger = { level: config.LOG_LEVEL };

  let simnet: SimnetHandle | undefined;
  let rpcUrl = config.BITCOIN_RPC_URL;
  let esploraUrl = config.ESPLORA_URL;
  if (!rpcUrl) {
    process.stdout.write('no BITCOIN_RPC_URL: starting the embedded simulated node (regtest)…\n');
    simnet = await startSimnet({
      seed: config.SIMNET_SEED,
      blockIntervalSec: config.SIMNET_BLOCK_INTERVAL_SEC,
      txPerSec: config.SIMNET_TX_PER_SEC,
      initialTxs: config.SIMNET_INITIAL_TXS,
      // The simulator mines with Core v31's algorithm as the native optimizer implements it.
      policyModule: moduleUrl(import.meta.url, './optimizer/binding/coreV31Policy'),
    });
    rpcUrl = simnet.rpcUrl;
    esploraUrl ??= simnet.esploraUrl;
    // The embedded node publishes Core's ZMQ notifications: the mempool view follows them.
    config = { ...config, ZMQ_URL: config.ZMQ_URL ?? simnet.zmqUrl, ZMQ_RAWTX_URL: config.ZMQ_RAWTX_URL ?? simnet.zmqUrl };
  }

  const node = new BitcoinNode({ url: rpcUrl, timeoutMs: config.BITCOIN_RPC_TIMEOUT_MS, scanTimeoutMs: config.BITCOIN_RPC_SCAN_TIMEOUT_MS });
  const addressSource = esploraUrl ? new EsploraAddressSource(esploraUrl, config.ESPLORA_TIMEOUT_MS) : new ScanAddressSource(node);
  const app = await buildApp({ config, node, addressSource, nodeKind: simnet ? 'simulated' : 'real', logger });

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app.close().catch((error: unknown) => app.log.error({ err: error }, 'close failed'));
    await simnet?.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (error) {
    const line = listenErrorLine(error, config.HOST, config.PORT);
    if (!line) throw error;
    process.stderr.write(line);
    await app.close().catch(() => undefined);
    await simnet?.close().catch(() => undefined);
    process.exit(1);
  }
  app.log.info({ node: node.transport.endpoint, nodeKind: simnet ? 'simulated' : 'real', addressSource: addressSource.kind }, 'serving');
  const hugePages = mallocHugePagesHere(process.env);
  if (hugePages.on || !hugePages.hint) app.log.info({ mallocHugePages: hugePages }, 'C heap on huge pages: ' + (hugePages.on ? 'yes' : 'no'));
  else app.log.warn({ mallocHugePages: hugePages }, `C heap not on huge pages: ${hugePages.hint}`);
  // For a person: where to look (the JSON log above is for machines). PORT=0 listens on the port it got.
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  process.stderr.write(startLine(serviceBaseUrl(config.HOST, port, config.PUBLIC_BASE_URL)));
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${(error as Error).message}\n`);
  process.exit(1);
});
