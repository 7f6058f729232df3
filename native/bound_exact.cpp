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

/** Free clusters past which the choice is not attempted: the DP's fronts would outgrow any budget
 *  (a gap of thousands of sat around a binding sigop limit), so the work is saved for the caller. */
constexpr size_t MAX_FREE = 2'000;

/** Units heavier than this are not used to prune or fix (valid, just looser): their products
 *  with the scaled terms could leave the 128-bit range. */
constexpr int64_t WIDE = int64_t{1} << 32;

/** One position of a cluster's search order (topological, units contiguous). */
struct Pos {
    uint32_t tx;
    uint32_t unit;
    bool eligible;
    bool phi_pos;        // phi_x > 0: the LP's set takes x
    bool last;           // the last position of its unit
    i128 h;              // fee*D - F*w - M*s, exact
    i128 lb_in, lb_out;  // the loss taking (resp. leaving) x surely causes in its unit, floored
};

/** A cluster prepared for the search: positions, the units' H (rounded up) and their sum. slack:
 *  per unit, how far H lies below the sum of its positive phi (when a unit's H is its exact best
 *  closed part, tighter than that sum); the sure losses, made against that sum, shrink by it. */
struct View {
    std::vector<Pos> pos;
    std::vector<i128> unit_H, slack;
    i128 H{0};
    bool fixable{true};  // false: a unit's H is its exact best part, so the LP's set is not phi's
};

/** Search nodes for one unit's exact best closed part (past it, the sum of phi stands). */
constexpr uint64_t UNIT_BUDGET = 512;

/** The best h of a part of the unit order[k..e) closed under its own parent links (the rest of a
 *  closed set's parents are in earlier units): a depth-first search with the sum of the positive h
 *  still to decide as its bound. false past UNIT_BUDGET nodes. */
bool BestPart(const Graph& g, std::span<const uint32_t> order, size_t k, size_t e, std::span<const i128> h, uint32_t first,
              std::vector<int32_t>& loc, i128& best)
{
    const size_t m = e - k;
    if (m > 64) return false;  // (the search below would not finish anyway)
    std::vector<i128> rest(m + 1, 0);
    for (size_t j = m; j-- > 0;) rest[j] = rest[j + 1] + (h[j] > 0 ? h[j] : 0);
    std::vector<uint8_t> in(m, 0), st(m + 1, 0);
    std::vector<i128> acc(m + 1, 0);
    for (size_t j = 0; j < m; ++j) loc[order[k + j] - first] = static_cast<int32_t>(j);
    const auto local = [&](uint32_t q) -> std::ptrdiff_t { return loc[q - first]; };
    struct Reset {  // leave loc all -1 for the next unit
        std::vector<int32_t>& loc;
        std::span<const uint32_t> txs;
        uint32_t first;
        ~Reset()
        {
            for (uint32_t x : txs) loc[x - first] = -1;
        }
    } reset{loc, order.subspan(k, m), first};
    best = 0;
    uint64_t nodes = 0;
    std::ptrdiff_t i = 0;
    while (i >= 0) {
        const auto j = static_cast<size_t>(i);
        if (j == m || acc[j] + rest[j] <= best) {
            best = std::max(best, acc[j]);
            --i;
            continue;
        }
        if (st[j] == 2) {
            st[j] = 0;
            --i;
            continue;
        }
        if (++nodes > UNIT_BUDGET) return false;
        if (st[j] == 0) {
            bool ok = true;
            for (uint32_t q : g.Parents(order[k + j])) {
                const std::ptrdiff_t l = local(q);
                ok = ok && (l < 0 || in[static_cast<size_t>(l)]);
            }
            st[j] = ok ? 1 : 2;
        } else {
            st[j] = 2;
        }
        in[j] = st[j] == 1;
        acc[j + 1] = acc[j] + (in[j] ? h[j] : 0);
        st[j + 1] = 0;
        ++i;
    }
    return true;
}

struct Multipliers {
    int64_t F, D, M;
    i128 h(int64_t fee, int64_t w, int64_t s) const noexcept
    {
        return static_cast<i128>(fee) * D - static_cast<i128>(F) * w - static_cast<i128>(M) * s;
    }
};

/** Cluster c's order: a proven linearization (units: its chunks of t), else any topological order
 *  (units: single transactions). */
void BuildView(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t, const ResidualProblem& pb,
               const Multipliers& mu, uint32_t c, View& v)
{
    const bool relaxed = pb.relaxed[c] != 0;
    const std::span<const uint32_t> order =
        relaxed ? cl.Txs(c) : std::span<const uint32_t>(lin.lin).subspan(cl.offsets[c], cl.Size(c));
    v.pos.clear();
    v.unit_H.clear();
    v.slack.clear();
    v.H = 0;
    v.fixable = true;
    std::vector<i128> hs;
    static thread_local std::vector<int32_t> loc;  // a unit's positions by cluster-local index, else -1
    size_t k = 0;
    while (k < order.size()) {
        size_t e = k + 1;
        if (!relaxed) {
            while (e < order.size() && t.chunk_of[order[e]] == t.chunk_of[order[k]]) ++e;
        }
        int64_t fu = 0, wu = 0, su = 0;
        for (size_t j = k; j < e; ++j) {
            fu += g.fee[order[j]];
            wu += g.weight[order[j]];
            su += g.sigops[order[j]];
        }
        const auto unit = static_cast<uint32_t>(v.unit_H.size());
        const bool eligible = pb.eligible.empty() || pb.eligible[order[k]] != 0;  // per chunk of t
        const bool wide = wu > WIDE;
        const bool uniform = mu.M == 0 || su == 0;  // every phi has the unit's sign: H = max(0, h(u))
        const i128 hu = mu.h(fu, wu, su);
        i128 H = 0;
        for (size_t j = k; j < e; ++j) {
            const uint32_t x = order[j];
            const i128 phi = (static_cast<i128>(fu) * mu.D - static_cast<i128>(mu.F) * wu) * g.weight[x] -
                             static_cast<i128>(mu.M) * g.sigops[x] * wu;  // phi_x * w(u)
            Pos p{x, unit, eligible, phi > 0, j + 1 == e, mu.h(g.fee[x], g.weight[x], g.sigops[x]), 0, 0};
            if (eligible && !wide) {
                p.lb_out = phi > 0 ? phi / wu : 0;
                p.lb_in = phi < 0 ? -phi / wu : 0;
            }
            if (eligible && !uniform && phi > 0) H += (phi + wu - 1) / wu;
            v.pos.push_back(p);
        }
        if (eligible && uniform) H = hu > 0 ? hu : 0;
        i128 slack = 0;
        if (eligible && !uniform && e - k > 1 && H > 0) {
            // Sigops priced inside a chunk: its exact best closed part may be well below the sum.
            hs.clear();
            for (size_t j = k; j < e; ++j) hs.push_back(v.pos[v.pos.size() - (e - j)].h);
            i128 exact = 0;
            if (loc.size() < order.size()) loc.assign(order.size(), -1);
            if (BestPart(g, order, k, e, hs, cl.offsets[c], loc, exact) && exact < H) {
                slack = H - exact;
                H = exact;
                v.fixable = false;
            }
        }
        v.unit_H.push_back(H);
        v.slack.push_back(slack);
        v.H += H;
        k = e;
    }
}

/** The LP's set of a cluster (its eligible transactions of phi > 0), its totals, its loss, whether
 *  it is closed, and whether every other closed set loses more than allow (then it is the only
 *  candidate). */
struct Summary {
    int64_t w{0}, s{0}, n{0}, fee{0};
    i128 loss{0};
    bool closed{true};
    bool fixed{true};
};

Summary Summarize(const Graph& g, const View& v, uint32_t first, std::span<const uint32_t> where, i128 allow)
{
    Summary su;
    i128 taken = 0;
    for (const Pos& p : v.pos) {
        if (!p.eligible) continue;
        if (p.phi_pos) {
            su.w += g.weight[p.tx];
            su.s += g.sigops[p.tx];
            su.n += 1;
            su.fee += g.fee[p.tx];
            taken += p.h;
            for (uint32_t q : g.Parents(p.tx)) {
                const Pos& pp = v.pos[where[q - first]];
                su.closed = su.closed && pp.eligible && pp.phi_pos;
            }
        }
        const i128 dev = p.phi_pos ? p.lb_out : p.lb_in;  // 0 for a wide unit
        su.fixed = su.fixed && dev > allow;
    }
    su.loss = v.H - taken;
    su.fixed = su.fixed && su.closed && su.loss <= allow && v.fixable;
    return su;
}

struct Caps {
    int64_t w, s, n;
    bool sig_model, count_model;
};

/** The search's state before deciding position k. */
struct Frame {
    i128 loss{0}, open_lb{0}, unit_h{0};  // loss of finished units; sure loss and h so far in the open unit
    int64_t w{0}, s{0}, cnt{0}, fee{0};
    uint8_t st{0};  // decision at k: 0 none yet, 1 in, 2 out
};

/** Append the cluster's closed sets X with H - h(X) <= allow within the caps to out (or, with
 *  want, find one with want's totals into got): a depth-first search deciding each transaction in
 *  order (in, or out; out when a parent is out or it is not eligible), pruned on the finished
 *  units' losses plus the open unit's sure loss. false when the node budget ran out. */
bool Enumerate(const Graph& g, const View& v, uint32_t first, std::span<const uint32_t> where, i128 allow, const Caps& caps,
               std::vector<Frame>& fr, std::vector<Option>& out, uint64_t& nodes, uint64_t budget, const Option* want = nullptr,
               std::vector<uint32_t>* got = nullptr)
{
    const size_t m = v.pos.size();
    fr.assign(m + 1, Frame{});
    std::ptrdiff_t i = 0;
    while (i >= 0) {
        const auto k = static_cast<size_t>(i);
        Frame& f = fr[k];
        if (k == m) {
            if (f.loss <= allow) {
                const Option o{f.w, f.fee, caps.sig_model ? f.s : 0, caps.count_model ? f.cnt : 0};
                if (want == nullptr) {
                    out.push_back(o);
                } else if (o.w == want->w && o.fee == want->fee && o.s == want->s && o.n == want->n) {
                    for (size_t j = 0; j < m; ++j) {
                        if (fr[j].st == 1) got->push_back(v.pos[j].tx);
                    }
                    return true;
                }
            }
            --i;
            continue;
        }
        const Pos& p = v.pos[k];
        if (f.st == 2) {  // both branches done
            f.st = 0;
            --i;
            continue;
        }
        if (f.st == 0) {
            if (++nodes > budget) return false;
            bool forced_out = !p.eligible;
            for (uint32_t q : g.Parents(p.tx)) forced_out = forced_out || fr[where[q - first]].st == 2;
            f.st = forced_out ? 2 : 1;
        } else {
            f.st = 2;
        }
        Frame nx = f;
        nx.st = 0;
        if (f.st == 1) {
            nx.unit_h += p.h;
            nx.open_lb += p.lb_in;
            nx.w += g.weight[p.tx];
            nx.s += g.sigops[p.tx];
            nx.cnt += 1;
            nx.fee += g.fee[p.tx];
        } else {
            nx.open_lb += p.lb_out;
        }
        if (p.last) {
            nx.loss += v.unit_H[p.unit] - nx.unit_h;
            nx.unit_h = 0;
            nx.open_lb = 0;
        }
        const i128 sure = p.last || nx.open_lb <= v.slack[p.unit] ? 0 : nx.open_lb - v.slack[p.unit];
        if (nx.w <= caps.w && nx.s <= caps.s && nx.cnt <= caps.n && nx.loss + sure <= allow) {
            fr[k + 1] = nx;
            ++i;
        }
    }
    return true;
}

/** Order for the DP: the clusters with the widest swing of weight first (within a factor 8), then
 *  those whose cheapest deviation is dearest. Once the heavy near-lambda choices are made, the LP
 *  of the rest is nearly integral and prunes hard; the other way round, the fronts stay wide. */
std::vector<uint32_t> DpOrder(const std::vector<Option>& opts, const std::vector<size_t>& starts, const std::vector<i128>& H,
                              const Multipliers& mu)
{
    const size_t nfree = starts.size() - 1;
    std::vector<uint32_t> ord(nfree);
    std::vector<i128> dear(nfree, std::numeric_limits<i128>::max());
    std::vector<int> swing(nfree);
    for (uint32_t j = 0; j < nfree; ++j) {
        ord[j] = j;
        i128 least = std::numeric_limits<i128>::max();
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) least = std::min(least, H[j] - mu.h(opts[k].fee, opts[k].w, opts[k].s));
        int64_t lo = std::numeric_limits<int64_t>::max(), hi = 0;
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) {
            const i128 l = H[j] - mu.h(opts[k].fee, opts[k].w, opts[k].s) - least;
            if (l > 0) dear[j] = std::min(dear[j], l);
            lo = std::min(lo, opts[k].w);
            hi = std::max(hi, opts[k].w);
        }
        swing[j] = std::bit_width(static_cast<uint64_t>(hi - lo)) / 3;
    }
    std::stable_sort(ord.begin(), ord.end(), [&](uint32_t a, uint32_t b) {
        return swing[a] != swing[b] ? swing[a] > swing[b] : dear[a] > dear[b];
    });
    return ord;
}

/** A cluster whose choice was made by enumeration (one candidate left, or the DP's pick). */
struct Decided {
    uint32_t cluster;
    Option opt;
};

}  // namespace

ResidualSolve SolveResidual(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> mining, const ResidualProblem& pb, int64_t incumbent, uint64_t budget)
{
    ResidualSolve res;
    const Multipliers mu{pb.F, pb.D, pb.M};
    const Caps caps{pb.capacity, pb.sigop_cap, pb.count_cap, pb.sigop_cap != NO_LIMIT, pb.count_cap != NO_LIMIT};
    const bool any_relaxed = std::any_of(pb.relaxed.begin(), pb.relaxed.end(), [](uint8_t r) { return r != 0; });
    const auto eligible = [&](uint32_t x) { return pb.eligible.empty() || pb.eligible[x] != 0; };
    // With M = 0 and every cluster proven, the units are the chunks and the LP's sets are the
    // chunks of h > 0: a prefix of the mining order (ineligible chunks, below the min rate, come last).
    const bool window = mu.M == 0 && !any_relaxed;

    // LP = lambda*C_w + mu*C_s + sum of H_c, and the LP's sets' totals.
    i128 lp = static_cast<i128>(mu.F) * pb.capacity + (mu.M > 0 ? static_cast<i128>(mu.M) * pb.sigop_cap : 0);
    int64_t lp_w = 0, lp_s = 0, lp_n = 0, lp_fee = 0;
    size_t edge = 0;  // window: mining[edge] is the first chunk of h <= 0 or not eligible
    View view;
    std::vector<uint32_t> where;
    const auto prepare = [&](uint32_t c) {
        BuildView(g, cl, lin, t, pb, mu, c, view);
        where.resize(std::max<size_t>(where.size(), view.pos.size()));
        for (size_t k = 0; k < view.pos.size(); ++k) where[view.pos[k].tx - cl.offsets[c]] = static_cast<uint32_t>(k);
        return std::span<const uint32_t>(where).subspan(0, view.pos.size());
    };
    if (window) {
        for (; edge < mining.size(); ++edge) {
            const Chunk& ch = t.chunks[mining[edge]];
            const i128 hk = mu.h(ch.fee, ch.weight, 0);
            if (hk <= 0 || !eligible(t.Txs(mining[edge])[0])) break;
            lp += hk;
            lp_w += ch.weight;
            lp_s += ch.sigops;
            lp_n += t.TxCount(mining[edge]);
            lp_fee += ch.fee;
        }
    } else {
        for (uint32_t c = 0; c < cl.count; ++c) {
            BuildView(g, cl, lin, t, pb, mu, c, view);
            lp += view.H;
        }
    }
    res.lp = static_cast<int64_t>(std::min<i128>(lp / mu.D, std::numeric_limits<int64_t>::max()));
    // A template earning incumbent + 1 or more loses at most this much in total (scaled).
    const i128 allow = lp - static_cast<i128>(incumbent + 1) * mu.D;
    res.fee = incumbent;
    if (allow < 0) {
        res.solved = true;
        return res;
    }
    std::vector<uint32_t> cands;  // clusters that may have another candidate than their LP set
    if (window) {
        // Only a chunk within allow / (lightest transaction anywhere) of lambda's rate can make its
        // cluster free (Summarize), and those chunks are a window around the edge of the order.
        const int64_t minw = g.n > 0 ? *std::min_element(g.weight.begin(), g.weight.end()) : 1;
        const auto near = [&](size_t i) {
            const Chunk& ch = t.chunks[mining[i]];
            const i128 hk = mu.h(ch.fee, ch.weight, 0);
            return ch.weight > WIDE || (hk < 0 ? -hk : hk) * minw <= allow * ch.weight;
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
    std::vector<i128> free_H;
    std::vector<uint32_t> free_c;
    std::vector<Decided> decided;
    std::vector<uint8_t> deviates(cl.count, 0);  // chosen by enumeration, not the LP's set
    std::vector<Frame> frames;
    int64_t base_w = lp_w, base_s = lp_s, base_n = lp_n, base_fee = lp_fee;
    for (uint32_t c : cands) {
        const std::span<const uint32_t> pos = prepare(c);
        const Summary su = Summarize(g, view, cl.offsets[c], pos, allow);
        if (window) {  // the LP's set is in the base already
            base_w -= su.w;
            base_s -= su.s;
            base_n -= su.n;
            base_fee -= su.fee;
        }
        if (su.fixed) {  // every deviation from the LP's set is too dear
            base_w += su.w;
            base_s += su.s;
            base_n += su.n;
            base_fee += su.fee;
            continue;
        }
        const size_t from = opts.size();
        const uint64_t cluster_budget = std::min(budget, res.nodes + CLUSTER_BUDGET);
        if (!Enumerate(g, view, cl.offsets[c], pos, allow, caps, frames, opts, res.nodes, cluster_budget)) return res;
        if (opts.size() == from) {
            res.solved = true;  // no closed set of c is cheap enough: nothing beats the incumbent
            return res;
        }
        KeepFront(opts, from, &res.nodes);
        deviates[c] = 1;
        if (opts.size() - from == 1) {
            base_w += opts[from].w;
            base_s += opts[from].s;
            base_n += opts[from].n;
            base_fee += opts[from].fee;
            decided.push_back({c, opts[from]});
            opts.resize(from);
        } else {
            starts.push_back(from);
            free_H.push_back(view.H);
            free_c.push_back(c);
            if (free_c.size() > MAX_FREE) {
                res.free_clusters = static_cast<uint32_t>(free_c.size());
                return res;
            }
        }
        if (res.nodes > budget) return res;
    }
    if (!caps.sig_model) base_s = 0;
    if (!caps.count_model) base_n = 0;
    if (base_w > pb.capacity || base_s > pb.sigop_cap || base_n > pb.count_cap) {
        res.solved = true;  // the fixed clusters alone overfill: nothing beats the incumbent
        return res;
    }
    starts.push_back(opts.size());
    res.free_clusters = static_cast<uint32_t>(free_H.size());
    const std::vector<uint32_t> ord = DpOrder(opts, starts, free_H, mu);
    mckp::Lagrangian lag{mu.F, mu.D, mu.M, {}};
    lag.hbest.resize(free_H.size());
    for (size_t j = 0; j + 1 < starts.size(); ++j) {
        i128 best = std::numeric_limits<i128>::min();
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) best = std::max(best, mu.h(opts[k].fee, opts[k].w, opts[k].s));
        lag.hbest[j] = best;
    }
    const mckp::Room room{pb.capacity - base_w, caps.sig_model ? pb.sigop_cap - base_s : NO_LIMIT,
                          caps.count_model ? pb.count_cap - base_n : NO_LIMIT};
    const Choice ch = ChooseExactly(opts, starts, ord, room, incumbent + 1 - base_fee, lag, budget, res.nodes);
    if (!ch.finished) return res;
    res.solved = true;
    if (ch.best < 0) return res;
    res.fee = std::max(res.fee, base_fee + ch.best);
    for (size_t j = 0; j < ord.size(); ++j) decided.push_back({free_c[ord[j]], opts[ch.picks[j]]});

    // The template earning it: the enumerated choices, and every other cluster's LP set.
    std::vector<uint32_t> txs;
    for (const Decided& d : decided) {
        const std::span<const uint32_t> pos = prepare(d.cluster);
        std::vector<Option> unused;
        uint64_t spent = 0;
        const size_t before = txs.size();
        Enumerate(g, view, cl.offsets[d.cluster], pos, allow, caps, frames, unused, spent, NO_LIMIT, &d.opt, &txs);
        if (txs.size() == before && d.opt.w != 0) return res;  // not found again (cannot happen): no template
    }
    if (window) {
        for (size_t i = 0; i < edge; ++i) {
            if (deviates[t.chunks[mining[i]].cluster]) continue;
            for (uint32_t x : t.Txs(mining[i])) txs.push_back(x);
        }
    } else {
        for (uint32_t c = 0; c < cl.count; ++c) {
            if (deviates[c]) continue;
            BuildView(g, cl, lin, t, pb, mu, c, view);
            for (const Pos& p : view.pos) {
                if (p.eligible && p.phi_pos) txs.push_back(p.tx);
            }
        }
    }
    // Check it before handing it out: closed, within every limit, earning the optimum.
    std::vector<uint8_t> in(g.n, 0);
    for (uint32_t x : txs) in[x] = 1;
    int64_t w = 0, s = 0, fee = 0;
    for (uint32_t x : txs) {
        for (uint32_t q : g.Parents(x)) {
            if (!in[q]) return res;
        }
        w += g.weight[x];
        s += g.sigops[x];
        fee += g.fee[x];
    }
    if (fee != res.fee || w > pb.capacity || (caps.sig_model && s > pb.sigop_cap) ||
        (caps.count_model && static_cast<int64_t>(txs.size()) > pb.count_cap)) {
        return res;
    }
    res.txs = std::move(txs);
    return res;
}

}  // namespace opt
