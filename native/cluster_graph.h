// One cluster as a small dependency graph on bit sets, plus the linearization helpers that only
// need that graph: chunking, topology checks and PostLinearize.
//
// Invariants of a ClusterGraph<S> (after Build):
// - Positions 0..n-1 are in topological order: every ancestor of i has a position below i.
// - anc[i] and desc[i] contain i itself; j in anc[i] <=> i in desc[j].
// - feerate[i] = {fee, sigop-adjusted weight} of the transaction; fallback[i] its txid rank.
// A linearization is a permutation of 0..n-1 with every ancestor before its descendants. Its
// chunks are the maximal groups produced by merging each new transaction with the preceding
// group while the new group's fee rate is strictly higher (Core's ChunkLinearization).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bitset.h"
#include "common.h"

namespace opt {

template <typename S>
struct ClusterGraph {
    unsigned n{0};
    std::vector<FeeFrac> feerate;
    std::vector<S> anc;
    std::vector<S> desc;
    std::vector<uint32_t> fallback;

    /** Reset to n transactions with no dependencies. Complexity: O(n). */
    void Reset(unsigned count)
    {
        n = count;
        feerate.assign(n, FeeFrac{});
        anc.assign(n, S{});
        desc.assign(n, S{});
        fallback.assign(n, 0);
        for (unsigned i = 0; i < n; ++i) {
            anc[i].Set(i);
            desc[i].Set(i);
        }
    }
    /** Record that p is a parent of c; requires p < c (topological positions) and that every
     *  dependency of p was added before any dependency of c. Complexity: O(1) words. */
    void AddParent(unsigned p, unsigned c) noexcept
    {
        OPT_ASSUME(p < c);
        anc[c] |= anc[p];
    }
    /** Derive descendant sets from the ancestor sets. Complexity: O(n^2 / 64). */
    void FinishDescendants() noexcept
    {
        for (unsigned i = 0; i < n; ++i) {
            for (unsigned a : anc[i]) desc[a].Set(i);
        }
    }
    /** Parents of i that are not ancestors of another parent (transitive reduction). O(n). */
    S ReducedParents(unsigned i) const noexcept
    {
        S r = anc[i];
        r.Reset(i);
        for (unsigned p : r) {
            if (r[p]) {
                r -= anc[p];
                r.Set(p);
            }
        }
        return r;
    }
    S ReducedChildren(unsigned i) const noexcept
    {
        S r = desc[i];
        r.Reset(i);
        for (unsigned c : r) {
            if (r[c]) {
                r -= desc[c];
                r.Set(c);
            }
        }
        return r;
    }
    FeeFrac FeeRateOf(const S& set) const noexcept
    {
        FeeFrac r;
        for (unsigned i : set) r += feerate[i];
        return r;
    }
    /** Whether lin is a permutation of 0..n-1 with parents first. Complexity: O(n * W). */
    bool IsTopological(std::span<const uint32_t> lin) const noexcept
    {
        if (lin.size() != n) return false;
        S done;
        for (uint32_t i : lin) {
            if (i >= n || done[i]) return false;
            S need = anc[i];
            need.Reset(i);
            if (!need.IsSubsetOf(done)) return false;
            done.Set(i);
        }
        return true;
    }
};

/** The chunk fee/size pairs of a linearization (Core's ChunkLinearization). Complexity: O(n). */
template <typename S>
std::vector<FeeFrac> ChunkFeerates(const ClusterGraph<S>& g, std::span<const uint32_t> lin)
{
    std::vector<FeeFrac> chunks;
    for (uint32_t i : lin) {
        FeeFrac c = g.feerate[i];
        while (!chunks.empty() && CompareFeerate(c, chunks.back()) > 0) {
            c += chunks.back();
            chunks.pop_back();
        }
        chunks.push_back(c);
    }
    return chunks;
}

/** Improve a linearization in place without making it worse (two passes, back to front then
 *  front to back, as Core's PostLinearize). Each pass walks the transactions; every new
 *  transaction starts a group that moves towards the front while the group before it has a lower
 *  fee rate: it merges into that group when it depends on it, otherwise the two swap.
 *  Guarantees (Core's): resulting chunks are connected, and a cluster shaped as a tree (all
 *  transactions with at most one parent, or all with at most one child) comes out optimal.
 *  Complexity: O(n^2) group operations on bit sets. Precondition: lin is topological. */
template <typename S>
void PostLinearize(const ClusterGraph<S>& g, std::span<uint32_t> lin)
{
    struct Group {
        S txs;
        S deps;  // ancestors (forward pass) or descendants (backward pass) of the group's txs
        FeeFrac fr;
        std::vector<uint32_t> items;  // in final (forward) order
    };
    std::vector<Group> groups;
    groups.reserve(lin.size());
    for (int pass = 0; pass < 2; ++pass) {
        const bool backward = pass == 0;
        groups.clear();
        for (size_t k = 0; k < lin.size(); ++k) {
            const uint32_t tx = backward ? lin[lin.size() - 1 - k] : lin[k];
            groups.push_back(Group{S::Singleton(tx), backward ? g.desc[tx] : g.anc[tx], g.feerate[tx], {tx}});
            size_t at = groups.size() - 1;
            while (at > 0) {
                Group& prev = groups[at - 1];
                Group& cur = groups[at];
                // Forward: the earlier group has a lower rate. Backward (mirrored list): the later
                // group has a higher rate than the new one.
                const int cmp = CompareFeerate(prev.fr, cur.fr);
                if (backward ? cmp <= 0 : cmp >= 0) break;
                if (cur.deps.Overlaps(prev.txs)) {
                    // Dependent: merge. Forward order is prev then cur; backward it is cur then prev.
                    Group merged;
                    merged.txs = prev.txs | cur.txs;
                    merged.deps = prev.deps | cur.deps;
                    merged.fr = prev.fr + cur.fr;
                    const Group& first = backward ? cur : prev;
                    const Group& second = backward ? prev : cur;
                    merged.items = first.items;
                    merged.items.insert(merged.items.end(), second.items.begin(), second.items.end());
                    groups[at - 1] = std::move(merged);
                    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(at));
                } else {
                    std::swap(prev, cur);
                }
                --at;
            }
        }
        size_t out = 0;
        if (backward) {
            for (size_t k = groups.size(); k-- > 0;) {
                for (uint32_t t : groups[k].items) lin[out++] = t;
            }
        } else {
            for (const auto& gr : groups) {
                for (uint32_t t : gr.items) lin[out++] = t;
            }
        }
    }
}

}  // namespace opt
