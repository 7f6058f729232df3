// The exact residual solve; see bound_exact.h for why max(incumbent, its optimum) is a bound.
#include "bound_exact.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace opt {

namespace {

using i128 = __int128;

/** A candidate closed set of one cluster, or a partial choice over several: weight and fee. */
struct Option {
    int64_t w;
    int64_t fee;
};

/** Keep v[from..]'s Pareto front (no other is as light and as rich): by weight ascending, fees
 *  strictly increasing. A dominated choice never helps, as clusters only share the weight. */
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

/** Scaled Lagrangian terms: everything is multiplied by lambda's size D, so g(X) = fee*D - F*w. */
struct Scale {
    int64_t F, D;
    i128 G(int64_t fee, int64_t w) const noexcept { return static_cast<i128>(fee) * D - static_cast<i128>(F) * w; }
};

/** Append cluster c's closed sets X with G_c - g(X) <= allow and w(X) <= capacity to out: a
 *  depth-first search deciding each transaction in topological order (in, or out with its
 *  descendants), pruned when even taking every later transaction of positive g cannot bring the
 *  loss within allow. false when the node budget ran out. */
bool EnumerateCluster(const Graph& g, const Clusters& cl, uint32_t c, const Scale& s, i128 G, i128 allow,
                      int64_t capacity, std::vector<uint8_t>& st, std::vector<i128>& suffix, std::vector<Option>& out,
                      uint64_t& nodes, uint64_t budget)
{
    const std::span<const uint32_t> txs = cl.Txs(c);
    const int m = static_cast<int>(txs.size());
    suffix.assign(static_cast<size_t>(m) + 1, 0);
    for (int i = m - 1; i >= 0; --i) {
        const uint32_t x = txs[static_cast<size_t>(i)];
        suffix[static_cast<size_t>(i)] = suffix[static_cast<size_t>(i) + 1] + std::max<i128>(0, s.G(g.fee[x], g.weight[x]));
    }
    st.assign(static_cast<size_t>(m), 0);  // 0 undecided, 1 in, 2 out
    i128 gsum = 0;
    int64_t w = 0, fee = 0;
    int i = 0;
    while (i >= 0) {
        if (i == m) {
            if (G - gsum <= allow && w <= capacity) out.push_back({w, fee});
            --i;
            continue;
        }
        const size_t k = static_cast<size_t>(i);
        const uint32_t x = txs[k];
        if (st[k] == 0) {
            if (++nodes > budget) return false;
            if (G - (gsum + suffix[k]) > allow || w > capacity) {
                --i;
                continue;
            }
            bool forced_out = false;
            for (uint32_t p : g.Parents(x)) forced_out = forced_out || st[cl.local[p]] == 2;
            if (forced_out) {
                st[k] = 2;
            } else {
                st[k] = 1;
                gsum += s.G(g.fee[x], g.weight[x]);
                w += g.weight[x];
                fee += g.fee[x];
            }
            ++i;
        } else if (st[k] == 1) {
            st[k] = 2;
            gsum -= s.G(g.fee[x], g.weight[x]);
            w -= g.weight[x];
            fee -= g.fee[x];
            ++i;
        } else {
            st[k] = 0;
            --i;
        }
    }
    return true;
}

} // namespace

ResidualSolve SolveResidual(const Graph& g, const Clusters& cl, const ChunkTable& t, std::span<const uint8_t> relaxed,
                            FeeFrac lambda, int64_t capacity, int64_t incumbent, uint64_t budget)
{
    ResidualSolve res;
    OPT_ASSUME(lambda.size > 0 && lambda.fee >= 0);
    const Scale s{lambda.fee, lambda.size};
    // G_c: the cluster's term of the LP at lambda (its hull's best, or its transactions' for a relaxed one).
    std::vector<i128> G(cl.count, 0);
    for (const Chunk& ch : t.chunks) {
        if (!relaxed[ch.cluster]) G[ch.cluster] += std::max<i128>(0, s.G(ch.fee, ch.weight));
    }
    for (uint32_t x = 0; x < g.n; ++x) {
        if (relaxed[cl.cluster_of[x]]) G[cl.cluster_of[x]] += std::max<i128>(0, s.G(g.fee[x], g.weight[x]));
    }
    i128 lp = static_cast<i128>(s.F) * capacity;
    for (i128 v : G) lp += v;
    // A template earning incumbent + 1 or more loses at most this much in total (scaled).
    const i128 allow = lp - static_cast<i128>(incumbent + 1) * s.D;
    res.fee = incumbent;
    if (allow < 0) {
        res.solved = true;
        return res;
    }

    // Reduced-cost fixing: clusters with a single candidate join the base.
    std::vector<Option> opts;
    std::vector<size_t> starts;         // free cluster j's candidates: opts[starts[j] .. starts[j+1])
    std::vector<uint32_t> free_cluster;
    std::vector<uint8_t> st;
    std::vector<i128> suffix;
    int64_t base_w = 0, base_fee = 0;
    i128 g_done = 0;  // sum of G_c over the clusters whose choice is made (base, then the DP's)
    for (uint32_t c = 0; c < cl.count; ++c) {
        const size_t from = opts.size();
        if (!EnumerateCluster(g, cl, c, s, G[c], allow, capacity, st, suffix, opts, res.nodes, budget)) return res;
        if (opts.size() == from) {
            res.solved = true;  // no closed set of c is cheap enough: nothing beats the incumbent
            return res;
        }
        KeepFront(opts, from);
        if (opts.size() - from == 1) {
            base_w += opts[from].w;
            base_fee += opts[from].fee;
            g_done += G[c];
            opts.resize(from);
        } else {
            starts.push_back(from);
            free_cluster.push_back(c);
        }
    }
    starts.push_back(opts.size());
    const size_t nfree = free_cluster.size();
    res.free_clusters = static_cast<uint32_t>(nfree);
    // Order: clusters whose every deviation is dear first, the cheap swaps near lambda last (the
    // Pareto front stays small while the bounds below can still prune).
    std::vector<uint32_t> ord(nfree);
    std::vector<i128> dear(nfree, std::numeric_limits<i128>::max());
    for (uint32_t j = 0; j < nfree; ++j) {
        ord[j] = j;
        i128 least = std::numeric_limits<i128>::max();
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) least = std::min(least, G[free_cluster[j]] - s.G(opts[k].fee, opts[k].w));
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) {
            const i128 l = G[free_cluster[j]] - s.G(opts[k].fee, opts[k].w) - least;
            if (l > 0) dear[j] = std::min(dear[j], l);
        }
    }
    std::stable_sort(ord.begin(), ord.end(), [&](uint32_t a, uint32_t b) { return dear[a] > dear[b]; });

    // Bounds on the clusters still to choose, one per multiplier mu near lambda (Lagrangian: with
    // room R left, they earn at most mu*R + sum of their best fee - mu*w): a choice that overfills
    // is caught by mu > lambda, one that leaves room no cheap swap can fill by mu < lambda.
    struct Mult {
        int64_t F, D;
        std::vector<i128> rest;  // rest[j]: sum over ord[j..] of max over candidates of fee*D - F*w
    };
    std::vector<Mult> mults;
    for (int d : {0, -1, 1, -2, 2, -4, 4, -8, 8, -16, 16, -32, 32, 64}) {
        Mult m{s.F * (64 + d), s.D * 64, std::vector<i128>(nfree + 1, 0)};
        for (size_t j = nfree; j-- > 0;) {
            const uint32_t f = ord[j];
            i128 best = std::numeric_limits<i128>::min();
            for (size_t k = starts[f]; k < starts[f + 1]; ++k) {
                best = std::max(best, static_cast<i128>(opts[k].fee) * m.D - static_cast<i128>(m.F) * opts[k].w);
            }
            m.rest[j] = m.rest[j + 1] + best;
        }
        mults.push_back(std::move(m));
    }
    const int64_t target = incumbent + 1;  // a better template earns at least this

    // Pareto DP over the free clusters, states relative to the base.
    std::vector<Option> states{{0, 0}}, next;
    const auto hopeless = [&](const Option& o, size_t j) {  // after choosing for ord[0 .. j)
        const int64_t room = capacity - base_w - o.w;
        if (room < 0) return true;
        for (const Mult& m : mults) {
            if (static_cast<i128>(base_fee + o.fee) * m.D + static_cast<i128>(m.F) * room + m.rest[j] <
                static_cast<i128>(target) * m.D) {
                return true;
            }
        }
        return false;
    };
    if (hopeless(states[0], 0)) states.clear();
    for (size_t j = 0; j < nfree && !states.empty(); ++j) {
        const uint32_t f = ord[j];
        next.clear();
        for (const Option& a : states) {
            for (size_t k = starts[f]; k < starts[f + 1]; ++k) {
                if (++res.nodes > budget) return res;
                const Option o{a.w + opts[k].w, a.fee + opts[k].fee};
                if (!hopeless(o, j + 1)) next.push_back(o);
            }
        }
        KeepFront(next, 0);
        std::swap(states, next);
    }
    if (!states.empty()) res.fee = std::max(res.fee, base_fee + states.back().fee);
    res.solved = true;
    return res;
}

} // namespace opt
