/**
 * Consensus limits and Core's block-assembly defaults, once. Sources: Bitcoin Core
 * `src/consensus/consensus.h` (MAX_BLOCK_WEIGHT, MAX_BLOCK_SIGOPS_COST, WITNESS_SCALE_FACTOR),
 * `src/policy/policy.h` (DEFAULT_BLOCK_RESERVED_WEIGHT, DEFAULT_BYTES_PER_SIGOP) and
 * `src/node/miner.cpp` (the coinbase's sigop reservation).
 */

/** A block's weight may not exceed this (BIP141), WU. */
export const MAX_BLOCK_WEIGHT_WU = 4_000_000;
/** A block's sigop cost may not exceed this (BIP141). */
export const MAX_BLOCK_SIGOPS_COST = 80_000;
/** Weight units per virtual byte. */
export const WITNESS_SCALE_FACTOR = 4;
/** Weight Core's miner keeps free for the coinbase (`-blockreservedweight` default), WU. */
export const COINBASE_RESERVED_WEIGHT_WU = 8_000;
/** Sigop cost Core's miner keeps free for the coinbase. */
export const COINBASE_RESERVED_SIGOPS_COST = 400;
/** Core's `-bytespersigop`: a sigop counts as this many vbytes in the sigop-adjusted size. */
export const BYTES_PER_SIGOP = 20;
/** vsize available to transactions in one block after the coinbase reservation. */
export const BLOCK_TX_VSIZE = (MAX_BLOCK_WEIGHT_WU - COINBASE_RESERVED_WEIGHT_WU) / WITNESS_SCALE_FACTOR;
/** BIP125: an input with nSequence at most this signals replaceability. */
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
