// The exact Lagrangian term of one cluster: the best h(X) = fee(X)*D - F*w(X) - M*s(X) over its
// closed sets X (a maximum-weight closure, solved as a minimum cut), and the Lagrangian dual of
// the whole block built from it.
//
// Why: the residual solve (bound_exact.h) bounds a cluster's h unit by unit (a chunk's parts at
// its rate, each transaction's phi), which is exact when sigops are not priced but, where they
// are, can lie thousands of sat above the cluster's true best (a chunk's fee-paying parent and its
// sigop-heavy children priced apart). With the exact term per cluster, the dual
//   L(F, M) = F*C_w + M*C_s + sum over clusters of max_X h(X)
// minimized over the multipliers is the LP relaxation of the whole MILP (the closure polytope is
// integral), measured within a few hundred sat of the optimum on the sigop-bound mempools where
// the unit bound was 1-11k sat above it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chunk.h"
#include "clusters.h"

namespace opt::closure {

using i128 = __int128;

/** The cluster's transactions are first .. first + h.size() (internal ids, topological). eligible,
 *  forced: per transaction of the graph (forced: empty or 1 = taken, ancestors included; not
 *  eligible: never taken, nor its descendants). Returns max h(X) over the closed sets X that
 *  take every forced transaction and no excluded one (0 for the empty set when nothing is forced);
 *  chosen (optional): per local index, whether a best such set takes it.
 *  Complexity: O(m) when no negative transaction is an ancestor of a positive one, else a
 *  max-flow over the m transactions and their parent links. Past 256 transactions no cut: the
 *  sum of the positive h (an upper bound) and, in chosen, the positive ones with their ancestors. */
i128 MaxClosure(const Graph& g, uint32_t first, std::span<const i128> h, std::span<const uint8_t> eligible,
                std::span<const uint8_t> forced, std::vector<uint8_t>* chosen = nullptr);

/** The same with the cluster's decisions by local index (given: 0 free, 1 taken, 2 never; the
 *  taken ones closed under parents). */
i128 MaxClosureLocal(const Graph& g, uint32_t first, std::span<const i128> h, std::span<const uint8_t> given,
                     std::vector<uint8_t>* chosen = nullptr);

/** The multipliers of the dual in 2^-20 sat: lambda = F / 2^20 per weight unit, mu = M / 2^20 per
 *  sigop cost. */
struct Prices {
    int64_t F{0}, M{0};
};

/** The dual L(F, M) (scaled by 2^20) of the eligible transactions (forced: empty, or the ones
 *  every template of a branch takes). A cluster of a proven linearization without sigops, forced
 *  or newly excluded transactions takes its chunks of rate above lambda (the chunk diagram is its
 *  hull): those are one list by rate, summed by a binary search. The others take MaxClosure. */
class Dual
{
public:
    Dual(const Graph& g, const Clusters& cl, const ChunkTable& t, std::span<const uint8_t> relaxed, std::span<const uint8_t> root_eligible,
         std::span<const uint8_t> eligible, std::span<const uint8_t> forced, int64_t weight_cap, int64_t sigop_cap);

    /** L(p). Complexity: O(log m + the other clusters' size and cuts). */
    i128 operator()(Prices p) const;

    /** The transactions of the sets the dual takes at p (every cluster's best closed set): a
     *  closed set that nearly fits the limits when p is near the dual's minimum. */
    std::vector<uint32_t> Argmax(Prices p) const;

    /** Multipliers that lower the dual from start: a coordinate search (golden sections along F,
     *  then M, twice). Any result is a valid pair; only the bound's tightness depends on it. */
    Prices Minimize(Prices start) const;

private:
    /** Cluster c's transactions priced at p (fee minus priced weight and sigops, scaled), into h. */
    void Priced(uint32_t c, Prices p, std::vector<i128>& h) const;

    /** MaxClosure of the j-th of m_slow at p, from the flat copy below (the same value). */
    i128 SlowTerm(size_t j, Prices p) const;

    const Graph& m_g;
    const Clusters& m_cl;
    const ChunkTable& m_t;
    std::span<const uint8_t> m_eligible, m_forced;
    int64_t m_wcap, m_scap;
    std::vector<uint32_t> m_slow;  // the clusters MaxClosure evaluates
    // Their transactions copied flat (the dual is evaluated a hundred times per bound, so what does
    // not depend on the prices is worked out once): slow cluster j's are m_off[j] .. m_off[j + 1],
    // with fee, weight, sigops, the decision given (MaxClosure's: 0 free, 1 forced, 2 not eligible),
    // the state it implies (2 also below a never-taken parent), and the parents by local index.
    std::vector<uint32_t> m_off, m_par_off, m_par;
    std::vector<int64_t> m_xfee, m_xw, m_xs;
    std::vector<uint8_t> m_given, m_state;
    std::vector<uint32_t> m_chunk;               // the others' eligible chunks by rate, descending
    std::vector<int64_t> m_fee, m_w;             // their fees and weights
    std::vector<i128> m_prefix_fee, m_prefix_w;  // their prefix sums
};

}  // namespace opt::closure
