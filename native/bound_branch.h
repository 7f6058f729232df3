// Branch and bound over the units at the block's edge, when the deepening solve (bound_deepen.h)
// cannot close the gap on its own (issue 25: a sigop-bound block with a heavy chunk at the cutoff).
//
// Why: the Lagrangian LP takes a heavy unit (a chunk of a proven cluster, else a transaction) near
// the critical rate fractionally; every integral template takes all of it or none, so its LP is
// thousands of sat above the optimum and the reduced-cost fixing against that gap leaves thousands
// of clusters free. Branching on that unit (all of it in, with its ancestors, or all of it out)
// splits the templates in two; each branch's own LP (multipliers chosen again for it) is close to
// its optimum, so its deepening solve fixes nearly everything and finishes. Every template lies in
// one branch, so the largest branch cap is a bound and the best branch template the optimum.
//
// Search: best-first by the parent's cap, the incumbent shared (a branch's solve prunes against
// it, and reduced-cost fixing with the branch's multipliers is valid for the branch). The unit
// branched on: the heaviest undecided eligible unit whose |h| (fee net of the multipliers) is
// within the node's gap, i.e. one whose in-or-out the LP is nearly indifferent to. Budgeted in
// search nodes; when it runs out, the bound is the largest cap among the open branches.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bound_deepen.h"
#include "bound_exact.h"

namespace opt {

struct BranchResult {
    bool exact{false};          // every branch was closed: fee is the optimum under every limit
    int64_t fee{0};             // the best template's fee (>= the incumbent given)
    int64_t cap{0};             // no template earns more (a bound, exact or not)
    uint64_t nodes{0};          // search nodes and DP states of every branch's solve
    uint32_t branches{0};       // branches solved
    std::vector<uint32_t> txs;  // a template earning fee, when it beats the incumbent given
};

/** The root's data: its problem (multipliers, limits, eligibility), the cap the deepening solve
 *  proved for it and its Lagrangian LP (floored). rate_of: per transaction its unit's rate (the LP's
 *  price, bound_lagrange.h). Complexity: per branch O(n log n) for its multipliers plus its
 *  deepening solve; at most budget search nodes in all. */
BranchResult SolveBranching(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> order, const ResidualProblem& root, std::span<const double> rate_of,
                            int64_t root_cap, int64_t root_lp, int64_t incumbent, uint64_t budget);

/** After a deepening solve (dp, against incumbent) that did not finish: first a better incumbent
 *  (the residual solve with a beam search for its choice, from the floor where dp ran out down to
 *  the incumbent: the floors above were proven empty), and when it beats that floor the deepening
 *  again against it (every allowance smaller); then, if still open, the branch and bound.
 *  views: pb's kept views (bound_exact.h), or null. Complexity: a few residual solves and
 *  SolveBranching, each within its budget. */
BranchResult CloseGap(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                      std::span<const uint32_t> order, const ResidualProblem& pb, std::span<const double> rate_of,
                      const DeepenResult& dp, int64_t incumbent, ResidualViews* views = nullptr);

}  // namespace opt
