// Clusters: the connected components of the parent relation (ignoring direction).
//
// Invariants of a Clusters object (after RenumberByCluster, for the internal graph):
// - Clusters are numbered 0..count-1 in order of their lowest original transaction index.
// - txs[offsets[c] .. offsets[c+1]) lists cluster c's transactions in a topological order: every
//   parent has a lower cluster-local position than its child. In the internal graph txs is the
//   identity (cluster c is the index range [offsets[c], offsets[c+1])).
// - cluster_of[i] is i's cluster; local[i] is i's position inside its cluster's list.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph.h"

namespace opt {

struct Clusters {
    uint32_t count{0};
    std::vector<uint32_t> offsets;
    std::vector<uint32_t> txs;
    std::vector<uint32_t> cluster_of;
    std::vector<uint32_t> local;

    uint32_t Size(uint32_t c) const noexcept { return offsets[c + 1] - offsets[c]; }
    std::span<const uint32_t> Txs(uint32_t c) const noexcept
    {
        return {txs.data() + offsets[c], txs.data() + offsets[c + 1]};
    }
};

/** Union-find over parent links (linked by lowest index, path halving), then a bucket pass by
 *  cluster (transactions in index order, not yet topological). Complexity: O(n + e log n). */
Clusters FindClusters(const Graph& g);

/** FindClusters straight from the input's parent lists (before ValidateLinks, beside it on another
 *  thread: the same clusters, duplicates and all). False, out untouched, when a list is malformed
 *  (past the end, out of order, a parent out of range): ValidateLinks then names the error. n is
 *  the checked transaction count. Complexity: O(n + e log n). */
bool FindClustersOfInput(const InputView& in, uint32_t n, Clusters& out);

/** Sort each cluster topologically (Kahn's algorithm; a leftover transaction means a cycle: throws
 *  InputError CYCLE naming an original index), then build the internal graph renumbered cluster by
 *  cluster, with children. cl is rewritten for the internal graph; original[i] is the input index
 *  of internal transaction i. parallel: two threads (each half of the clusters, then the columns
 *  beside the links); the same result and the same error. Complexity: O(n + e). */
Graph RenumberByCluster(const Graph& g, Clusters& cl, std::vector<uint32_t>& original, bool parallel = false);

/** Debug check of every invariant above; returns "" or a description of the first violation.
 *  Complexity: O(n + e). */
std::string SanityCheck(const Graph& g, const Clusters& c);

}  // namespace opt
