// The deepening residual solve; see bound_deepen.h.
#include "bound_deepen.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace opt {

DeepenResult SolveDeepening(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> order, const ResidualProblem& pb, int64_t incumbent, uint64_t budget,
                            ResidualViews* views, int64_t first_delta, int64_t known_cap)
{
    ResidualViews own;
    if (views == nullptr) views = &own;
    DeepenResult out;
    out.fee = incumbent;
    // The LP alone (with a target above it there is nothing to search).
    const int64_t lp = SolveResidual(g, cl, lin, t, order, pb, std::numeric_limits<int64_t>::max() / 4, 0, 0, views).lp;
    out.rounds = 1;
    out.cap = std::max(lp, incumbent);
    const int64_t skip = known_cap < lp ? lp - known_cap + 1 : 0;  // the first delta whose floor lies below known_cap
    for (int64_t delta = std::max({first_delta, DEEPEN_FIRST, skip});; delta = delta * DEEPEN_STEP_NUM / DEEPEN_STEP_DEN) {
        const int64_t target = lp - delta;  // the templates earning more than target
        const bool last = target <= incumbent;
        const int64_t floor = last ? incumbent : target;
        ResidualSolve rs = SolveResidual(g, cl, lin, t, order, pb, floor, budget - std::min(out.nodes, budget), 0, views);
        ++out.rounds;
        out.nodes += rs.nodes;
        const bool solved = rs.solved;
        const int64_t fee = rs.fee;
        std::vector<uint32_t> txs = std::move(rs.txs);
        out.last = std::move(rs);
        if (!solved) {  // the budget ran out: cap holds from the previous round
            out.failed_floor = floor;
            out.failed_delta = delta;
            return out;
        }
        if (fee > floor) {  // the best of all templates earning more than floor: the optimum
            out.exact = true;
            out.fee = out.cap = fee;
            out.txs = std::move(txs);
            return out;
        }
        out.cap = floor;  // nothing earns more than floor
        if (last) {
            out.exact = true;
            return out;
        }
        if (out.nodes >= budget) {
            out.failed_floor = floor;
            out.failed_delta = delta * DEEPEN_STEP_NUM / DEEPEN_STEP_DEN;
            return out;
        }
    }
}

}  // namespace opt
