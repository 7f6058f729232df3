// The sigop limit's multiplier for the bound (bound_exact.h's mu) and a template guided by it.
//
// The LP of the block with both limits, per transaction x priced at its unit's rate r_x (its chunk's
// for a proven cluster, its own otherwise; bound_exact.h says why that bounds every closed set):
//   LP(mu) = mu * C_s + max over fractions of sum (r_x * w_x - mu * s_x) subject to sum w_x <= C_w,
// a fractional knapsack by weight for each mu, convex in mu. Its minimum over mu is the LP with both
// limits; any mu gives a valid bound, so the search below only has to be good, not exact (doubles).
// The guided template: whole chunks by (fee - mu * sigops) / weight, each cluster's chunks kept in
// order, greedily under every limit; when sigops bind it is far better than the order by rate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chunk.h"

namespace opt {

struct LagrangeChoice {
    double mu{0};      // sat per sigop cost; 0: the sigop limit does not bind the LP
    double lambda{0};  // sat per weight unit at that mu (the critical item's rate)
    double lp{0};      // LP(mu)
};

/** rate_of[x]: x's unit rate (sat/WU); eligible: per transaction. Complexity: O(n log n) plus
 *  O(k log k) per step of a golden-section search for k sigop-carrying transactions. */
LagrangeChoice ChooseSigopMultiplier(const Graph& g, std::span<const double> rate_of, std::span<const uint8_t> eligible,
                                     int64_t weight_cap, int64_t sigop_cap);

struct GuidedTemplate {
    int64_t fee{0};
    std::vector<uint32_t> chunks;  // chunk ids of t, ascending (mining order, so parents first)
};

/** The greedy template by rate net of mu per sigop cost (see above). eligible_chunk: per chunk of
 *  t. Complexity: O(m log m). */
GuidedTemplate GuidedGreedy(const ChunkTable& t, std::span<const uint8_t> eligible_chunk, double mu, int64_t weight_cap,
                            int64_t sigop_cap, int64_t count_cap);

}  // namespace opt
