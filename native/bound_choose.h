// Choosing one candidate closed set per cluster under a weight capacity, exactly (a multiple-
// choice knapsack): the last step of the bound's residual solve (bound_exact.h). No graph here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opt::mckp {

/** A candidate closed set of one cluster, or a partial choice over several: weight and fee. */
struct Option {
    int64_t w;
    int64_t fee;
};

/** Keep v[from..]'s Pareto front (no other is as light and as rich): by weight ascending, fees
 *  strictly increasing. A dominated choice never helps, as clusters only share the weight. */
void KeepFront(std::vector<Option>& v, size_t from);

/** The DP's answer: finished false when its budget ran out. */
struct Choice {
    bool finished{false};
    int64_t best{-1};  // best total fee of a choice within room earning >= target; -1: none
};

/** Choose one candidate per free cluster (opts[starts[f] .. starts[f+1]), a Pareto front) in the
 *  order ord, total weight <= room, maximizing fee: a DP over Pareto fronts of partial choices,
 *  each pruned by the LP relaxation of the clusters still to choose (their lightest candidates,
 *  then their hulls' segments by rate, the last one fractional and rounded up) when even that
 *  cannot reach target. One sweep per cluster: states by weight, segments by rate. */
Choice ChooseExactly(const std::vector<Option>& opts, const std::vector<size_t>& starts,
                     const std::vector<uint32_t>& ord, int64_t room, int64_t target, uint64_t budget, uint64_t& nodes);

} // namespace opt::mckp
