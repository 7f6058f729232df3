// The exact residual solve's per-cluster pieces (see bound_exact.h for the method): a cluster's
// view under the multipliers (positions, units, their H), the summary of the LP's set, and the
// enumeration of the closed sets cheap enough to beat the incumbent. Private to bound_exact.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bound_choose.h"
#include "bound_exact.h"

namespace opt::residual {

using i128 = __int128;
using mckp::Option;

/** Units heavier than this are not used to prune or fix (valid, just looser): their products
 *  with the scaled terms could leave the 128-bit range. */
constexpr int64_t WIDE = int64_t{1} << 32;

/** One position of a cluster's search order (topological, units contiguous). */
struct Pos {
    uint32_t tx;
    uint32_t unit;
    bool eligible;
    bool phi_pos;        // phi_x > 0: the LP's set takes x
    bool last;           // the last position of its unit
    i128 h;              // fee*D - F*w - M*s, exact
    i128 lb_in, lb_out;  // the loss taking (resp. leaving) x surely causes in its unit, floored
    bool forced{false};  // every closed set of the problem takes x (ResidualProblem::forced)
};

/** A cluster prepared for the search: positions, the units' H (rounded up) and their sum. slack:
 *  per unit, how far H lies below the sum of its positive phi (when a unit's H is its exact best
 *  closed part, tighter than that sum); the sure losses, made against that sum, shrink by it. */
struct View {
    std::vector<Pos> pos;
    std::vector<i128> unit_H, slack;
    i128 H{0};
    i128 cslack{0};      // H minus the cluster's exact best h (bound_closure.h); losses count from that
    bool fixable{true};  // false: a unit's H is its exact best part, so the LP's set is not phi's
};

struct Multipliers {
    int64_t F, D, M;
    i128 h(int64_t fee, int64_t w, int64_t s) const noexcept
    {
        return static_cast<i128>(fee) * D - static_cast<i128>(F) * w - static_cast<i128>(M) * s;
    }
};

/** Cluster c's order: a proven linearization (units: its chunks of t), else any topological order
 *  (units: single transactions). */
void BuildView(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t, const ResidualProblem& pb,
               const Multipliers& mu, uint32_t c, View& v);

/** The LP's set of a cluster (its eligible transactions of phi > 0), its totals, its loss, whether
 *  it is closed, and whether every other closed set loses more than allow (then it is the only
 *  candidate). */
struct Summary {
    int64_t w{0}, s{0}, n{0}, fee{0};
    i128 loss{0};
    bool closed{true};
    bool fixed{true};
};

Summary Summarize(const Graph& g, const View& v, uint32_t first, std::span<const uint32_t> where, i128 allow);

struct Caps {
    int64_t w, s, n;
    bool sig_model, count_model;
};

/** The search's state before deciding position k. */
struct Frame {
    i128 loss{0}, open_lb{0}, unit_h{0};  // loss of finished units; sure loss and h so far in the open unit
    int64_t w{0}, s{0}, cnt{0}, fee{0};
    uint8_t st{0};  // decision at k: 0 none yet, 1 in, 2 out
};

/** Append the cluster's closed sets X with H - h(X) <= allow within the caps to out (or, with
 *  want, find one with want's totals into got): a depth-first search deciding each transaction in
 *  order (in, or out; out when a parent is out or it is not eligible), pruned on the finished
 *  units' losses plus the open unit's sure loss. false when the node budget ran out. */
bool Enumerate(const Graph& g, const View& v, uint32_t first, std::span<const uint32_t> where, i128 allow, const Caps& caps,
               std::vector<Frame>& fr, std::vector<Option>& out, uint64_t& nodes, uint64_t budget, const Option* want = nullptr,
               std::vector<uint32_t>* got = nullptr);

}  // namespace opt::residual
