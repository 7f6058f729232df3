// Linearize every cluster of a mempool.
//
// Invariants of a Linearization (for a validated Graph and its Clusters):
// - lin[offsets[c] .. offsets[c+1]) is a topological order of cluster c's transactions (global
//   indices), using the same offsets as Clusters.
// - optimal[c] = 1 only if the order is proven optimal with minimal chunks: singletons, pairs and
//   chains (their topological order is unique), or SFL that finished within its budget.
// - cost[c] is the SFL work spent on cluster c in Core's cost units (0 for fast paths).
// Paths by cluster size k: 1, 2 and chains: direct; k <= 64: SFL on uint64_t (BitSet<1>);
// k <= 512: SFL on BitSet<2/4/8>; larger: a greedy topological order by individual fee rate
// (optimal = 0). Each SFL cluster gets `linearize_budget`; clusters still not optimal then share
// `linearize_extra_budget`, warm-started from their first result (never worse).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "clusters.h"
#include "graph.h"

namespace opt {

struct Linearization {
    std::vector<uint32_t> lin;
    std::vector<uint8_t> optimal;
    std::vector<uint64_t> cost;
    uint32_t largest{0};
    uint32_t optimal_count{0};
    uint32_t over64_count{0};
    uint64_t total_cost{0};
    uint32_t reused_count{0};  // clusters that took a reused linearization (warm_reuse)
};

/** Linearizes the clusters of a mempool, possibly from several threads at once.
 *  Work() takes clusters in batches from a shared atomic counter until none are left; each
 *  cluster's result depends only on the cluster, the warm hint and the seed, so the output is the
 *  same for any number of threads. Finish() (once every Work() call has returned, on one thread)
 *  runs the extra-budget pass in cluster order and gathers the statistics.
 *  warm_order (may be empty) is a previous linearization hint: for each cluster, its transactions
 *  in the order they appear in warm_order (missing ones after, in topological order) seed SFL
 *  when that order is topological; otherwise it is ignored. */
class ClusterLinearizer
{
public:
    /** on_cluster (optional) is called with each cluster's final order, from the thread that
     *  produced it (so it must be safe for distinct clusters in parallel). */
    using OnCluster = std::function<void(uint32_t cluster, std::span<const uint32_t> order)>;
    ClusterLinearizer(const Graph& g, const Clusters& cl, const Options& options, std::span<const uint32_t> warm_order,
                      OnCluster on_cluster = {}, std::span<const uint8_t> warm_reuse = {});
    ~ClusterLinearizer();
    /** Thread-safe. Complexity: O(SFL work of the clusters taken), bounded by the budgets. */
    void Work();
    /** Not thread-safe; call after all Work() calls returned. */
    Linearization Finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

/** Single-threaded convenience: Work() then Finish(). */
Linearization LinearizeClusters(const Graph& g, const Clusters& cl, const Options& options, std::span<const uint32_t> warm_order);

/** Re-linearize the clusters with which[c] != 0 by real weight instead of sigop-adjusted weight
 *  (for the optimized template and the bound), warm-started from lin's order, with their own
 *  budgets (see linearize.cpp). Updates lin.lin, lin.optimal and lin.optimal_count of those
 *  clusters; returns how many there were. parallel: the first runs on two threads (the same
 *  result). Complexity: budgeted SFL work on those clusters. */
uint32_t RelinearizeByRealWeight(const Graph& g, const Clusters& cl, const Options& options, std::span<const uint8_t> which,
                                 Linearization& lin, bool parallel = false);

/** Debug: re-run SFL on every cluster of up to 64 transactions with SanityCheck after every
 *  `every` steps, and check every result is topological. Returns "" or the first failure.
 *  Complexity: O(clusters * steps * k^3 / 64 / every). */
std::string SanityCheckLinearize(const Graph& g, const Clusters& cl, const Options& options, unsigned every);

}  // namespace opt
