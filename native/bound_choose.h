// Choosing one candidate closed set per cluster under the block's limits, exactly (a multiple-
// choice knapsack): the last step of the bound's residual solve (bound_exact.h). No graph here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opt::mckp {

/** A candidate closed set of one cluster, or a partial choice over several: weight, sigop cost,
 *  transaction count and fee. s and n are 0 where their limit cannot bind (the front is then one-
 *  dimensional). parent, pick: the DP's back pointers (a state's previous state and its option). */
struct Option {
    int64_t w;
    int64_t fee;
    int64_t s{0};
    int64_t n{0};
    uint32_t parent{0};
    uint32_t pick{0};
};

/** Keep v[from..]'s Pareto front (no other is as light in every limit and as rich). A dominated
 *  choice never helps, as clusters only share the limits. Sorted by weight ascending. work counts
 *  the comparisons of the multi-limit case (quadratic in the front's size). */
void KeepFront(std::vector<Option>& v, size_t from, uint64_t* work = nullptr);

/** The room left for the free clusters' choice (after the fixed clusters). */
struct Room {
    int64_t w, s, n;
};

/** A Lagrangian bound on the free clusters' total, scaled by D: a choice's fee*D <= its h + F*w + M*s
 *  with h = fee*D - F*w - M*s, so the rest's best is at most the sum of their best h plus F and M
 *  times the room. hbest[j]: the best h among free cluster j's candidates. */
struct Lagrangian {
    int64_t F{0}, D{1}, M{0};
    std::vector<__int128> hbest;
};

/** The DP's answer: finished false when its budget ran out. picks: per free cluster (in ord's
 *  order) the chosen option's index into opts, when best >= 0. */
struct Choice {
    bool finished{false};
    int64_t best{-1};  // best total fee of a choice within room earning >= target; -1: none
    std::vector<size_t> picks;
};

/** Choose one candidate per free cluster (opts[starts[f] .. starts[f+1]), a Pareto front) in the
 *  order ord, within room, maximizing fee: a DP over Pareto fronts of partial choices, each pruned
 *  when even a relaxation of the clusters still to choose cannot reach target: the LP of their
 *  candidates by weight alone (their lightest candidates, then their hulls' segments by rate, the
 *  last one fractional and rounded up), and the Lagrangian bound lag. beam > 0: a heuristic instead
 *  (a beam search): each layer keeps at most beam states, those of the best Lagrangian value; its
 *  choice is feasible but not proven best. */
Choice ChooseExactly(const std::vector<Option>& opts, const std::vector<size_t>& starts, const std::vector<uint32_t>& ord,
                     Room room, int64_t target, const Lagrangian& lag, uint64_t budget, uint64_t& nodes, size_t beam = 0);

}  // namespace opt::mckp
