/**
 * The dependencies of the service: what `main.ts` (or a test) builds from the configuration and
 * hands to `buildApp`. Service plugins each take the narrow part they need; nothing imports `app.ts`.
 */
import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { AddressSource } from './node/addressSource.js';
import type { BitcoinNode } from './node/bitcoinNode.js';

export interface AppDeps {
  config: Config;
  /** Typed access to the Bitcoin node (real Core or the embedded simulated node). */
  node: BitcoinNode;
  /** Where address balances and UTXOs come from (Esplora or `scantxoutset`). */
  addressSource: AddressSource;
  /** `simulated` when the embedded node serves the data. */
  nodeKind: 'simulated' | 'real';
  /** fastify logger option; tests pass `false`. */
  logger?: FastifyServerOptions['logger'];
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Start background work (mempool polling, optimizer cycles) when ready. Default true; tests may drive it. */
  autoStart?: boolean;
  /** Check every answer against its route's declared response schema (tests). */
  checkResponses?: boolean;
}
