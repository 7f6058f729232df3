// The exact residual solve; see bound_exact.h for why max(incumbent, its optimum) is a bound.
#include "bound_exact.h"

#include "bound_choose.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <vector>

namespace opt {

namespace {

using i128 = __int128;
using mckp::Choice;
using mckp::ChooseExactly;
using mckp::KeepFront;
using mckp::Option;

/** Search nodes one cluster may take: past it, its near-lambda closed sets are too many to list
 *  (a dense cluster of similar rates), and giving up early leaves the budget's time unspent. */
constexpr uint64_t CLUSTER_BUDGET = 100'000;

/** Weights up to this keep every scaled product below 2^127 (fees total < 2^53, so g < 2^86 and
 *  allowances too); heavier units are simply not used to prune or fix (valid, just looser). */
constexpr int64_t WIDE = int64_t{1} << 32;

/** Scaled Lagrangian terms: everything is multiplied by lambda's size D, so g(X) = fee*D - F*w. */
struct Scale {
    int64_t F, D;
    i128 G(int64_t fee, int64_t w) const noexcept { return static_cast<i128>(fee) * D - static_cast<i128>(F) * w; }
};

/** One cluster's search order: its transactions topologically, in units (a chunk of a proven
 *  linearization, or a single transaction of a relaxed cluster) that are contiguous. */
struct Unit {
    i128 g;     // the unit's whole g (scaled)
    int64_t w;  // its weight
};

/** The search's state before deciding position k. */
struct Frame {
    i128 g{0}, loss{0}, unit_g{0};  // g of the set so far; loss of finished units; g taken from the open unit
    int64_t w{0}, fee{0}, unit_in{0}, unit_out{0};  // weights taken and left in the open unit
    uint8_t st{0};                                   // decision at k: 0 none yet, 1 in, 2 out
};

/** Append cluster c's closed sets X with G_c - g(X) <= allow and w(X) <= capacity to out: a
 *  depth-first search deciding each transaction in order (in, or out; out when a parent is out).
 *  The loss splits exactly over units: a unit u of g > 0 (in the LP's set) loses g(u) - g(X & u),
 *  one of g <= 0 loses -g(X & u), and both are >= (|rate(u) - lambda|) * weight left out of
 *  (resp. taken from) u: the part left out of a chunk is closed upward in it, so its rate is at
 *  least the chunk's (else the rest would be a better chunk); the part taken is closed downward,
 *  at most the chunk's rate. The search prunes on finished units' losses plus that lower bound
 *  of the open unit. false when the node budget ran out. */
bool EnumerateCluster(const Graph& g, std::span<const uint32_t> where, uint32_t first, std::span<const uint32_t> order,
                      std::span<const uint32_t> unit_of, std::span<const Unit> units, const Scale& s, i128 G,
                      i128 allow, int64_t capacity, std::vector<Frame>& fr, std::vector<Option>& out, uint64_t& nodes,
                      uint64_t budget)
{
    const int m = static_cast<int>(order.size());
    fr.assign(static_cast<size_t>(m) + 1, Frame{});
    const auto last_of_unit = [&](size_t k) { return k + 1 == order.size() || unit_of[k + 1] != unit_of[k]; };
    const auto hopeless = [&](const Frame& f, size_t k) {  // f: the state before deciding k
        if (f.w > capacity) return true;
        if (f.loss > allow) return true;
        if (k == order.size() || (k > 0 && last_of_unit(k - 1))) return false;  // no open unit
        const Unit& u = units[unit_of[k]];
        if (u.w > WIDE) return false;
        const i128 part = u.g > 0 ? u.g * f.unit_out : -u.g * f.unit_in;  // / u.w
        return (f.loss * u.w + part) > allow * u.w;
    };
    int i = 0;
    while (i >= 0) {
        const size_t k = static_cast<size_t>(i);
        Frame& f = fr[k];
        if (k == order.size()) {
            if (G - f.g <= allow && f.w <= capacity) out.push_back({f.w, f.fee});
            --i;
            continue;
        }
        const uint32_t x = order[k];
        if (f.st == 2) {  // both branches done
            f.st = 0;
            --i;
            continue;
        }
        if (f.st == 0) {
            if (++nodes > budget) return false;
            bool forced_out = false;
            for (uint32_t p : g.Parents(x)) forced_out = forced_out || fr[where[p - first]].st == 2;
            f.st = forced_out ? 2 : 1;
        } else {
            f.st = 2;
        }
        Frame n = f;
        n.st = 0;
        if (f.st == 1) {
            const i128 gx = s.G(g.fee[x], g.weight[x]);
            n.g += gx;
            n.unit_g += gx;
            n.w += g.weight[x];
            n.fee += g.fee[x];
            n.unit_in += g.weight[x];
        } else {
            n.unit_out += g.weight[x];
        }
        if (last_of_unit(k)) {
            const Unit& u = units[unit_of[k]];
            n.loss += u.g > 0 ? u.g - n.unit_g : -n.unit_g;
            n.unit_g = 0;
            n.unit_in = n.unit_out = 0;
        }
        if (!hopeless(n, k + 1)) {
            fr[k + 1] = n;
            ++i;
        }
    }
    return true;
}

/** Order for the DP: the clusters with the widest swing of weight first (within a factor 8), then
 *  those whose cheapest deviation is dearest. Once the heavy near-lambda choices are made, the LP
 *  of the rest is nearly integral and prunes hard; the other way round, the fronts stay wide. */
std::vector<uint32_t> DpOrder(const std::vector<Option>& opts, const std::vector<size_t>& starts,
                              const std::vector<i128>& G, const Scale& s)
{
    const size_t nfree = starts.size() - 1;
    std::vector<uint32_t> ord(nfree);
    std::vector<i128> dear(nfree, std::numeric_limits<i128>::max());
    std::vector<int> swing(nfree);
    for (uint32_t j = 0; j < nfree; ++j) {
        ord[j] = j;
        i128 least = std::numeric_limits<i128>::max();
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) least = std::min(least, G[j] - s.G(opts[k].fee, opts[k].w));
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) {
            const i128 l = G[j] - s.G(opts[k].fee, opts[k].w) - least;
            if (l > 0) dear[j] = std::min(dear[j], l);
        }
        swing[j] = std::bit_width(static_cast<uint64_t>(opts[starts[j + 1] - 1].w - opts[starts[j]].w)) / 3;
    }
    std::stable_sort(ord.begin(), ord.end(), [&](uint32_t a, uint32_t b) {
        return swing[a] != swing[b] ? swing[a] > swing[b] : dear[a] > dear[b];
    });
    return ord;
}

/** Per cluster: its LP term G (the sum of its units' positive g: for a proven linearization its
 *  hull's best, for a relaxed cluster its transactions'), the LP's set (its units of g > 0), and
 *  whether that set is its only candidate: any other closed set changes some unit u by at least
 *  its lightest transaction, which loses at least |g(u)| / w(u) times that weight (see
 *  EnumerateCluster); when that exceeds the allowance for every unit, the cluster is fixed without
 *  a search. (A relaxed cluster's set may not be closed; then no template beats the incumbent, and
 *  taking it anyway only loosens the bound.) */
struct Summary {
    i128 G{0};
    bool fixed{true};  // every deviation loses more than the allowance (only when one is given)
    int64_t w{0}, fee{0};
};

/** Cluster c's order (topological, units contiguous): a proven linearization, else any topological order. */
std::span<const uint32_t> OrderOf(const Clusters& cl, const Linearization& lin, std::span<const uint8_t> relaxed,
                                  uint32_t c)
{
    return relaxed[c] ? cl.Txs(c) : std::span<const uint32_t>(lin.lin).subspan(cl.offsets[c], cl.Size(c));
}

} // namespace

ResidualSolve SolveResidual(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> mining, std::span<const uint8_t> relaxed, FeeFrac lambda,
                            int64_t capacity, int64_t incumbent, uint64_t budget)
{
    ResidualSolve res;
    OPT_ASSUME(lambda.size > 0 && lambda.fee >= 0);
    if (lambda.size > WIDE || capacity > WIDE) return res;  // beyond the scaled arithmetic's range
    const Scale s{lambda.fee, lambda.size};
    // Units and sums from the transactions' own data (in the cluster's index range, so cached),
    // not from the chunk table, whose mining order would make every read a cache miss.
    const auto unit_ends = [&](uint32_t c, std::span<const uint32_t> order, size_t k) {
        return relaxed[c] || k + 1 == order.size() || t.chunk_of[order[k + 1]] != t.chunk_of[order[k]];
    };
    const auto summarize = [&](uint32_t c, const i128* allow) {
        const std::span<const uint32_t> order = OrderOf(cl, lin, relaxed, c);
        Summary su;
        FeeFrac u;
        int64_t lightest = std::numeric_limits<int64_t>::max();
        for (size_t k = 0; k < order.size(); ++k) {
            const uint32_t x = order[k];
            u += FeeFrac{g.fee[x], g.weight[x]};
            lightest = std::min(lightest, g.weight[x]);
            if (!unit_ends(c, order, k)) continue;
            const i128 gu = s.G(u.fee, u.size);
            if (gu > 0) {
                su.G += gu;
                su.w += u.size;
                su.fee += u.fee;
            }
            if (allow != nullptr) {
                su.fixed = su.fixed && u.size <= WIDE && (gu < 0 ? -gu : gu) * lightest > *allow * u.size;
            }
            u = {};
            lightest = std::numeric_limits<int64_t>::max();
        }
        return su;
    };
    // LP = lambda*C + sum of G_c, and the clusters that may deviate from the LP's set.
    const bool any_relaxed = std::any_of(relaxed.begin(), relaxed.end(), [](uint8_t r) { return r != 0; });
    i128 lp = static_cast<i128>(s.F) * capacity;
    int64_t lp_w = 0, lp_fee = 0;  // the LP's whole units (every cluster's LP set), when none is relaxed
    size_t edge = 0;               // mining[edge]: the first chunk of g <= 0
    if (!any_relaxed) {
        // The units are the chunks, in order of rate: their positive g are a prefix.
        for (; edge < mining.size(); ++edge) {
            const Chunk& ch = t.chunks[mining[edge]];
            const i128 gk = s.G(ch.fee, ch.weight);
            if (gk <= 0) break;
            lp += gk;
            lp_w += ch.weight;
            lp_fee += ch.fee;
        }
    } else {
        for (uint32_t c = 0; c < cl.count; ++c) lp += summarize(c, nullptr).G;
    }
    // A template earning incumbent + 1 or more loses at most this much in total (scaled).
    const i128 allow = lp - static_cast<i128>(incumbent + 1) * s.D;
    res.fee = incumbent;
    if (allow < 0) {
        res.solved = true;
        return res;
    }
    std::vector<uint32_t> cands;  // clusters that may have another candidate than their LP set
    if (!any_relaxed) {
        // Only a chunk within allow / (lightest transaction anywhere) of lambda's rate can make its
        // cluster free (Summary), and those chunks are a window around the edge of the order.
        const int64_t minw = g.n > 0 ? *std::min_element(g.weight.begin(), g.weight.end()) : 1;
        const auto near = [&](size_t i) {
            const Chunk& ch = t.chunks[mining[i]];
            const i128 gk = s.G(ch.fee, ch.weight);
            return ch.weight > WIDE || (gk < 0 ? -gk : gk) * minw <= allow * ch.weight;
        };
        size_t lo = edge, hi = edge;
        while (lo > 0 && near(lo - 1)) --lo;
        while (hi < mining.size() && near(hi)) ++hi;
        for (size_t i = lo; i < hi; ++i) cands.push_back(t.chunks[mining[i]].cluster);
        std::sort(cands.begin(), cands.end());
        cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
    } else {
        cands.resize(cl.count);
        std::iota(cands.begin(), cands.end(), 0u);
    }

    // Reduced-cost fixing: clusters with a single candidate join the base.
    std::vector<Option> opts;
    std::vector<size_t> starts;  // free cluster j's candidates: opts[starts[j] .. starts[j+1])
    std::vector<i128> free_G;
    std::vector<Frame> frames;
    std::vector<uint32_t> where, unit_of;  // where[x - offsets[c]]: x's position in the order
    std::vector<Unit> units;
    // The base: every other cluster's LP set (they are fixed); candidates add their choice below.
    int64_t base_w = lp_w, base_fee = lp_fee;
    for (uint32_t c : cands) {
        const Summary su = summarize(c, &allow);
        if (!any_relaxed) {
            base_w -= su.w;
            base_fee -= su.fee;
        }
        if (su.fixed) {  // every deviation from the LP's set is too dear
            base_w += su.w;
            base_fee += su.fee;
            continue;
        }
        const std::span<const uint32_t> order = OrderOf(cl, lin, relaxed, c);
        unit_of.clear();
        units.clear();
        where.resize(std::max<size_t>(where.size(), order.size()));
        FeeFrac u;
        for (size_t k = 0; k < order.size(); ++k) {
            where[order[k] - cl.offsets[c]] = static_cast<uint32_t>(k);
            unit_of.push_back(static_cast<uint32_t>(units.size()));
            u += FeeFrac{g.fee[order[k]], g.weight[order[k]]};
            if (unit_ends(c, order, k)) {
                units.push_back({s.G(u.fee, u.size), u.size});
                u = {};
            }
        }
        const size_t from = opts.size();
        const uint64_t cluster_budget = std::min(budget, res.nodes + CLUSTER_BUDGET);
        const std::span<const uint32_t> pos = std::span<const uint32_t>(where).subspan(0, order.size());
        if (!EnumerateCluster(g, pos, cl.offsets[c], order, unit_of, units, s, su.G, allow, capacity, frames, opts,
                              res.nodes, cluster_budget)) {
            return res;
        }
        if (opts.size() == from) {
            res.solved = true;  // no closed set of c is cheap enough: nothing beats the incumbent
            return res;
        }
        KeepFront(opts, from);
        if (opts.size() - from == 1) {
            base_w += opts[from].w;
            base_fee += opts[from].fee;
            opts.resize(from);
        } else {
            starts.push_back(from);
            free_G.push_back(su.G);
        }
    }
    if (base_w > capacity) {  // the fixed clusters alone overfill: nothing beats the incumbent
        res.solved = true;
        return res;
    }
    starts.push_back(opts.size());
    res.free_clusters = static_cast<uint32_t>(free_G.size());
    const std::vector<uint32_t> ord = DpOrder(opts, starts, free_G, s);
    const Choice ch =
        ChooseExactly(opts, starts, ord, capacity - base_w, incumbent + 1 - base_fee, budget, res.nodes);
    if (!ch.finished) return res;
    if (ch.best >= 0) res.fee = std::max(res.fee, base_fee + ch.best);
    res.solved = true;
    return res;
}

} // namespace opt
