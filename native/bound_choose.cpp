// The exact multiple-choice knapsack of the bound's residual solve; see bound_choose.h.
#include "bound_choose.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace opt::mckp {

namespace {

using i128 = __int128;

/** A segment of a cluster's candidate hull (the LP relaxation of choosing one of them). */
struct Segment {
    int64_t dw, dfee;
    uint32_t pos;  // the cluster's position in the DP's order
};

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
        // The clusters after j: sweep the states by growing room over their segments by rate
        // (the segments of clusters already chosen are skipped).
        size_t p = 0;
        int64_t acc_w = 0, acc_fee = 0;
        const auto skip = [&] {
            while (p < segs.size() && segs[p].pos <= j) ++p, ++nodes;
        };
        skip();
        for (size_t i = next.size(); i-- > 0;) {
            const int64_t x = room.w - next[i].w - light_w[j + 1];  // >= 0, growing as i falls
            while (p < segs.size() && acc_w + segs[p].dw <= x) {
                acc_w += segs[p].dw;
                acc_fee += segs[p].dfee;
                ++p;
                ++nodes;
                skip();
            }
            int64_t lp = next[i].fee + light_fee[j + 1] + acc_fee;
            if (p < segs.size()) {  // the fractional segment, rounded up
                const Segment& sg = segs[p];
                lp += static_cast<int64_t>((static_cast<i128>(sg.dfee) * (x - acc_w) + sg.dw - 1) / sg.dw);
            }
            if (lp < target) next[i].w = -1;  // hopeless
        }
        next.erase(std::remove_if(next.begin(), next.end(), [](const Option& o) { return o.w < 0; }), next.end());
        if (beam > 0 && next.size() > beam) {  // the beam: the hopeful states of the best Lagrangian value
            const auto value = [&](const Option& o) {
                return static_cast<i128>(o.fee) * lag.D + static_cast<i128>(lag.F) * (room.w - o.w) +
                       static_cast<i128>(lag.M) * (room.s == std::numeric_limits<int64_t>::max() ? 0 : room.s - o.s);
            };
            std::nth_element(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(beam), next.end(),
                             [&](const Option& a, const Option& b) { return value(a) > value(b); });
            next.resize(beam);
        }
        if (nodes > budget) return out;
        if (beam > 0 && std::getenv("OPT_BB_DEBUG") != nullptr && (j % 200 == 0 || next.empty())) std::fprintf(stderr, "   beam layer %zu/%zu states %zu\n", j, nfree, next.size());
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
