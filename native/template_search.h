// The state of one TemplateBuilder::Build call: the partial template, the greedy pass, the
// window of the tail search, its bounds and the depth-first search (see template_optimized.h for
// the algorithm). Private to template_optimized.cpp.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "template_optimized.h"

namespace opt {

namespace template_search {
constexpr uint32_t NONE = UINT32_MAX;
constexpr int64_t INF_WEIGHT = std::numeric_limits<int64_t>::max();
}  // namespace template_search

/** The state of one Build call: the current partial template and the search helpers. */
struct TemplateBuilder::Impl {
    static constexpr uint32_t NONE = template_search::NONE;
    TemplateBuilder& b;
    std::vector<uint8_t>& state;
    uint32_t m_eff{0};  // one past the last live eligible position
    int64_t cur_fee{0}, cur_weight{0}, cur_sigops{0}, cur_count{0};
    std::vector<int64_t>& cum_fee;
    std::vector<int64_t>& cum_weight;
    uint32_t cum_end{0};  // prefix sums cover [s, cum_end]
    std::vector<uint32_t> best_rate_from;
    bool real_sorted{true};

    uint32_t Chunk(uint32_t pos) const noexcept { return b.m_order[pos]; }

    /** First position >= pos whose live eligible weight is <= r (min-tree descent). O(log m). */
    uint32_t NextFit(size_t pos, int64_t r) const noexcept
    {
        const size_t sz = b.m_tree_size;
        if (pos >= sz) return NONE;
        size_t i = pos + sz;
        if (b.m_tree[i] <= r) return static_cast<uint32_t>(pos);
        while (true) {
            if (i == 1) return NONE;
            if ((i & 1) == 0 && b.m_tree[i + 1] <= r) {
                ++i;
                break;
            }
            i >>= 1;
        }
        while (i < sz) {
            i <<= 1;
            if (b.m_tree[i] > r) ++i;
        }
        return static_cast<uint32_t>(i - sz);
    }
    /** Next position >= pos that can still fit by weight (m_eff if none or the count is full). */
    uint32_t NextCandidate(uint32_t pos) const noexcept
    {
        if (cur_count >= b.m_lim.tx_count) return m_eff;
        const uint32_t i = NextFit(pos, b.m_lim.weight - cur_weight);
        return (i == NONE || i >= m_eff) ? m_eff : i;
    }
    bool Blocked(uint32_t pos) const noexcept
    {
        for (uint32_t p : b.ExternalParents(pos)) {
            if (state[p] == TX_AVAILABLE) return true;
        }
        return false;
    }
    bool FitsOtherLimits(uint32_t pos) const noexcept
    {
        return cur_sigops + b.m_sigops[pos] <= b.m_lim.sigops && cur_count + b.m_count[pos] <= b.m_lim.tx_count;
    }
    void Include(uint32_t pos) noexcept
    {
        for (uint32_t x : b.m_t.Txs(Chunk(pos))) state[x] = TX_IN_BLOCK;
        cur_fee += b.m_fee[pos];
        cur_weight += b.m_weight[pos];
        cur_sigops += b.m_sigops[pos];
        cur_count += b.m_count[pos];
    }
    void Exclude(uint32_t pos) noexcept
    {
        for (uint32_t x : b.m_t.Txs(Chunk(pos))) state[x] = TX_AVAILABLE;
        cur_fee -= b.m_fee[pos];
        cur_weight -= b.m_weight[pos];
        cur_sigops -= b.m_sigops[pos];
        cur_count -= b.m_count[pos];
    }
    /** Prepare the bound over live positions [s, m_eff): prefix sums, and whether real rates are
     *  non-increasing there (else the bound uses the best rate of the suffix). O(m_eff - s). */
    void PrepareBound(uint32_t s)
    {
        // Prefix sums from s until they exceed twice the block (no fill can reach further from a
        // position inside); cum_* are only read in [s, cum_end], so the rest is not cleared.
        cum_fee[s] = cum_weight[s] = 0;
        uint32_t p = s;
        for (; p < m_eff && cum_weight[p] <= 2 * b.m_lim.weight; ++p) {
            const bool live = b.m_live[p];
            cum_fee[p + 1] = cum_fee[p] + (live ? b.m_fee[p] : 0);
            cum_weight[p + 1] = cum_weight[p] + (live ? b.m_weight[p] : 0);
        }
        cum_end = p;
        // Removing chunks keeps a non-increasing sequence non-increasing.
        real_sorted = b.m_real_sorted_from[s];
        if (real_sorted) return;
        best_rate_from.assign(size_t{m_eff} + 1, NONE);
        for (uint32_t p = m_eff; p-- > s;) {
            const uint32_t q = best_rate_from[p + 1];
            const bool better = b.m_live[p] && (q == NONE || CompareFeerate({b.m_fee[p], b.m_weight[p]}, {b.m_fee[q], b.m_weight[q]}) > 0);
            best_rate_from[p] = better ? p : q;
        }
    }
    /** Upper bound on the fee still obtainable from positions >= i, where i is the first position
     *  that can fit (so nothing before it ever will): the fractional knapsack over the remaining
     *  chunks, and room x the best remaining rate. Ignores closure, sigops and count. */
    int64_t Bound(uint32_t i) const noexcept
    {
        if (i >= m_eff) return 0;
        const int64_t room = b.m_lim.weight - cur_weight;
        if (!real_sorted) {
            const uint32_t q = best_rate_from[i];
            return q == NONE ? 0 : MulDivFloor(b.m_fee[q], room, b.m_weight[q]);
        }
        const int64_t by_rate = MulDivFloor(b.m_fee[i], room, b.m_weight[i]);
        // Beyond the prefix-sum window, or when the fill would leave it, room x rate(i) alone.
        if (i >= cum_end || cum_weight[cum_end] - cum_weight[i] <= room) return by_rate;
        // j = the position whose chunk overflows the room: galloping from i (deep in the search the
        // room is small and j is close), then binary search. cum_weight is non-decreasing.
        const int64_t target = cum_weight[i] + room;
        uint32_t lo = i, step = 1;  // invariant: cum_weight[lo] <= target
        uint32_t hi = i;
        while (true) {
            hi = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{lo} + step, cum_end));
            if (cum_weight[hi] > target) break;
            lo = hi;
            if (hi == cum_end) break;
            step *= 2;
        }
        while (hi - lo > 1 && cum_weight[hi] > target) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (cum_weight[mid] <= target)
                lo = mid;
            else
                hi = mid;
        }
        const uint32_t j = lo;  // largest p in [i, cum_end) with cum[p] <= target; position j overflows
        int64_t fill = cum_fee[j] - cum_fee[i];
        fill += MulDivFloor(b.m_fee[j], room - (cum_weight[j] - cum_weight[i]), b.m_weight[j]);
        return std::min(by_rate, fill);
    }
    /** Whether the chunk at p can never join this branch: a parent in another chunk is still
     *  available although its chunk's position is already decided (< decided). */
    bool Dead(uint32_t p, uint32_t decided) const noexcept
    {
        for (uint32_t k = b.m_ext_offsets[p]; k < b.m_ext_offsets[p + 1]; ++k) {
            if (b.m_ext_parent_pos[k] < decided && state[b.m_ext_parents[k]] == TX_AVAILABLE) return true;
        }
        return false;
    }
    /** A tighter bound than Bound for the branch whose positions < decided are fixed, i >= decided
     *  the first that fits: the fractional fill by rate over the chunks that can still join it
     *  (not dead, not heavier than the room), scanning at most TIGHT_SCAN of them and bounding the
     *  rest by the room left x the next rate. Needs real_sorted. O(TIGHT_SCAN x (log m + degree)). */
    int64_t TightBound(uint32_t i, uint32_t decided) const noexcept
    {
        constexpr int TIGHT_SCAN = 96;
        const int64_t room = b.m_lim.weight - cur_weight;
        int64_t fill = 0, left = room;
        uint32_t p = i;
        for (int steps = 0; p < m_eff; ++steps) {
            if (steps == TIGHT_SCAN) return fill + MulDivFloor(b.m_fee[p], left, b.m_weight[p]);
            if (!Dead(p, decided)) {
                if (b.m_weight[p] > left) return fill + MulDivFloor(b.m_fee[p], left, b.m_weight[p]);
                fill += b.m_fee[p];
                left -= b.m_weight[p];
            }
            const uint32_t q = NextFit(size_t{p} + 1, room);
            p = q == NONE ? m_eff : q;
        }
        return fill;
    }
    /** Whether the branch (positions < decided fixed, i the first that fits) can beat best. */
    bool Promising(uint32_t i, uint32_t decided, int64_t best) const noexcept
    {
        if (cur_fee + Bound(i) <= best) return false;
        return !real_sorted || i >= m_eff || cur_fee + TightBound(i, decided) > best;
    }
    /** The greedy pass: include each live chunk that fits and is not blocked, in order (their
     *  positions into included). Returns the first live eligible position that did not fit by
     *  weight, sigops or count (NONE if all did). */
    uint32_t Greedy(std::vector<uint32_t>& included, TailSearchStats& stats)
    {
        uint32_t first_skip = NONE;
        for (uint32_t pos = 0;;) {
            const uint32_t i = NextCandidate(pos);
            if (first_skip == NONE) {
                for (uint32_t p = pos; p < i && p < m_eff; ++p) {
                    if (b.m_live[p] && b.m_eligible[p]) {
                        first_skip = p;
                        break;
                    }
                }
            }
            if (i >= m_eff) break;
            const bool blocked = Blocked(i);
            if (!blocked && cur_sigops + b.m_sigops[i] > b.m_lim.sigops) stats.sigops_binding = true;
            if (blocked || !FitsOtherLimits(i)) {
                if (first_skip == NONE && !blocked) first_skip = i;
                pos = i + 1;
                continue;
            }
            Include(i);
            included.push_back(i);
            pos = i + 1;
        }
        return first_skip;
    }
    /** The first position whose rate is within +window_pct % of the cutoff's (rates are
     *  non-increasing along the order): a binary search. */
    uint32_t WindowStart(uint32_t first_skip) const noexcept
    {
        const FeeFrac cut = b.m_t.Rate(Chunk(first_skip));
        auto in_window = [&](uint32_t p) {  // rate(p) <= rate(cut) * (100 + pct) / 100
            const FeeFrac r = b.m_t.Rate(Chunk(p));
            return static_cast<__int128>(r.fee) * 100 * cut.size <= static_cast<__int128>(cut.fee) * (100 + b.m_lim.window_pct) * r.size;
        };
        uint32_t lo = 0, hi = first_skip;
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (in_window(mid))
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo;
    }
    /** Depth-first branch and bound over [s, m_eff) (include first, then exclude), at most budget
     *  nodes. A better leaf than best_fee replaces best_fee and best_path (true if any did). Leaves
     *  the partial template as it found it. */
    bool Search(uint32_t s, uint64_t budget, int64_t& best_fee, std::vector<uint32_t>& best_path, TailSearchStats& stats)
    {
        bool improved = false;
        std::vector<uint32_t> path;
        uint32_t pos = s;
        bool done = false;
        while (!done) {
            // Descend: include whatever fits, skip what is blocked, stop at a leaf or a weak bound.
            bool backtrack = false;
            while (!backtrack) {
                if (++stats.nodes > budget) {
                    stats.complete = false;
                    done = true;
                    break;
                }
                const uint32_t i = NextCandidate(pos);
                if (i >= m_eff) {
                    if (cur_fee > best_fee) {
                        best_fee = cur_fee;
                        best_path = path;
                        improved = true;
                    }
                    backtrack = true;
                } else if (!Promising(i, pos, best_fee)) {
                    backtrack = true;
                } else if (Blocked(i) || !FitsOtherLimits(i)) {
                    pos = i + 1;
                } else {
                    Include(i);
                    path.push_back(i);
                    pos = i + 1;
                }
            }
            if (done) break;
            done = !Backtrack(path, best_fee, pos);
        }
        while (!path.empty()) {
            Exclude(path.back());
            path.pop_back();
        }
        return improved;
    }
    /** Undo inclusions from the deepest up to the first whose exclusion branch can still win;
     *  false if none can (the search is over), else pos = where that branch continues. */
    bool Backtrack(std::vector<uint32_t>& path, int64_t best_fee, uint32_t& pos)
    {
        while (!path.empty()) {
            const uint32_t i = path.back();
            path.pop_back();
            Exclude(i);
            if (Promising(NextCandidate(i + 1), i + 1, best_fee)) {
                pos = i + 1;
                return true;
            }
        }
        return false;
    }
    /** The greedy pass again from position s, into sel. */
    void FillGreedily(uint32_t s, Selection& sel)
    {
        for (uint32_t pos = s;;) {
            const uint32_t i = NextCandidate(pos);
            if (i >= m_eff) break;
            if (!Blocked(i) && FitsOtherLimits(i)) {
                Include(i);
                sel.AddChunk(b.m_t, Chunk(i));
            }
            pos = i + 1;
        }
    }
};

}  // namespace opt
