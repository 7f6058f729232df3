// The exact residual solve that closes the LP bound's gap (issue 14's certificate), under every
// limit of the optimized template: weight, sigop cost, transaction count, and the minimum fee rate
// (only transactions of chunks paying it are eligible).
//
// Lagrangian view: with multipliers lambda = F/D per weight unit and mu = M/D per sigop cost (any
// values >= 0 work), every template S splits as
//   fee(S) = lambda*w(S) + mu*s(S) + sum_c h_c(S_c),   h(X) = fee(X) - lambda*w(X) - mu*s(X),
// over its closed part S_c of each cluster c. Per cluster, H_c bounds h_c over its closed sets:
// its units (the chunks of a proven linearization, else single transactions) each give
// H_u = sum over u's transactions x of max(0, phi_x), phi_x = rate(u)*w_x - lambda*w_x - mu*s_x:
// the part X of a chunk a closed set takes has rate(X) <= rate(u) (an optimal chunk is a best
// closed set of what remains), so h(X) <= sum over X of phi_x. Then, with the limits' slacks,
//   fee(S) = LP - sum_c L_c - lambda*slack_w - mu*slack_s,  L_c = H_c - h_c(S_c) >= 0,
//   LP = lambda*C_w + mu*C_s + sum_c H_c,
// so a template earning more than an incumbent I has every L_c <= LP - (I + 1) (reduced-cost
// fixing), and each unit's loss is at least the sum of |phi_x| over its transactions decided
// against phi's sign. Per cluster the closed sets that cheap are enumerated (a pruned search in
// topological order; most clusters have one, the LP's, and are fixed), then one per cluster is
// chosen under the limits exactly (a Pareto DP). The best choice is the optimum whenever it beats
// I, so max(I, best) bounds every template; the choice itself is returned, a template.
// Work is budgeted in search nodes and DP states (deterministic); past the budget the solve gives
// up and the caller keeps its other bound.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "chunk.h"
#include "clusters.h"

namespace opt {

constexpr int64_t NO_LIMIT = std::numeric_limits<int64_t>::max();

struct ResidualProblem {
    std::span<const uint8_t> relaxed;   // per cluster: its units are single transactions
    std::span<const uint8_t> eligible;  // per transaction (the min fee rate); others are never taken
    std::span<const uint8_t> forced;    // per transaction, or empty: 1 = always taken (a branch; its ancestors too)
    int64_t F{0}, D{1}, M{0};           // lambda = F / D, mu = M / D (M > 0 only with a sigop limit)
    int64_t capacity{0};
    int64_t sigop_cap{NO_LIMIT};  // NO_LIMIT: cannot bind (all eligible sigops fit)
    int64_t count_cap{NO_LIMIT};  // NO_LIMIT: cannot bind
};

struct ResidualSolve {
    bool solved{false};         // fee below is a bound (false: budget ran out, fee meaningless)
    int64_t fee{0};             // max(incumbent, the optimum under every limit)
    uint32_t free_clusters{0};  // clusters left with more than one candidate closed set
    uint64_t nodes{0};          // search nodes plus DP states spent
    int64_t lp{0};              // the Lagrangian LP value, floored (a bound whatever the solve did)
    std::vector<uint32_t> txs;  // when solved and the optimum beats the incumbent: a template earning it
};

/** The clusters' views of one residual problem (bound_exact_view.h), kept for the solves that
 *  share that problem: the rounds of a deepening solve (bound_deepen.h) and the heuristic's.
 *  Why: a view depends on the problem (multipliers, eligibility, forced), not on the incumbent or
 *  the allowance, and building every cluster's (a maximum closure per sigop-carrying cluster) is
 *  most of a round's cost where sigops are priced. Filled by the first solve that builds them all;
 *  use one only with the problem it was filled for. */
class ResidualViews
{
public:
    ResidualViews();
    ~ResidualViews();
    ResidualViews(const ResidualViews&) = delete;
    ResidualViews& operator=(const ResidualViews&) = delete;
    struct Impl;
    std::unique_ptr<Impl> impl;
};

/** lin, t: the linearizations and their chunks (real weight); mining: the chunks by rate (mining
 *  order). views: optional, the problem's kept views (see above). beam > 0: the choice among the free clusters is a beam search (bound_choose.h), so the
 *  result is never solved, only a template earning fee when it beats the incumbent (a primal
 *  heuristic). Complexity: O(n + budget); with M == 0 and no cluster relaxed, O(the chunks up to the
 *  LP's edge + the clusters near it + budget). */
ResidualSolve SolveResidual(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> mining, const ResidualProblem& pb, int64_t incumbent, uint64_t budget,
                            size_t beam = 0, ResidualViews* views = nullptr);

}  // namespace opt
