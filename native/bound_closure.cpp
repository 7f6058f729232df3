// The maximum-weight closure per cluster and the dual built from it; see bound_closure.h.
#include "bound_closure.h"

#include "bound_golden.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opt::closure {

namespace {

/** The largest cluster whose cut is computed (Edmonds-Karp is cubic in it). */
constexpr uint32_t MAX_CUT = 256;

/** A residual-graph edge of the cut. */
struct Edge {
    uint32_t to;
    i128 cap;
};

/** The cut's residual graph: edges in pairs (e ^ 1 is e's reverse), adjacency as CSR of edge ids.
 *  Kept per thread: the dual cuts the same small clusters a hundred times per bound. */
struct Network {
    std::vector<Edge> edges;
    std::vector<uint32_t> from, adj_off, adj;
    std::vector<int64_t> via;
    std::vector<uint32_t> queue;

    void Reset() noexcept
    {
        edges.clear();
        from.clear();
    }
    void Add(uint32_t a, uint32_t b, i128 cap)
    {
        edges.push_back({b, cap});
        from.push_back(a);
        edges.push_back({a, 0});
        from.push_back(b);
    }
    /** The adjacency of nodes 0 .. nodes - 1, after the last Add. */
    void Index(uint32_t nodes)
    {
        adj_off.assign(nodes + 1, 0);
        for (uint32_t a : from) ++adj_off[a + 1];
        for (uint32_t v = 0; v < nodes; ++v) adj_off[v + 1] += adj_off[v];
        adj.resize(edges.size());
        queue.assign(adj_off.begin(), adj_off.end() - 1);  // (the fill cursor per node)
        for (uint32_t e = 0; e < edges.size(); ++e) adj[queue[from[e]]++] = e;
    }
    std::span<const uint32_t> Out(uint32_t v) const noexcept
    {
        return std::span<const uint32_t>(adj).subspan(adj_off[v], adj_off[v + 1] - adj_off[v]);
    }
};

/** Max flow from s to t (Edmonds-Karp). */
i128 MaxFlow(Network& net, uint32_t s, uint32_t t)
{
    i128 flow = 0;
    std::vector<Edge>& edges = net.edges;
    std::vector<int64_t>& via = net.via;
    std::vector<uint32_t>& queue = net.queue;
    via.resize(net.adj_off.size() - 1);
    while (true) {
        std::fill(via.begin(), via.end(), -1);
        via[s] = -2;
        queue.assign(1, s);
        for (size_t q = 0; q < queue.size() && via[t] == -1; ++q) {
            for (uint32_t e : net.Out(queue[q])) {
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
                std::span<const uint8_t> forced, std::vector<uint8_t>* chosen)
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
    return MaxClosureLocal(g, first, h, given, chosen);
}

i128 MaxClosureLocal(const Graph& g, uint32_t first, std::span<const i128> h, std::span<const uint8_t> given,
                     std::vector<uint8_t>* chosen)
{
    const auto m = static_cast<uint32_t>(h.size());
    // state: 0 free, 1 taken (given), 2 never (given, or a parent never)
    static thread_local std::vector<uint8_t> st, need;
    st.assign(m, 0);
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
    if (chosen != nullptr) {
        chosen->assign(m, 0);
        for (uint32_t i = 0; i < m; ++i) (*chosen)[i] = st[i] == 1;
    }
    if (pos == 0) return base;
    // Fast path: the positive free transactions and their free ancestors; if none of those
    // ancestors is negative, that set is the best.
    need.assign(m, 0);
    for (uint32_t i = m; i-- > 0;) {
        if (st[i] != 0) continue;
        if (h[i] > 0) need[i] = 1;
        if (!need[i]) continue;
        if (h[i] < 0) mixed = true;
        for (uint32_t q : g.Parents(first + i)) {
            if (st[q - first] == 0) need[q - first] = 1;
        }
    }
    // Past MAX_CUT transactions (a hostile cluster) the cut is skipped: the positive ones with their
    // ancestors are a closed set and their positive sum an upper bound, all the callers need.
    if (!mixed || m > MAX_CUT) {
        if (chosen != nullptr) {
            for (uint32_t i = 0; i < m; ++i) (*chosen)[i] = (*chosen)[i] || need[i];
        }
        return base + pos;
    }
    // The cut: source -> positive (h), negative -> sink (-h), child -> parent (infinite).
    const uint32_t s = m, t = m + 1;
    static thread_local Network net;
    net.Reset();
    const i128 inf = pos + 1;
    for (uint32_t i = 0; i < m; ++i) {
        if (st[i] != 0 || !need[i]) continue;
        if (h[i] > 0) net.Add(s, i, h[i]);
        if (h[i] < 0) net.Add(i, t, -h[i]);
        for (uint32_t q : g.Parents(first + i)) {
            if (st[q - first] == 0) net.Add(i, q - first, inf);
        }
    }
    net.Index(m + 2);
    const i128 flow = MaxFlow(net, s, t);
    if (chosen != nullptr) {  // the closure: what the source still reaches in the residual graph
        const std::vector<Edge>& edges = net.edges;
        std::vector<uint32_t> queue{s};
        std::vector<uint8_t> seen(m + 2, 0);
        seen[s] = 1;
        for (size_t q = 0; q < queue.size(); ++q) {
            for (uint32_t e : net.Out(queue[q])) {
                if (edges[e].cap > 0 && !seen[edges[e].to]) {
                    seen[edges[e].to] = 1;
                    queue.push_back(edges[e].to);
                }
            }
        }
        for (uint32_t i = 0; i < m; ++i) (*chosen)[i] = (*chosen)[i] || (seen[i] && st[i] == 0);
    }
    return base + pos - flow;
}

namespace {
constexpr int64_t SCALE_D = 1 << 20;
}  // namespace

Dual::Dual(const Graph& g, const Clusters& cl, const ChunkTable& t, std::span<const uint8_t> relaxed, std::span<const uint8_t> root_eligible,
           std::span<const uint8_t> eligible, std::span<const uint8_t> forced, int64_t weight_cap, int64_t sigop_cap)
    : m_g(g), m_cl(cl), m_t(t), m_eligible(eligible), m_forced(forced), m_wcap(weight_cap), m_scap(sigop_cap)
{
    std::vector<uint8_t> plain(cl.count, 1);
    for (uint32_t c = 0; c < cl.count; ++c) {
        bool p = relaxed[c] == 0;
        for (uint32_t x = cl.offsets[c]; x < cl.offsets[c + 1] && p; ++x) {
            p = g.sigops[x] == 0 && (forced.empty() || !forced[x]) && (eligible.empty() ? 1 : eligible[x]) == (root_eligible.empty() ? 1 : root_eligible[x]);
        }
        plain[c] = p;
        if (!p) m_slow.push_back(c);
    }
    m_off.assign(1, 0);
    m_par_off.assign(1, 0);
    for (uint32_t c : m_slow) {
        const uint32_t first = cl.offsets[c], m = cl.Size(c);
        for (uint32_t i = 0; i < m; ++i) {
            const uint32_t x = first + i;
            const uint8_t given = !forced.empty() && forced[x] ? 1 : (!eligible.empty() && !eligible[x] ? 2 : 0);
            bool never = given == 2;
            for (uint32_t q : g.Parents(x)) {
                m_par.push_back(q - first);
                never = never || m_state[m_off.back() + q - first] == 2;
            }
            m_par_off.push_back(static_cast<uint32_t>(m_par.size()));
            m_xfee.push_back(g.fee[x]);
            m_xw.push_back(g.weight[x]);
            m_xs.push_back(g.sigops[x]);
            m_given.push_back(given);
            m_state.push_back(given == 1 ? 1 : (never ? 2 : 0));
        }
        m_off.push_back(m_off.back() + m);
    }
    std::vector<uint32_t> ks;
    for (uint32_t k = 0; k < t.Count(); ++k) {
        const Chunk& ch = t.chunks[k];
        if (plain[ch.cluster] && (eligible.empty() || eligible[t.Txs(k)[0]])) ks.push_back(k);
    }
    std::sort(ks.begin(), ks.end(), [&](uint32_t a, uint32_t b) {
        return static_cast<i128>(t.chunks[a].fee) * t.chunks[b].weight > static_cast<i128>(t.chunks[b].fee) * t.chunks[a].weight;
    });
    m_prefix_fee.assign(1, 0);
    m_prefix_w.assign(1, 0);
    for (uint32_t k : ks) {
        m_chunk.push_back(k);
        m_fee.push_back(t.chunks[k].fee);
        m_w.push_back(t.chunks[k].weight);
        m_prefix_fee.push_back(m_prefix_fee.back() + t.chunks[k].fee);
        m_prefix_w.push_back(m_prefix_w.back() + t.chunks[k].weight);
    }
}

i128 Dual::operator()(Prices p) const
{
    i128 total = static_cast<i128>(p.F) * m_wcap + static_cast<i128>(p.M) * m_scap;
    // The plain chunks of h > 0: a prefix of the list by rate.
    const auto first_out = std::partition_point(m_fee.begin(), m_fee.end(), [&](const int64_t& f) {
        const size_t i = static_cast<size_t>(&f - m_fee.data());
        return static_cast<i128>(f) * SCALE_D > static_cast<i128>(p.F) * m_w[i];
    });
    const auto k = static_cast<size_t>(first_out - m_fee.begin());
    total += m_prefix_fee[k] * SCALE_D - static_cast<i128>(p.F) * m_prefix_w[k];
    for (size_t j = 0; j < m_slow.size(); ++j) total += SlowTerm(j, p);
    return total;
}

i128 Dual::SlowTerm(size_t j, Prices p) const
{
    const uint32_t a = m_off[j], m = m_off[j + 1] - a;
    const auto price = [&](uint32_t x) {
        return static_cast<i128>(m_xfee[x]) * SCALE_D - static_cast<i128>(p.F) * m_xw[x] - static_cast<i128>(p.M) * m_xs[x];
    };
    if (m == 1) {  // (most: a lone sigop-carrying transaction)
        const i128 hv = price(a);
        return m_state[a] == 1 || (m_state[a] == 0 && hv > 0) ? hv : 0;
    }
    // MaxClosureLocal's steps with the states known: the sum of the positive free transactions,
    // and the cut only when a negative one is an ancestor of a positive one.
    static thread_local std::vector<i128> h;
    static thread_local std::vector<uint8_t> need;
    h.resize(m);
    i128 base = 0, pos = 0;
    for (uint32_t i = 0; i < m; ++i) {
        h[i] = price(a + i);
        if (m_state[a + i] == 1) {
            base += h[i];
        } else if (m_state[a + i] == 0 && h[i] > 0) {
            pos += h[i];
        }
    }
    if (pos == 0) return base;
    need.assign(m, 0);
    bool mixed = false;
    for (uint32_t i = m; i-- > 0;) {
        if (m_state[a + i] != 0) continue;
        if (h[i] > 0) need[i] = 1;
        if (!need[i]) continue;
        if (h[i] < 0) mixed = true;
        for (uint32_t k = m_par_off[a + i]; k < m_par_off[a + i + 1]; ++k) {
            if (m_state[a + m_par[k]] == 0) need[m_par[k]] = 1;
        }
    }
    if (!mixed || m > MAX_CUT) return base + pos;
    return MaxClosureLocal(m_g, m_cl.offsets[m_slow[j]], h, std::span<const uint8_t>(m_given).subspan(a, m));
}

void Dual::Priced(uint32_t c, Prices p, std::vector<i128>& h) const
{
    const uint32_t first = m_cl.offsets[c], m = m_cl.Size(c);
    h.resize(m);
    for (uint32_t i = 0; i < m; ++i) {
        const uint32_t x = first + i;
        h[i] = static_cast<i128>(m_g.fee[x]) * SCALE_D - static_cast<i128>(p.F) * m_g.weight[x] - static_cast<i128>(p.M) * m_g.sigops[x];
    }
}

std::vector<uint32_t> Dual::Argmax(Prices p) const
{
    std::vector<uint32_t> out;
    for (size_t i = 0; i < m_fee.size(); ++i) {
        if (static_cast<i128>(m_fee[i]) * SCALE_D <= static_cast<i128>(p.F) * m_w[i]) break;
        for (uint32_t x : m_t.Txs(m_chunk[i])) out.push_back(x);
    }
    std::vector<i128> h;
    std::vector<uint8_t> chosen;
    for (uint32_t c : m_slow) {
        const uint32_t first = m_cl.offsets[c], m = m_cl.Size(c);
        Priced(c, p, h);
        MaxClosure(m_g, first, h, m_eligible, m_forced, &chosen);
        for (uint32_t i = 0; i < m; ++i) {
            if (chosen[i]) out.push_back(first + i);
        }
    }
    return out;
}

Prices Dual::Minimize(Prices start) const
{
    Prices best = start;
    i128 best_v = (*this)(best);
    const auto eval = [&](Prices p) {
        const i128 v = (*this)(p);
        if (v < best_v) {
            best_v = v;
            best = p;
        }
        return v;
    };
    // Golden section of the convex dual along one multiplier, within [lo, hi] (eval keeps the best).
    const auto line = [&](bool along_f, double lo, double hi) {
        const auto at = [&](double v) {
            Prices p = best;
            (along_f ? p.F : p.M) = std::llround(std::max(0.0, v));
            return eval(p);
        };
        GoldenSection(lo, hi, 22, 1.0, at, [](i128 v) { return v; });
    };
    const bool sig = m_scap < std::numeric_limits<int64_t>::max() / 4;
    for (int round = 0; round < 2; ++round) {
        const auto f = static_cast<double>(best.F), mu = static_cast<double>(best.M);
        line(true, f * 0.8, f * 1.25 + 1);
        if (sig) line(false, mu * 0.5, mu * 2 + SCALE_D);
    }
    return best;
}

}  // namespace opt::closure
