// The exact residual solve that closes the LP bound's gap (issue 14's certificate).
//
// Lagrangian view of the LP: with the LP's critical rate lambda (any lambda >= 0 works), every
// template S splits as fee(S) = lambda * w(S) + sum_c g_c(S_c), g_c(X) = fee(X) - lambda * w(X)
// over its closed part S_c of each cluster c, and g_c(S_c) <= G_c, the cluster's LP term (the sum
// of its chunks' positive g; of its transactions' for a relaxed cluster). With w(S) = C - slack:
//   fee(S) = LP - sum_c L_c - lambda * slack,   L_c = G_c - g_c(S_c) >= 0,  LP = lambda*C + sum G_c.
// So a template earning more than an incumbent I has every L_c <= LP - (I + 1) (reduced-cost
// fixing): per cluster, enumerate its closed sets with that small a loss (a pruned search in
// topological order; most clusters have one, the LP's, and are fixed), then choose one per
// cluster under the weight capacity exactly (a Pareto DP over (weight, fee), pruned by the same
// loss budget). The best choice is the optimum of the relaxation whenever it beats I, so
// max(I, best) bounds every template. The incumbent need not be feasible for this to hold: it only
// prunes. Sigop and count limits are relaxed (ignored), as in the LP.
// Work is budgeted in search nodes and DP states (deterministic); past the budget the solve gives
// up and the caller keeps its other bound.
#pragma once

#include <cstdint>
#include <span>

#include "chunk.h"
#include "clusters.h"

namespace opt {

struct ResidualSolve {
    bool solved{false};        // fee below is a bound (false: budget ran out, fee meaningless)
    int64_t fee{0};            // max(incumbent, optimum of the weight-only problem)
    uint32_t free_clusters{0}; // clusters left with more than one candidate closed set
    uint64_t nodes{0};         // search nodes plus DP states spent
};

/** lin, t: the proven linearizations and their chunks (real weight); mining: the chunks by rate
 *  (mining order). relaxed[c]: cluster c's precedence is dropped in the LP (its G_c sums its
 *  transactions'). lambda: the LP's critical item (fee, size > 0). Complexity: O(n + budget);
 *  when no cluster is relaxed, O(the chunks up to the LP's edge + the clusters near it + budget). */
ResidualSolve SolveResidual(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> mining, std::span<const uint8_t> relaxed, FeeFrac lambda,
                            int64_t capacity, int64_t incumbent, uint64_t budget);

} // namespace opt
