// Upper bound on the fee of any block template (closed under parents, real weight <= capacity).
//
// Method: the LP relaxation of the precedence-constrained knapsack. Per cluster the LP value as a
// function of its share of the capacity is the concave hull of its closed sets' (weight, fee)
// points; summing concave functions under one capacity is a fractional knapsack over their
// segments, taken by rate. For a cluster whose linearization is proven optimal, its hull is its
// chunk diagram (Core: optimal chunks' prefixes are the best closed sets of their size). For any
// other cluster (not proven optimal, or, in a table chunked by sigop-adjusted size, one whose sizes
// differ from real weight so the chunks were optimized for another size), we drop its precedence
// constraints: each transaction becomes its own item. That relaxes the problem, so the bound stays valid, only looser.
// The cycle passes the real-weight table (affected clusters re-linearized by real weight), so only
// clusters SFL could not prove optimal are relaxed.
// exact = no cluster was relaxed (the bound then equals the hull value, i.e. the LP optimum).
// Sigop and count limits are ignored (relaxations). The result is floored: fees are integers.
// Closing the LP's gap, first: the exact residual solve (bound_exact.h): reduced-cost fixing with
// the LP's critical rate against an incumbent (the optimized template's fee), then the few
// clusters left solved exactly over their closed sets. When it finishes within its budget
// (solved), the bound is max(incumbent, the optimum under the weight limit): with the optimized
// fee as incumbent, that optimum itself.
// Else (budget spent) the branching refinement (Martello-Toth style): every template either takes
// all of the LP's critical item (the first that does not fit) or not; if not, it takes at most the
// chunk minus its lightest leaf transaction, at most at the chunk's rate (bound.cpp says why). The
// bound is the larger of the two branches' fills, recursively up to a fixed depth: still a bound,
// never above the LP, and most of the LP's integrality gap at the block's edge is gone.
#pragma once

#include <span>

#include "chunk.h"

namespace opt {

struct UpperBound {
    int64_t fee{0};     // the bound: lp_fee refined by branching (never above it)
    int64_t lp_fee{0};  // the LP / hull value
    bool exact{true};
    uint32_t relaxed_clusters{0};
    bool solved{false};         // the residual solve finished: fee = max(incumbent, weight-only optimum)
    uint32_t free_clusters{0};  // clusters the residual solve could not fix to one closed set
    uint64_t search_nodes{0};   // its search nodes and DP states
};

/** order: the initial chunks in mining order. incumbent: a template's fee (only prunes the residual
 *  solve; the bound stays valid whatever it is; -1: none). Complexity: O(m) if exact, else
 *  O(m log m), plus the residual solve's budgeted work. */
UpperBound ComputeUpperBound(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                             std::span<const uint32_t> order, int64_t capacity, int64_t incumbent = -1);

} // namespace opt
