// The input graph: a mempool as structure-of-arrays, validated once into a Graph.
//
// Invariants of a Graph returned by ValidateInput:
// - n transactions; fee[i] is an integer in [0, 2^53) and so is their total (so no fee sum can
//   overflow), weight[i] in [1, 2^32), sigops[i] in [0, 2^32).
// - adj_weight[i] = max(weight[i], sigops[i] * BYTES_PER_SIGOP) is Core's sigop-adjusted weight.
// - Parents are CSR (parent_offsets, n+1 entries, monotone, starting at 0) with indices in [0, n),
//   no self-loops, duplicates removed. Acyclicity is checked later, per cluster (clusters.h).
// - rank is a permutation of [0, n): the tie-break order (Core compares txids with memcmp).
// The internal graph built by RenumberByCluster (clusters.h) adds: transactions ordered cluster by
// cluster and topologically inside each cluster (so 0..n-1 is a topological order), and children
// as the transposed CSR.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common.h"

namespace opt {

/** Core's -bytespersigop default (src/policy/policy.h DEFAULT_BYTES_PER_SIGOP). */
inline constexpr int64_t BYTES_PER_SIGOP = 20;

/** Views of the caller's arrays (not owned). sigops and warm_order may be empty. */
struct InputView {
    std::span<const double> fee;
    std::span<const uint32_t> weight;
    std::span<const uint32_t> sigops;
    std::span<const uint32_t> parent_offsets;
    std::span<const uint32_t> parent_indices;
    std::span<const uint32_t> txid_rank;
    std::span<const uint32_t> warm_order;
    /** Incremental cycles (incremental.h), per input transaction: 0 = its cluster may have changed
     *  since warm_order was computed; 1 = unchanged and proven optimal then; 2 = unchanged, not proven.
     *  A cluster whose transactions are all 1 or 2 takes warm_order as its final linearization. */
    std::span<const uint8_t> warm_reuse;
};

/** Options of one cycle; defaults are Core's (cited where they are copied). */
struct Options {
    int64_t weight_limit{4'000'000};      // MAX_BLOCK_WEIGHT / -blockmaxweight default
    int64_t coinbase_reserve{8'000};      // DEFAULT_BLOCK_RESERVED_WEIGHT (policy.h)
    int64_t max_sigop_cost{80'000};       // MAX_BLOCK_SIGOPS_COST (consensus.h)
    int64_t coinbase_sigops{400};         // DEFAULT_COINBASE_OUTPUT_MAX_ADDITIONAL_SIGOPS (policy.h)
    int64_t max_tx_count{4'000};          // optimized template only
    int64_t min_fee_rate_sat_kvb{1'000};  // optimized template only (1 sat/vB)
    int64_t block_min_fee_sat_kvb{1};     // DEFAULT_BLOCK_MIN_TX_FEE (policy.h): baselines
    int64_t projected_blocks{8};
    uint64_t linearize_budget{75'000};           // ACCEPTABLE_COST (txmempool.h), cost units per cluster
    uint64_t linearize_extra_budget{5'000'000};  // shared by clusters not optimal after the first pass
    uint64_t tail_search_budget{200'000};        // nodes of the tail branch and bound, block 1
    uint64_t projected_search_budget{2'000};     // the same for each projected block 2..N
    int64_t tail_window_pct{10};                 // the search window: chunks within +pct % of the cutoff
    uint64_t seed{0};
    int64_t threads{2};    // 1: single-threaded; 2: a helper thread (see linearize.h)
    bool skip_v30{false};  // incremental cycles: no v30 baseline (Result::v30 stays empty)
};

/** A validated mempool graph (owns the derived arrays, views the caller's inputs). */
struct Graph {
    uint32_t n{0};
    std::vector<int64_t> fee;
    std::vector<int64_t> weight;
    std::vector<int64_t> adj_weight;
    std::vector<int64_t> sigops;
    std::vector<uint32_t> parent_offsets;  // deduplicated copy
    std::vector<uint32_t> parents;
    std::vector<uint32_t> child_offsets;  // internal graph only
    std::vector<uint32_t> children;       // internal graph only
    std::vector<uint32_t> rank;

    std::span<const uint32_t> Parents(uint32_t i) const noexcept
    {
        return {parents.data() + parent_offsets[i], parents.data() + parent_offsets[i + 1]};
    }
    std::span<const uint32_t> Children(uint32_t i) const noexcept
    {
        return {children.data() + child_offsets[i], children.data() + child_offsets[i + 1]};
    }
};

/** The children lists (the transposed parent CSR) of an internal graph whose parents are set.
 *  O(n + e). */
void FillChildren(Graph& g);

/** Check every input array and build the Graph (input order, no children yet). Throws InputError
 *  naming the first offending transaction or array. Complexity: O(n + e), e = parent links. */
Graph ValidateInput(const InputView& in);

/** ValidateInput in parts that write distinct members of g, so two threads may run the last two
 *  at once: the lengths (sets g.n), then the per-transaction columns (fee, weights, sigops, rank)
 *  and the links (parent CSR, warm order). The sequential order, and so the first error reported,
 *  is lengths, columns, links. */
void ValidateLengths(const InputView& in, Graph& g);
void ValidateColumns(const InputView& in, Graph& g);
void ValidateLinks(const InputView& in, Graph& g);

/** Check option ranges (throws InputError INVALID_ARGUMENT). Complexity: O(1). */
void ValidateOptions(const Options& options);

}  // namespace opt
