// The maximum-weight closure per cluster and the dual built from it; see bound_closure.h.
#include "bound_closure.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opt::closure {

namespace {

/** A residual-graph edge of the cut. */
struct Edge {
    uint32_t to;
    i128 cap;
};

/** Max flow from s to t (Edmonds-Karp over adjacency lists of edge ids; e ^ 1 is e's reverse). */
i128 MaxFlow(std::vector<Edge>& edges, const std::vector<std::vector<uint32_t>>& adj, uint32_t s, uint32_t t)
{
    i128 flow = 0;
    std::vector<int64_t> via(adj.size());
    std::vector<uint32_t> queue;
    while (true) {
        std::fill(via.begin(), via.end(), -1);
        via[s] = -2;
        queue.assign(1, s);
        for (size_t q = 0; q < queue.size() && via[t] == -1; ++q) {
            for (uint32_t e : adj[queue[q]]) {
                if (edges[e].cap > 0 && via[edges[e].to] == -1) {
                    via[edges[e].to] = e;
                    queue.push_back(edges[e].to);
                }
            }
        }
        if (via[t] == -1) return flow;
        i128 push = std::numeric_limits<i128>::max();
        for (uint32_t v = t; v != s; v = edges[static_cast<size_t>(via[v]) ^ 1].to) push = std::min(push, edges[static_cast<size_t>(via[v])].cap);
        for (uint32_t v = t; v != s; v = edges[static_cast<size_t>(via[v]) ^ 1].to) {
            edges[static_cast<size_t>(via[v])].cap -= push;
            edges[static_cast<size_t>(via[v]) ^ 1].cap += push;
        }
        flow += push;
    }
}

}  // namespace

i128 MaxClosure(const Graph& g, uint32_t first, std::span<const i128> h, std::span<const uint8_t> eligible,
                std::span<const uint8_t> forced)
{
    const auto m = static_cast<uint32_t>(h.size());
    static thread_local std::vector<uint8_t> given;
    given.assign(m, 0);
    for (uint32_t i = 0; i < m; ++i) {
        const uint32_t x = first + i;
        if (!forced.empty() && forced[x]) {
            given[i] = 1;
        } else if (!eligible.empty() && !eligible[x]) {
            given[i] = 2;
        }
    }
    return MaxClosureLocal(g, first, h, given);
}

i128 MaxClosureLocal(const Graph& g, uint32_t first, std::span<const i128> h, std::span<const uint8_t> given)
{
    const auto m = static_cast<uint32_t>(h.size());
    // state: 0 free, 1 taken (given), 2 never (given, or a parent never)
    std::vector<uint8_t> st(m, 0);
    i128 base = 0, pos = 0;
    bool mixed = false;
    for (uint32_t i = 0; i < m; ++i) {
        if (given[i] == 1) {
            st[i] = 1;
            base += h[i];
            continue;
        }
        bool never = given[i] == 2;
        for (uint32_t q : g.Parents(first + i)) never = never || st[q - first] == 2;
        st[i] = never ? 2 : 0;
        if (never) continue;
        if (h[i] > 0) pos += h[i];
    }
    if (pos == 0) return base;
    // Fast path: the positive free transactions and their free ancestors; if none of those
    // ancestors is negative, that set is the best.
    std::vector<uint8_t> need(m, 0);
    for (uint32_t i = m; i-- > 0;) {
        if (st[i] != 0) continue;
        if (h[i] > 0) need[i] = 1;
        if (!need[i]) continue;
        if (h[i] < 0) mixed = true;
        for (uint32_t q : g.Parents(first + i)) {
            if (st[q - first] == 0) need[q - first] = 1;
        }
    }
    if (!mixed) return base + pos;
    // The cut: source -> positive (h), negative -> sink (-h), child -> parent (infinite).
    const uint32_t s = m, t = m + 1;
    std::vector<Edge> edges;
    std::vector<std::vector<uint32_t>> adj(m + 2);
    const auto add = [&](uint32_t a, uint32_t b, i128 cap) {
        adj[a].push_back(static_cast<uint32_t>(edges.size()));
        edges.push_back({b, cap});
        adj[b].push_back(static_cast<uint32_t>(edges.size()));
        edges.push_back({a, 0});
    };
    const i128 inf = pos + 1;
    for (uint32_t i = 0; i < m; ++i) {
        if (st[i] != 0 || !need[i]) continue;
        if (h[i] > 0) add(s, i, h[i]);
        if (h[i] < 0) add(i, t, -h[i]);
        for (uint32_t q : g.Parents(first + i)) {
            if (st[q - first] == 0) add(i, q - first, inf);
        }
    }
    return base + pos - MaxFlow(edges, adj, s, t);
}

i128 Dual(const Graph& g, const Clusters& cl, std::span<const uint8_t> eligible, std::span<const uint8_t> forced,
          int64_t weight_cap, int64_t sigop_cap, Prices p)
{
    constexpr int64_t D = 1 << 20;
    i128 total = static_cast<i128>(p.F) * weight_cap + static_cast<i128>(p.M) * sigop_cap;
    std::vector<i128> h;
    for (uint32_t c = 0; c < cl.count; ++c) {
        const uint32_t first = cl.offsets[c], m = cl.Size(c);
        h.resize(m);
        for (uint32_t i = 0; i < m; ++i) {
            const uint32_t x = first + i;
            h[i] = static_cast<i128>(g.fee[x]) * D - static_cast<i128>(p.F) * g.weight[x] - static_cast<i128>(p.M) * g.sigops[x];
        }
        total += MaxClosure(g, first, h, eligible, forced);
    }
    return total;
}

Prices MinimizeDual(const Graph& g, const Clusters& cl, std::span<const uint8_t> eligible, std::span<const uint8_t> forced,
                    int64_t weight_cap, int64_t sigop_cap, Prices start)
{
    Prices best = start;
    i128 best_v = Dual(g, cl, eligible, forced, weight_cap, sigop_cap, best);
    const auto eval = [&](Prices p) {
        const i128 v = Dual(g, cl, eligible, forced, weight_cap, sigop_cap, p);
        if (v < best_v) {
            best_v = v;
            best = p;
        }
        return v;
    };
    // Golden section of the convex dual along one multiplier, within [lo, hi].
    const auto line = [&](bool along_f, double lo, double hi) {
        const double phi = (std::sqrt(5.0) - 1) / 2;
        const auto at = [&](double v) {
            Prices p = best;
            (along_f ? p.F : p.M) = std::llround(std::max(0.0, v));
            return eval(p);
        };
        double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
        i128 fa = at(a), fb = at(b);
        for (int it = 0; it < 24 && hi - lo > 1; ++it) {
            if (fa <= fb) {
                hi = b;
                b = a;
                fb = fa;
                a = hi - phi * (hi - lo);
                fa = at(a);
            } else {
                lo = a;
                a = b;
                fa = fb;
                b = lo + phi * (hi - lo);
                fb = at(b);
            }
        }
    };
    for (int round = 0; round < 3; ++round) {
        const auto f = static_cast<double>(best.F), mu = static_cast<double>(best.M);
        line(true, f * 0.8, f * 1.25 + 1);
        if (sigop_cap < std::numeric_limits<int64_t>::max() / 4) line(false, mu * 0.5, mu * 2 + (1 << 20));
    }
    return best;
}

}  // namespace opt::closure
