// One optimizer cycle: validate, cluster, linearize, chunk, baselines, optimized template, upper
// bound, projected blocks. Plain C++ (no N-API); marshal.cpp converts to and from JavaScript.
//
// Invariants of a Result (for valid input; otherwise BuildTemplates throws InputError):
// - every template is closed under parents and lists transactions in block order;
// - v31 and v30 satisfy Core's limits (sigop-adjusted weight, strict >= tests) and follow Core's
//   order; the optimized template and projected blocks are chunked and ordered by real weight and
//   satisfy the consensus and request limits of template_optimized.h;
// - the bound is computed on the real-weight chunks: a valid LP bound whenever every cluster's
//   real-weight linearization is proven optimal (`exact`), closed to the true optimum under the
//   weight limit by the residual solve of bound_exact.h when it fits its budget (`solved`);
// - optimized.fee >= v31.fee whenever v31_within_limits; bound.fee >= every template's fee;
// - the result depends only on the input and options (timings aside): same input + seed, same
//   result on every machine (work is budgeted in cost units and nodes, never in time).
#pragma once

#include <string>
#include <vector>

#include "bound.h"
#include "chunk_order_incremental.h"
#include "clusters.h"
#include "projected.h"

namespace opt {

struct Timings {
    double validate{0}, clusters{0}, linearize{0}, chunk{0}, baselines{0}, optimized{0}, bound{0}, projected{0}, total{0};
};

struct Result {
    Selection optimized, v31, v30;
    bool v31_within_limits{false};
    UpperBound bound;
    TailSearchStats tail;
    std::vector<double> tx_chunk_fee;
    std::vector<uint32_t> tx_chunk_weight;  // sigop-adjusted (Core's chunkweight), clamped to 2^32-1
    std::vector<int32_t> tx_block;
    std::vector<BlockStats> blocks;
    std::vector<uint32_t> linearization;
    uint32_t cluster_count{0}, largest{0}, optimal_count{0}, over64_count{0}, chunk_count{0};
    uint64_t linearize_cost{0}, projected_search_nodes{0};
    uint32_t real_relinearized{0};    // clusters re-linearized by real weight (sigop-adjusted ones)
    uint32_t reused_count{0};         // clusters whose previous linearization was reused (warm_reuse)
    uint32_t kept_chunks{0};          // chunks placed from the previous build's mining order (ChunkOrderMemo)
    std::vector<uint8_t> tx_optimal;  // per input tx: its cluster's (Core-order) linearization is proven optimal
    Timings timings;
};

/** Run one cycle. Throws InputError on bad input or options, std::bad_alloc when out of memory.
 *  Complexity: O(n log n + e) plus budgeted linearization and search work. */
Result BuildTemplates(const InputView& input, const Options& options);

/** A cycle's input after validation and clustering: the graph renumbered cluster by cluster
 *  (clusters.h), original[i] = input index of internal transaction i, and the warm-start hint in
 *  internal indices. BuildTemplates = Prepare + BuildPrepared; the incremental engine builds one
 *  itself from its previous one (incremental.h) and keeps it for the next build. */
struct Prepared {
    Graph g;
    Clusters cl;
    std::vector<uint32_t> original;
    std::vector<uint32_t> warm;
    std::vector<uint8_t> warm_reuse;  // internal indices (InputView::warm_reuse)
};

/** Validate the input and options, cluster and renumber (timings: validate, which includes
 *  finding the clusters beside the checks of the columns, and clusters, the renumbering). */
Prepared Prepare(const InputView& input, const Options& options, Timings* timings);

/** The cycle from a Prepared (valid options, acyclic graph, invariants of clusters.h); the
 *  result's indices are the input indices of p.original. `timings` preset: the preparation's.
 *  chunk_order (the incremental engine's): the mining order from the previous build's, kept for
 *  the next; the same order as without it. */
Result BuildPrepared(const Prepared& p, const Options& options, const Timings& timings = {}, ChunkOrderMemo* chunk_order = nullptr);

/** Per-cluster detail for tests and debugging. */
struct ClusterDetail {
    std::vector<uint32_t> txs;          // linearization (global indices)
    std::vector<uint32_t> chunk_sizes;  // tx counts of its chunks, in order
    bool optimal{false};
    uint64_t cost{0};
};
std::vector<ClusterDetail> InspectClusters(const InputView& input, const Options& options);

/** Run every SanityCheck (clusters, SFL states every `every` steps, chunks). "" when all pass. */
std::string SelfCheck(const InputView& input, const Options& options, unsigned every);

}  // namespace opt
