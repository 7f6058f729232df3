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
// The LP ignores the sigop and count limits (relaxations); the residual solve below takes them all.
// Only eligible transactions count (those of chunks paying the request's min fee rate: the
// template takes no other), in the LP and the solve alike.
// Closing the LP's gap, first: the exact residual solve (bound_exact.h): reduced-cost fixing with
// Lagrangian multipliers (the LP's critical rate; when the sigop limit binds, also a price per
// sigop cost, bound_lagrange.h, then both moved to the minimum of the dual taken with every
// cluster's exact best closed set, bound_closure.h: the LP relaxation of the whole MILP) against an
// incumbent (the optimized template's fee, the template guided by that price, or the dual's sets
// repaired into a template, bound_repair.h, whichever earns most), then the clusters left solved
// exactly over their closed sets under every limit, deepening (bound_deepen.h): first the
// templates within 256 sat of the LP, then 320, 400, ... (x 5/4), so a round that finds none
// proves the bound LP - delta even where the last round runs out of budget. Past the budget,
// CloseGap (bound_branch.h): a beam search for a better incumbent, the deepening again against it,
// then a branch and bound on the heavy units at the edge. When it finishes within its budget
// (solved), the bound is the optimum itself, and the solve hands back a template earning it when
// that beats the incumbent. Else (budget spent) the branching refinement (Martello-Toth style): every template either takes
// all of the LP's critical item (the first that does not fit) or not; if not, it takes at most the
// chunk minus its lightest leaf transaction, at most at the chunk's rate (bound.cpp says why). The
// bound is the larger of the two branches' fills, recursively up to a fixed depth: still a bound,
// never above the LP, and most of the LP's integrality gap at the block's edge is gone; with a
// sigop price, the Lagrangian LP with both limits is a bound too, and the smaller one is kept.
//
// exact (= solved): the bound IS the optimum of the same problem: the best fee of any set of
// eligible transactions closed under parents within the weight, sigop and count limits. The
// optimized template reaches it exactly when its fee equals the bound.
#pragma once

#include <span>
#include <vector>

#include "chunk.h"

namespace opt {

struct UpperBound {
    int64_t fee{0};     // the bound: lp_fee refined by branching (never above it)
    int64_t lp_fee{0};  // the LP / hull value (weight limit only)
    bool exact{false};  // the bound is the optimum (see above); the same as solved
    uint32_t relaxed_clusters{0};
    bool solved{false};            // the residual solve finished: fee = max(incumbent, weight-only optimum)
    uint32_t free_clusters{0};     // clusters the residual solve could not fix to one closed set
    uint64_t search_nodes{0};      // its search nodes and DP states
    uint32_t branches{0};          // branches the branch and bound solved (bound_branch.h; 0: not needed)
    double sigop_price{0};         // mu, sat per sigop cost (0: the sigop limit did not bind the LP)
    std::vector<uint32_t> better;  // a template earning more than the incumbent (parents first), if found
};

/** The limits the optimized template obeys (template_optimized.h). */
struct BoundLimits {
    int64_t weight{0};
    int64_t sigops{0};
    int64_t tx_count{0};
    int64_t min_rate_sat_kvb{0};
};

/** order: the initial chunks in mining order. incumbent: a template's fee within the limits (only
 *  prunes the residual solve; -1: none). Complexity: O(m) with no cluster relaxed and no sigop
 *  price, else O(n log n), plus the residual solve's budgeted work. */
UpperBound ComputeUpperBound(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                             std::span<const uint32_t> order, const BoundLimits& limits, int64_t incumbent = -1);

}  // namespace opt
