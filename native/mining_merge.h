// Core's mining order of a cycle's chunks from the previous cycle's order (incremental cycles).
//
// The chunks of a cluster that did not change (same transactions, data, links and linearization)
// are the same chunks in the next cycle, and their mining order among themselves is the same:
// rate and eq_prefix are equal, and the txid ranks that break the remaining ties keep their order
// (ranks are positions in txid order). So the sorted table is the previous order of those chunks
// merged with the changed clusters' chunks, sorted among themselves: O(m + c log c) instead of a
// sort of all m chunks. The merge checks what it relies on and declines when it does not hold.
#pragma once

#include <cstdint>
#include <vector>

#include "chunk.h"
#include "clusters.h"

namespace opt {

/** A mining order by chunk identity: position k is the chunk of cluster[k] that starts offset[k]
 *  linearization positions after the cluster's first one. */
struct MiningOrder {
    std::vector<uint32_t> cluster, offset;
};

/** The previous cycle's order of the unchanged clusters' chunks (their cluster ids in this cycle),
 *  and which clusters of this cycle changed (their chunks are not in `kept`). */
struct MiningHint {
    MiningOrder kept;
    std::vector<uint8_t> changed;
};

/** Sort t (chunked from a linearization of cl's clusters, chunk ids in cluster order) into Core's
 *  mining order as SortIntoMiningOrder does, from the hint. false (t unchanged) when the hint does
 *  not describe t: a kept chunk missing, out of order or in a changed cluster, or chunks left out.
 *  Complexity: O(n + m + c log c) for c chunks of changed clusters. */
bool MergeIntoMiningOrder(ChunkTable& t, const Clusters& cl, const MiningHint& hint);

/** The order of a sorted table, to give the next cycle. O(m). */
void RecordMiningOrder(const ChunkTable& t, const Clusters& cl, MiningOrder& out);

}  // namespace opt
