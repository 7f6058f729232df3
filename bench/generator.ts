/** The synthetic mempool generator lives in src/ (the CLI's `generate` command ships it); the benches and tests import it from here. */
export * from '../src/optimizer/snapshot/syntheticMempool.js';
