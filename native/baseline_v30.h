// Baseline "Core v30": the ancestor-score miner BlockAssembler::addPackageTxs (v30.0
// src/node/miner.cpp), used by every node before v31.
//
// Reproduced rules:
// - every transaction is scored by min(own fee rate, ancestor-package fee rate) over sigop-adjusted
//   vsize (CompareTxMemPoolEntryByAncestorFee); ties go to the lower txid (memcmp order = rank);
// - two candidate streams: all transactions by their original score (skipping those in the block,
//   in the modified set, or failed), and the "modified" set: transactions whose ancestors were
//   partly included, re-scored on the remaining ancestors (UpdatePackagesForAdded). The better
//   head is evaluated;
// - stop when the package fee < blockmintxfee * package vsize (rounded up);
// - a package fails when block_weight + 4 * package_vsize >= weight_limit or block_sigops +
//   package_sigops >= max_sigop_cost (TestPackage); failed modified entries are dropped and
//   remembered; 1,000 consecutive failures with block_weight > weight_limit - 4,000 ends it;
// - an included package is added sorted by ancestor count (SortForBlock).
// Core compares scores with doubles; this uses exact 128-bit products (identical unless two
// scores differ by less than 2^-52 relatively). IsFinalTx is not modelled.
#pragma once

#include "clusters.h"
#include "selection.h"

namespace opt {

/** g and cl are the internal (renumbered) graph and its clusters; ancestor packages are computed
 *  per cluster (bit sets for clusters of up to 64). Complexity: O(sum of ancestor-set sizes +
 *  descendant sets of included txs + n + w log w), w the entries of the score order walked (the
 *  order is sorted in batches, as far as the walk goes). */
Selection BuildBaselineV30(const Graph& g, const Clusters& cl, const Options& options);

}  // namespace opt
