// The exact multiple-choice knapsack of the bound's residual solve; see bound_choose.h.
#include "bound_choose.h"

#include <algorithm>
#include <limits>

namespace opt::mckp {

namespace {

using i128 = __int128;

/** A segment of a cluster's candidate hull (the LP relaxation of choosing one of them). */
struct Segment {
    int64_t dw, dfee;
    uint32_t pos;  // the cluster's position in the DP's order
};

/** The LP of the clusters still to choose with a price per sigop cost: for any mu >= 0 the rest
 *  earns at most max(fee*D - M*s by weight, fractionally) + M * (its sigop room), scaled by D. The
 *  concave hulls of their candidates by (w, fee*D - M*s), their segments by slope. */
class PricedLp
{
public:
    PricedLp(const std::vector<Option>& opts, const std::vector<size_t>& starts, const std::vector<uint32_t>& ord, int64_t D, int64_t M)
        : m_D(D), m_M(M)
    {
        const size_t nfree = ord.size();
        m_light.assign(nfree + 1, 0);
        std::vector<size_t> hull;
        const auto val = [&](const Option& o) { return static_cast<i128>(o.fee) * D - static_cast<i128>(M) * o.s; };
        for (size_t j = nfree; j-- > 0;) {
            hull.clear();  // upper concave hull by (w, val), increasing part, from the lightest point
            for (size_t k = starts[ord[j]]; k < starts[ord[j] + 1]; ++k) {
                const Option& r = opts[k];
                if (!hull.empty() && val(r) <= val(opts[hull.back()])) continue;
                if (!hull.empty() && r.w == opts[hull.back()].w) hull.pop_back();
                while (hull.size() >= 2) {
                    const Option& a = opts[hull[hull.size() - 2]];
                    const Option& q = opts[hull.back()];
                    // drop q when it lies on or below the line a -> r (products of i128 by weights: < 2^127)
                    if ((val(q) - val(a)) * (r.w - a.w) > (val(r) - val(a)) * (q.w - a.w)) break;
                    hull.pop_back();
                }
                hull.push_back(k);
            }
            m_light[j] = m_light[j + 1] + val(opts[hull.front()]);
            for (size_t h = 1; h < hull.size(); ++h) {
                const Option& a = opts[hull[h - 1]];
                const Option& b = opts[hull[h]];
                m_segs.push_back({b.w - a.w, val(b) - val(a), static_cast<uint32_t>(j)});
            }
        }
        std::sort(m_segs.begin(), m_segs.end(), [](const Seg& a, const Seg& b) { return a.dval * b.dw > b.dval * a.dw; });
    }

    /** Per state of next (by weight, ascending) after position j: its fee plus the priced LP of
     *  the rest in its room (scaled by D) into bound. Drops the segments of the clusters chosen
     *  (positions <= j; the positions only grow). */
    void Bound(const std::vector<Option>& next, size_t j, const std::vector<int64_t>& light_w, Room room, std::vector<i128>& bound,
               uint64_t& nodes)
    {
        std::erase_if(m_segs, [&](const Seg& sg) { return sg.pos <= j; });
        bound.assign(next.size(), 0);
        size_t p = 0;
        int64_t acc_w = 0;
        i128 acc = 0;
        for (size_t i = next.size(); i-- > 0;) {
            const int64_t x = room.w - next[i].w - light_w[j + 1];
            while (p < m_segs.size() && acc_w + m_segs[p].dw <= x) {
                acc_w += m_segs[p].dw;
                acc += m_segs[p].dval;
                ++p;
                ++nodes;
            }
            i128 lp = static_cast<i128>(next[i].fee) * m_D + m_light[j + 1] + acc + static_cast<i128>(m_M) * (room.s - next[i].s);
            if (p < m_segs.size()) {  // the fractional segment, rounded up
                const Seg& sg = m_segs[p];
                lp += (sg.dval * (x - acc_w) + sg.dw - 1) / sg.dw;
            }
            bound[i] = lp;
        }
    }

private:
    struct Seg {
        int64_t dw;
        i128 dval;
        uint32_t pos;
    };
    int64_t m_D, m_M;
    std::vector<Seg> m_segs;
    std::vector<i128> m_light;  // per suffix: the hulls' first points' values
};

/** KeepFront's case of two limits (weight and sigops; v[from..] sorted by weight, then fee
 *  descending): v[i] is dominated iff a kept option (no heavier) with no more sigops earns as
 *  much, a prefix maximum over sigops (a Fenwick tree). O(k log k). */
void KeepFront2(std::vector<Option>& v, size_t from, uint64_t* work)
{
    std::vector<int64_t> keys;
    keys.reserve(v.size() - from);
    for (size_t i = from; i < v.size(); ++i) keys.push_back(v[i].s);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<int64_t> tree(keys.size() + 1, std::numeric_limits<int64_t>::min());
    size_t out = from;
    for (size_t i = from; i < v.size(); ++i) {
        const auto rank = static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), v[i].s) - keys.begin()) + 1;
        int64_t best = std::numeric_limits<int64_t>::min();
        for (size_t r = rank; r > 0; r -= r & (~r + 1)) best = std::max(best, tree[r]);
        if (best >= v[i].fee) continue;
        for (size_t r = rank; r < tree.size(); r += r & (~r + 1)) tree[r] = std::max(tree[r], v[i].fee);
        v[out++] = v[i];
    }
    if (work != nullptr) *work += v.size() - from;
    v.resize(out);
}

}  // namespace

void KeepFront(std::vector<Option>& v, size_t from, uint64_t* work)
{
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(from);
    std::sort(first, v.end(), [](const Option& a, const Option& b) {
        if (a.w != b.w) return a.w < b.w;
        if (a.fee != b.fee) return a.fee > b.fee;
        return a.s != b.s ? a.s < b.s : a.n < b.n;
    });
    const bool multi = std::any_of(first, v.end(), [](const Option& o) { return o.s != 0 || o.n != 0; });
    const bool two = multi && std::all_of(first, v.end(), [](const Option& o) { return o.n == 0; });
    if (two) {
        KeepFront2(v, from, work);
        return;
    }
    size_t out = from;
    int64_t best = std::numeric_limits<int64_t>::min();
    for (size_t i = from; i < v.size(); ++i) {
        if (!multi) {
            if (v[i].fee > best) {
                best = v[i].fee;
                v[out++] = v[i];
            }
            continue;
        }
        // Every kept option is at most as heavy; v[i] is dominated by one no worse in s, n and fee.
        bool dominated = false;
        for (size_t k = from; k < out && !dominated; ++k) {
            dominated = v[k].fee >= v[i].fee && v[k].s <= v[i].s && v[k].n <= v[i].n;
        }
        if (work != nullptr) *work += out - from;
        if (!dominated) v[out++] = v[i];
    }
    v.resize(out);
}

Choice ChooseExactly(const std::vector<Option>& opts, const std::vector<size_t>& starts, const std::vector<uint32_t>& ord,
                     Room room, int64_t target, const Lagrangian& lag, uint64_t budget, uint64_t& nodes, size_t beam)
{
    Choice out;
    const size_t nfree = ord.size();
    std::vector<Segment> segs;
    // Per suffix of the order: the sums of the lightest candidate's weight, sigops and count (each
    // its own minimum: lower bounds), that candidate's fee (for the LP) and the best h.
    std::vector<int64_t> light_w(nfree + 1, 0), light_fee(nfree + 1, 0), light_s(nfree + 1, 0), light_n(nfree + 1, 0);
    std::vector<i128> h_rest(nfree + 1, 0);
    std::vector<size_t> hull;
    for (size_t j = nfree; j-- > 0;) {
        const size_t lo = starts[ord[j]], hi = starts[ord[j] + 1];
        light_w[j] = light_w[j + 1] + opts[lo].w;
        light_fee[j] = light_fee[j + 1] + opts[lo].fee;
        int64_t ms = std::numeric_limits<int64_t>::max(), mn = ms;
        for (size_t k = lo; k < hi; ++k) {
            ms = std::min(ms, opts[k].s);
            mn = std::min(mn, opts[k].n);
        }
        light_s[j] = light_s[j + 1] + ms;
        light_n[j] = light_n[j + 1] + mn;
        h_rest[j] = h_rest[j + 1] + lag.hbest[ord[j]];
        hull.clear();  // upper concave hull of the front by weight and fee, from its lightest point
        for (size_t k = lo; k < hi; ++k) {
            if (!hull.empty() && opts[k].fee <= opts[hull.back()].fee) continue;  // (a multi-limit front)
            while (hull.size() >= 2) {
                const Option& p = opts[hull[hull.size() - 2]];
                const Option& q = opts[hull.back()];
                // drop q when it lies on or below the line p -> k
                const Option& r = opts[k];
                const i128 lhs = static_cast<i128>(q.fee - p.fee) * (r.w - p.w);
                if (lhs > static_cast<i128>(r.fee - p.fee) * (q.w - p.w)) break;
                hull.pop_back();
            }
            hull.push_back(k);
        }
        for (size_t h = 1; h < hull.size(); ++h) {
            const Option& a = opts[hull[h - 1]];
            const Option& b = opts[hull[h]];
            segs.push_back({b.w - a.w, b.fee - a.fee, static_cast<uint32_t>(j)});
        }
    }
    std::sort(segs.begin(), segs.end(), [](const Segment& a, const Segment& b) {
        return static_cast<i128>(a.dfee) * b.dw > static_cast<i128>(b.dfee) * a.dw;
    });

    const bool priced = lag.M > 0 && room.s != std::numeric_limits<int64_t>::max();
    PricedLp priced_lp(opts, starts, ord, lag.D, priced ? lag.M : 0);
    std::vector<i128> bound;  // per state: the smaller of its two LP bounds, scaled by D

    // layers[j]: the states after choosing j clusters (back pointers into layers[j - 1]).
    std::vector<std::vector<Option>> layers(1, std::vector<Option>{Option{0, 0}});
    std::vector<Option> next;
    for (size_t j = 0; j < nfree && !layers.back().empty(); ++j) {
        next.clear();
        const std::vector<Option>& states = layers.back();
        for (size_t a = 0; a < states.size(); ++a) {
            const Option& st = states[a];
            for (size_t k = starts[ord[j]]; k < starts[ord[j] + 1]; ++k) {
                if (++nodes > budget) return out;
                Option o{st.w + opts[k].w, st.fee + opts[k].fee, st.s + opts[k].s, st.n + opts[k].n,
                         static_cast<uint32_t>(a), static_cast<uint32_t>(k)};
                if (o.w + light_w[j + 1] > room.w || o.s + light_s[j + 1] > room.s || o.n + light_n[j + 1] > room.n) continue;
                // The Lagrangian bound of the rest (scaled by D).
                const i128 lagr = static_cast<i128>(o.fee) * lag.D + h_rest[j + 1] + static_cast<i128>(lag.F) * (room.w - o.w) +
                                  static_cast<i128>(lag.M) * (room.s == std::numeric_limits<int64_t>::max() ? 0 : room.s - o.s);
                if (lagr < static_cast<i128>(target) * lag.D) continue;
                next.push_back(o);
            }
        }
        if (beam == 0) {
            KeepFront(next, 0, &nodes);
        } else {
            // A beam (see below) skips the dominance test: its cost is quadratic in the layer.
            std::sort(next.begin(), next.end(), [](const Option& a, const Option& b) { return a.w < b.w; });
        }
        if (priced) {
            priced_lp.Bound(next, j, light_w, room, bound, nodes);
        } else {
            bound.assign(next.size(), std::numeric_limits<i128>::max());
        }
        // The clusters after j: sweep the states by growing room over their segments by rate
        // (the segments of clusters already chosen are skipped).
        std::erase_if(segs, [&](const Segment& sg) { return sg.pos <= j; });  // (positions only grow)
        size_t p = 0;
        int64_t acc_w = 0, acc_fee = 0;
        for (size_t i = next.size(); i-- > 0;) {
            const int64_t x = room.w - next[i].w - light_w[j + 1];  // >= 0, growing as i falls
            while (p < segs.size() && acc_w + segs[p].dw <= x) {
                acc_w += segs[p].dw;
                acc_fee += segs[p].dfee;
                ++p;
                ++nodes;
            }
            int64_t lp = next[i].fee + light_fee[j + 1] + acc_fee;
            if (p < segs.size()) {  // the fractional segment, rounded up
                const Segment& sg = segs[p];
                lp += static_cast<int64_t>((static_cast<i128>(sg.dfee) * (x - acc_w) + sg.dw - 1) / sg.dw);
            }
            bound[i] = std::min(bound[i], static_cast<i128>(lp) * lag.D);
            if (bound[i] < static_cast<i128>(target) * lag.D) next[i].w = -1;  // hopeless
        }
        if (beam > 0 && next.size() > beam) {  // the beam: the hopeful states of the best bound
            std::vector<size_t> idx;
            for (size_t i = 0; i < next.size(); ++i) {
                if (next[i].w >= 0) idx.push_back(i);
            }
            if (idx.size() > beam) {
                std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(beam), idx.end(),
                                 [&](size_t a, size_t b) { return bound[a] > bound[b]; });
                for (size_t k = beam; k < idx.size(); ++k) next[idx[k]].w = -1;
            }
        }
        next.erase(std::remove_if(next.begin(), next.end(), [](const Option& o) { return o.w < 0; }), next.end());
        if (nodes > budget) return out;
        layers.push_back(next);
    }
    out.finished = true;
    if (layers.size() != nfree + 1) return out;  // every partial choice was hopeless
    const std::vector<Option>& last = layers.back();
    size_t at = last.size();
    for (size_t i = 0; i < last.size(); ++i) {
        const Option& o = last[i];
        if (o.fee >= target && o.w <= room.w && o.s <= room.s && o.n <= room.n && o.fee > out.best) {
            out.best = o.fee;
            at = i;
        }
    }
    if (at == last.size()) return out;
    out.picks.assign(nfree, 0);
    for (size_t j = nfree; j > 0; --j) {
        const Option& o = layers[j][at];
        out.picks[j - 1] = o.pick;
        at = o.parent;
    }
    return out;
}

}  // namespace opt::mckp
