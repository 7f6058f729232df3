/**
 * Consensus and policy constants of the simulated node. The chain follows regtest's rules
 * (src/kernel/chainparams.cpp `CRegTestParams`); policy values are Bitcoin Core v31's defaults
 * (src/policy/policy.h, src/policy/rbf.h, src/node/miner.h). Amounts are satoshis, fee rates
 * sat/kvB, sizes vbytes unless the name says WU.
 */
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import {
  BYTES_PER_SIGOP,
  COINBASE_RESERVED_WEIGHT_WU,
  MAX_BIP125_RBF_SEQUENCE,
  MAX_BLOCK_SIGOPS_COST,
  MAX_BLOCK_WEIGHT_WU,
  WITNESS_SCALE_FACTOR,
} from '../../bitcoin/consensus.js';
import { SATS_PER_BTC } from '../../bitcoin/units.js';

// Consensus and policy facts shared with the service live once in src/bitcoin/; simnet names them as Core does.
export { BYTES_PER_SIGOP, MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT_WU, WITNESS_SCALE_FACTOR };
export {
  CLUSTER_COUNT_LIMIT,
  CLUSTER_SIZE_LIMIT_VB,
  DUST_RELAY_FEE_SAT_KVB,
  INCREMENTAL_RELAY_FEE_SAT_KVB,
  MAX_REPLACEMENT_CANDIDATES,
  MIN_RELAY_FEE_SAT_KVB,
} from '../../bitcoin/policy.js';

/** Satoshis per BTC. */
export const COIN = SATS_PER_BTC;
/** Largest valid amount (consensus `MAX_MONEY`). */
export const MAX_MONEY_SAT = 21_000_000 * COIN;
/** Blocks before a coinbase output may be spent (consensus). */
export const COINBASE_MATURITY = 100;
/** Regtest halves the subsidy every 150 blocks (`consensus.nSubsidyHalvingInterval`). */
export const REGTEST_HALVING_INTERVAL = 150;
/** Regtest proof-of-work limit in compact form; every block uses it (no retargeting). */
export const REGTEST_BITS = 0x207fffff;
/** Block version Core's miner sets (BIP9 top bits, no deployment signalled). */
export const BLOCK_VERSION = 0x20000000;

/** `-blockreservedweight` default: room kept for the coinbase (src/policy/policy.h). */
export const BLOCK_RESERVED_WEIGHT_WU = COINBASE_RESERVED_WEIGHT_WU;

/** `sendrawtransaction`/`testmempoolaccept` default `maxfeerate`: 0.10 BTC/kvB. */
export const DEFAULT_MAX_RAW_TX_FEE_RATE_SAT_KVB = 10_000_000;

export const MAX_STANDARD_TX_WEIGHT_WU = 400_000;
export const MAX_STANDARD_TX_SIGOPS_COST = MAX_BLOCK_SIGOPS_COST / 5;
/** Smallest non-witness serialization relayed (CVE-2017-12842 mitigation). */
export const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1_650;
/** v30+ `-datacarriersize` default (OP_RETURN outputs, total bytes). */
export const MAX_DATACARRIER_BYTES = 100_000;

/** `-maxmempool` default, bytes. */
export const DEFAULT_MAX_MEMPOOL_BYTES = 300_000_000;
/** The wallet-style chain limit the simulator keeps its own unconfirmed chains under. */
export const SIM_MAX_CHAIN_DEPTH = 25;

/** nSequence values (BIP68/BIP125). */
export const SEQUENCE_FINAL = 0xffffffff;
export const SEQUENCE_LOCKTIME_ENABLED = 0xfffffffe;
export const SEQUENCE_RBF = MAX_BIP125_RBF_SEQUENCE;
/** nLockTime below this is a height, at or above it a Unix time. */
export const LOCKTIME_THRESHOLD = 500_000_000;

/** Address encoding of regtest (`bcrt1…`, `m…`/`n…`, `2…`). */
export const REGTEST_NETWORK: BTC_NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

/** Block subsidy at `height` on regtest, in satoshis. Complexity: O(1). */
export function blockSubsidySat(height: number): number {
  const halvings = Math.floor(height / REGTEST_HALVING_INTERVAL);
  if (halvings >= 64) return 0;
  // 50 BTC fits in 33 bits; BigInt keeps the right shift exact for every halving count.
  return Number(BigInt(50 * COIN) >> BigInt(halvings));
}

/** Fee that a rate of `satPerKvb` asks of `vsize` vbytes, rounded up as Core's `CFeeRate::GetFee` (v29+). */
export function feeForVsize(satPerKvb: number, vsize: number): number {
  return Math.ceil((satPerKvb * vsize) / 1000);
}
