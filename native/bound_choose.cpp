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

} // namespace

void KeepFront(std::vector<Option>& v, size_t from)
{
    std::sort(v.begin() + static_cast<std::ptrdiff_t>(from), v.end(),
              [](const Option& a, const Option& b) { return a.w != b.w ? a.w < b.w : a.fee > b.fee; });
    size_t out = from;
    int64_t best = std::numeric_limits<int64_t>::min();
    for (size_t i = from; i < v.size(); ++i) {
        if (v[i].fee > best) {
            best = v[i].fee;
            v[out++] = v[i];
        }
    }
    v.resize(out);
}

Choice ChooseExactly(const std::vector<Option>& opts, const std::vector<size_t>& starts,
                     const std::vector<uint32_t>& ord, int64_t room, int64_t target, uint64_t budget, uint64_t& nodes)
{
    Choice out;
    const size_t nfree = ord.size();
    std::vector<Segment> segs;
    std::vector<int64_t> light_w(nfree + 1, 0), light_fee(nfree + 1, 0);
    std::vector<size_t> hull;
    for (size_t j = nfree; j-- > 0;) {
        const size_t lo = starts[ord[j]], hi = starts[ord[j] + 1];
        light_w[j] = light_w[j + 1] + opts[lo].w;
        light_fee[j] = light_fee[j + 1] + opts[lo].fee;
        hull.clear();  // upper concave hull of the front, from its lightest point
        for (size_t k = lo; k < hi; ++k) {
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

    std::vector<Option> states{{0, 0}}, next;
    for (size_t j = 0; j < nfree && !states.empty(); ++j) {
        next.clear();
        for (const Option& a : states) {
            for (size_t k = starts[ord[j]]; k < starts[ord[j] + 1]; ++k) {
                if (++nodes > budget) return out;
                const Option o{a.w + opts[k].w, a.fee + opts[k].fee};
                if (o.w + light_w[j + 1] <= room) next.push_back(o);
            }
        }
        KeepFront(next, 0);
        // The clusters after j: sweep the states by growing room over their segments by rate
        // (the segments of clusters already chosen are skipped).
        size_t p = 0;
        int64_t acc_w = 0, acc_fee = 0;
        const auto skip = [&] {
            while (p < segs.size() && segs[p].pos <= j) ++p, ++nodes;
        };
        skip();
        for (size_t i = next.size(); i-- > 0;) {
            const int64_t x = room - next[i].w - light_w[j + 1];  // >= 0, growing as i falls
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
        std::swap(states, next);
    }
    out.finished = true;
    for (const Option& o : states) {
        if (o.fee >= target && o.w <= room) out.best = std::max(out.best, o.fee);
    }
    return out;
}

} // namespace opt::mckp
