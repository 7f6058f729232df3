// Baseline "Core v31": BlockAssembler::addChunks (src/node/miner.cpp) over the chunk index.
//
// Reproduced exactly, for the chunks and order it is given:
// - walk chunks in mining order; chunks of a cluster that had a chunk skipped are passed over
//   silently (BlockBuilder::Skip excludes the rest of the cluster; not counted as failures);
// - stop at the first chunk whose rate per vsize (vsize = ceil(adj_weight / 4), ToFeePerVSize) is
//   strictly below -blockmintxfee (default 1 sat/kvB);
// - a chunk fails when block_weight + adj_weight >= weight_limit or block_sigops + sigops >=
//   max_sigop_cost (TestChunkBlockLimits), with block_weight starting at the coinbase reservation
//   (8,000 WU) and block_sigops at 400; included chunks add their real weight;
// - after more than 1,000 consecutive failures, give up once block_weight + 4,000 > weight_limit
//   (MAX_CONSECUTIVE_FAILURES, BLOCK_FULL_ENOUGH_WEIGHT_DELTA).
// Not modelled: IsFinalTx (no lock times in the input). Core's own linearizations are random but
// when both are optimal with minimal chunks they have the same chunks, hence the same template.
#pragma once

#include <span>

#include "selection.h"

namespace opt {

/** Build the v31 template. order = chunk ids in mining order; cluster_count bounds cluster ids.
 *  Complexity: O(chunks visited + txs included). */
Selection BuildBaselineV31(const ChunkTable& t, std::span<const uint32_t> order, uint32_t cluster_count,
                           const Options& options);

}  // namespace opt
