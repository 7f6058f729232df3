// The optimized block template: consensus limits, request limits, and an exact tail search.
//
// Constraints (all checked with real values):
// - sum of real weight <= weight_limit - coinbase_reserve (consensus: block weight <= 4,000,000
//   with the coinbase fitting in the reservation), sum of sigops <= max_sigop_cost -
//   coinbase_sigops, tx count <= max_tx_count;
// - every included chunk pays at least min_fee_rate (fee * 4000 >= rate_sat_kvb * weight);
// - closure: a chunk is included only if every parent of its transactions is in the block or was
//   mined in an earlier projected block. There is no blanket exclusion of a cluster after a skip:
//   a later chunk whose ancestors were all included stays eligible.
// Algorithm, over chunks in mining order (the Core order, so the greedy pass is Core-like):
// 1. greedy: include each chunk that fits and is not blocked;
// 2. tail search: from the first chunk that did not fit (the cutoff), open a window back to the
//    first chunk whose rate is within +tail_window_pct % of the cutoff's; fix everything before
//    it; depth-first branch and bound over the rest (include first, then exclude), pruning with
//    the fractional-knapsack (hull) bound on the remaining chunks that can still fit. The bound
//    ignores closure, sigops and count, so it is valid. Capped at tail_search_budget nodes;
//    `complete` says the window was searched exhaustively (then the result is optimal among
//    templates made of whole chunks that keep the fixed prefix);
// 3. never worse than `incumbent` (the v31 baseline; the caller passes it only when it satisfies
//    the request limits, and its chunk ids may belong to another table).
// The order is by real weight (ChunkTable::real) for the optimized template, so sigop-heavy
// transactions compete by the space they really take; sigop cost is a separate limit.
#pragma once

#include <span>
#include <vector>

#include "selection.h"

namespace opt {

/** Per-transaction state while building projected blocks. */
enum TxState : uint8_t { TX_AVAILABLE = 0,
                         TX_IN_BLOCK = 1,
                         TX_MINED = 2 };

struct TemplateLimits {
    int64_t weight{0};
    int64_t sigops{0};
    int64_t tx_count{0};
    int64_t min_rate_sat_kvb{0};
    uint64_t search_budget{0};
    int64_t window_pct{10};
};

struct TailSearchStats {
    uint64_t nodes{0};
    bool complete{true};
    uint32_t window_chunks{0};
    int64_t greedy_fee{0};
    int64_t improved_sat{0};  // search result over the greedy pass (0 if none)
    bool used_incumbent{false};
    bool used_bound{false};      // the bound's solve found a better template (not whole chunks), used instead
    bool sigops_binding{false};  // the greedy pass skipped a chunk that fit by weight but not by sigops
};

/** Builds templates from a fixed mining order; blocks are taken one after another, each over the
 *  chunks still live (projected blocks). Holds per-position copies of the chunk data so a block
 *  costs O(live scan) without gathering through the chunk table again. */
class TemplateBuilder
{
public:
    /** order: chunk ids in mining order. parallel: the external-parent index is built on a
 *  second thread beside the per-position columns (the same builder). Complexity: O(m + n + e). */
    TemplateBuilder(const Graph& g, const ChunkTable& t, std::span<const uint32_t> order, const TemplateLimits& limits,
                    bool parallel = false);

    /** Build the next block from the live chunks. state: TX_MINED for earlier blocks, else
     *  TX_AVAILABLE; on return the chosen transactions are TX_IN_BLOCK. incumbent may be null; if
     *  given, it satisfies the request limits.
     *  Complexity: O(m) plus O(budget * (log m + chunk degree)) for the search. */
    Selection Build(std::vector<uint8_t>& state, uint64_t search_budget, const Selection* incumbent, TailSearchStats& stats);

    /** Remove sel's chunks from the live set (they were mined). Complexity: O(c log m). */
    void Remove(const Selection& sel);

private:
    struct Impl;
    /** The per-position copies of the chunk data, the min-tree and the bound's arrays. O(m). */
    void Columns();
    /** Per position, the parents of its chunk's transactions that lie in other chunks: whether a
     *  chunk is blocked then reads a short list instead of the graph. O(n + edges). */
    void IndexExternalParents();
    std::span<const uint32_t> ExternalParents(uint32_t pos) const noexcept
    {
        return {m_ext_parents.data() + m_ext_offsets[pos], m_ext_parents.data() + m_ext_offsets[pos + 1]};
    }
    const Graph& m_g;
    const ChunkTable& m_t;
    TemplateLimits m_lim;
    std::vector<uint32_t> m_order;
    std::vector<uint32_t> m_pos_of;  // chunk id -> position in m_order (UINT32_MAX if none)
    bool m_identity{false};          // m_order is 0, 1, ..., t.Count() - 1: a chunk's position is its id
    std::vector<int64_t> m_fee, m_weight, m_sigops, m_count;
    std::vector<uint8_t> m_eligible, m_live;
    std::vector<int64_t> m_tree;  // min-segment tree over live eligible weights
    size_t m_tree_size{1};
    std::vector<uint8_t> m_real_sorted_from;             // 1 if real rates are non-increasing from p onwards
    std::vector<int64_t> m_cum_fee, m_cum_weight;        // bound prefix sums, reused by every Build
    std::vector<uint32_t> m_ext_offsets, m_ext_parents;  // ExternalParents, CSR by position
    std::vector<uint32_t> m_ext_parent_pos;              // beside m_ext_parents: the parent's chunk's position (UINT32_MAX: none)
    friend struct Impl;
};

/** Whether sel satisfies the request limits: the tx count, and every transaction in a chunk of the
 *  consensus table `consensus` paying the min fee rate (real weight). The bound and the builder judge
 *  eligibility on that table, so a selection chunked another way (Core's sigop-adjusted table, a
 *  re-chunked subset) is judged by the same chunks, not its own. O(|sel|). */
bool WithinRequestLimits(const ChunkTable& consensus, const Selection& sel, const TemplateLimits& limits);

}  // namespace opt
