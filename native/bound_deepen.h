// Iterative deepening of the exact residual solve (bound_exact.h) below the Lagrangian LP.
//
// Why: the residual solve fixes every cluster whose deviations from the LP's set cost more than
// its allowance, LP - target. Given only the incumbent as the target, the allowance is the whole
// gap; where the sigop limit binds next to a heavy chunk across the block's edge that gap is
// thousands of sat, thousands of clusters stay free and the solve runs out of budget, proving
// nothing. Deepening asks first for the templates within delta of the LP (delta = 256, then x 5/4):
// a small delta fixes nearly every cluster and the solve finishes. If it finds templates there,
// the best of them is the optimum (any better template lies within delta too); if none, no
// template earns more than LP - delta, a proven bound. It stops when the target reaches the
// incumbent (then the incumbent is the optimum) or the budget runs out, keeping the last
// proven LP - delta: where the solve cannot prove the optimum it still tightens the bound.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "bound_exact.h"

namespace opt {

/** The first allowance below the LP (sat) and its growth per round. */
constexpr int64_t DEEPEN_FIRST = 256;
constexpr int64_t DEEPEN_STEP_NUM = 5, DEEPEN_STEP_DEN = 4;

struct DeepenResult {
    ResidualSolve last;         // the last round's solve (its free clusters, its LP)
    bool exact{false};          // fee is the optimum under every limit
    int64_t fee{0};             // the optimum when exact, else the incumbent given
    int64_t cap{0};             // no template earns more (a bound, exact or not)
    uint64_t nodes{0};          // search nodes and DP states, all rounds
    uint32_t rounds{0};         // residual solves run (the LP's included)
    int64_t failed_floor{0};    // when not exact: the floor of the round that ran out of budget
    int64_t failed_delta{0};    // and its delta (LP - floor before the incumbent clipped it)
    std::vector<uint32_t> txs;  // a template earning fee when it beats the incumbent
};

/** pb: the residual problem with its multipliers; budget: search nodes and DP states for all
 *  rounds; views: pb's kept views (bound_exact.h), shared by the rounds (null: kept here);
 *  first_delta: the first round's delta (a larger one resumes where an earlier solve of pb ran out:
 *  each round stands on its own, the ones before proved only the cap, which the caller keeps);
 *  known_cap: a cap already proven for pb (rounds whose floor is not below it are skipped). Complexity: up to a few rounds of SolveResidual (each O(n + its work) with a sigop
 *  price, less without). */
DeepenResult SolveDeepening(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> order, const ResidualProblem& pb, int64_t incumbent, uint64_t budget,
                            ResidualViews* views = nullptr, int64_t first_delta = DEEPEN_FIRST,
                            int64_t known_cap = std::numeric_limits<int64_t>::max());

}  // namespace opt
