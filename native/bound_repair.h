// A template from the Lagrangian solution (a primal heuristic for the bound's solve).
//
// Why: at multipliers near the dual's minimum (bound_closure.h) every cluster's best closed set
// together is within a few hundred sat of the LP and nearly fits the limits; the greedy templates
// over whole chunks can be tens of thousands of sat below the optimum where sigops bind (a chunk's
// fee-paying parent taken without its sigop-heavy children is out of their reach). Repair: while
// a limit is broken, drop the leaf (no child taken) of the lowest rate net of the sigop price;
// then add, while anything fits, the transaction of the highest net rate whose parents are all in.
// The result is closed and within every limit, so its fee is a valid incumbent.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph.h"

namespace opt {

struct RepairLimits {
    int64_t weight, sigops, count;
};

/** start: a closed set (the dual's sets); eligible: per transaction; mu: sat per sigop cost (the
 *  price the net rates subtract). Returns the repaired template (parents first) and sets fee.
 *  Complexity: O((n + e) log n). */
std::vector<uint32_t> RepairTemplate(const Graph& g, std::span<const uint32_t> start, std::span<const uint8_t> eligible,
                                     const RepairLimits& lim, double mu, int64_t& fee);

}  // namespace opt
