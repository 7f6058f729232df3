// A cluster's view, summary and enumeration for the exact residual solve; see bound_exact_view.h.
#include "bound_exact_view.h"

#include "bound_closure.h"

#include <algorithm>
#include <limits>

namespace opt::residual {

namespace {

/** The largest cluster searched with the exact completion bound (a recursion as deep as the cluster). */
constexpr size_t EXACT_SEARCH_MAX = 256;

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

}  // namespace

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
    v.cslack = 0;
    v.fixable = true;
    bool exact_units = true;  // every unit's H is its exact best part, so their sum is the cluster's
    static thread_local std::vector<i128> tls_h;
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
        // A branch of the search (bound_branch.h) may force transactions in: every closed set of
        // the branch takes them, so H counts their phi whatever its sign (ceil: still a bound).
        bool any_forced = false;
        for (size_t j = k; j < e && !pb.forced.empty(); ++j) any_forced = any_forced || pb.forced[order[j]] != 0;
        const bool uniform = (mu.M == 0 || su == 0) && !any_forced;  // every phi has the unit's sign: H = max(0, h(u))
        const i128 hu = mu.h(fu, wu, su);
        i128 H = 0;
        for (size_t j = k; j < e; ++j) {
            const uint32_t x = order[j];
            const i128 phi = (static_cast<i128>(fu) * mu.D - static_cast<i128>(mu.F) * wu) * g.weight[x] -
                             static_cast<i128>(mu.M) * g.sigops[x] * wu;  // phi_x * w(u)
            const bool forced = any_forced && pb.forced[x] != 0;
            Pos p{x, unit, eligible, phi > 0 || forced, j + 1 == e, mu.h(g.fee[x], g.weight[x], g.sigops[x]), 0, 0, forced};
            if (eligible && !wide && !forced) {
                p.lb_out = phi > 0 ? phi / wu : 0;
                p.lb_in = phi < 0 ? -phi / wu : 0;
            }
            if (eligible && !uniform && (phi > 0 || forced)) H += phi > 0 ? (phi + wu - 1) / wu : phi / wu;  // (/ truncates: ceil)
            v.pos.push_back(p);
        }
        if (eligible && uniform) H = hu > 0 ? hu : 0;
        i128 slack = 0;
        if (eligible && !uniform && !any_forced && e - k > 1 && H > 0) {
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
        exact_units = exact_units && uniform && !relaxed;
        k = e;
    }
    // The cluster's exact best closed set (bound_closure.h) where the units' sum may lie above it:
    // sigops priced inside a chunk, a relaxed cluster, or a branch's forced transactions. The gap
    // is the cluster's slack: its losses counted unit by unit exceed the exact ones by it.
    if (exact_units && pb.forced.empty()) return;
    std::vector<i128>& hl = tls_h;
    hl.resize(order.size());
    for (const Pos& p : v.pos) hl[p.tx - cl.offsets[c]] = p.h;
    const i128 best = closure::MaxClosure(g, cl.offsets[c], hl, pb.eligible, pb.forced);
    if (best < v.H) {
        v.cslack = v.H - best;
        v.fixable = false;
    }
}

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
        const i128 dev = p.phi_pos ? p.lb_out : p.lb_in;   // 0 for a wide unit
        su.fixed = su.fixed && (p.forced || dev > allow);  // a forced transaction cannot deviate
    }
    su.loss = v.H - v.cslack - taken;
    su.fixed = su.fixed && su.closed && su.loss <= allow && v.fixable;
    return su;
}

namespace {

/** Enumerate for a cluster whose units' bound lies above its exact best (cslack > 0): the same
 *  search, each node pruned on the exact loss of its best completion (a maximum closure of the
 *  undecided transactions given the decisions, bound_closure.h), so no branch dies unseen. */
bool EnumerateExact(const Graph& g, const View& v, uint32_t first, std::span<const uint32_t> where, i128 allow, const Caps& caps,
                    std::vector<Option>& out, uint64_t& nodes, uint64_t budget, const Option* want, std::vector<uint32_t>* got)
{
    const size_t m = v.pos.size();
    const i128 best = v.H - v.cslack;  // the cluster's exact best h
    const i128 allow_x = allow - v.cslack;
    std::vector<i128> hl(m);
    for (const Pos& p : v.pos) hl[p.tx - first] = p.h;
    std::vector<uint8_t> given(m, 0);  // by local index: 0 undecided, 1 in, 2 out
    bool found = false, over = false;
    int64_t w = 0, s = 0, cnt = 0, fee = 0;
    const auto visit = [&](const auto& self, size_t k) -> void {
        if (over || found) return;
        if (++nodes > budget) {
            over = true;
            return;
        }
        if (best - closure::MaxClosureLocal(g, first, hl, given) > allow_x) return;
        if (k == m) {
            const Option o{w, fee, caps.sig_model ? s : 0, caps.count_model ? cnt : 0};
            if (want == nullptr) {
                out.push_back(o);
            } else if (o.w == want->w && o.fee == want->fee && o.s == want->s && o.n == want->n) {
                for (const Pos& p : v.pos) {
                    if (given[p.tx - first] == 1) got->push_back(p.tx);
                }
                found = true;
            }
            return;
        }
        const Pos& p = v.pos[k];
        const uint32_t i = p.tx - first;
        bool can_in = p.eligible;
        for (uint32_t q : g.Parents(p.tx)) can_in = can_in && given[q - first] == 1;
        if (can_in && w + g.weight[p.tx] <= caps.w && s + g.sigops[p.tx] <= caps.s && cnt + 1 <= caps.n) {
            given[i] = 1;
            w += g.weight[p.tx];
            s += g.sigops[p.tx];
            cnt += 1;
            fee += g.fee[p.tx];
            self(self, k + 1);
            w -= g.weight[p.tx];
            s -= g.sigops[p.tx];
            cnt -= 1;
            fee -= g.fee[p.tx];
        }
        if (!p.forced) {
            given[i] = 2;
            self(self, k + 1);
        }
        given[i] = 0;
    };
    (void)where;
    visit(visit, 0);
    return !over;
}

}  // namespace

/** Append the cluster's closed sets X with H - h(X) <= allow within the caps to out (or, with
 *  want, find one with want's totals into got): a depth-first search deciding each transaction in
 *  order (in, or out; out when a parent is out or it is not eligible), pruned on the finished
 *  units' losses plus the open unit's sure loss. false when the node budget ran out. */
bool Enumerate(const Graph& g, const View& v, uint32_t first, std::span<const uint32_t> where, i128 allow, const Caps& caps,
               std::vector<Frame>& fr, std::vector<Option>& out, uint64_t& nodes, uint64_t budget, const Option* want,
               std::vector<uint32_t>* got)
{
    // (A cluster past the cut's size keeps the unit search: still exact against its allowance, as
    // allow includes the slack, only less pruned; the recursion stays shallow.)
    if (v.cslack > 0 && v.pos.size() <= EXACT_SEARCH_MAX) return EnumerateExact(g, v, first, where, allow, caps, out, nodes, budget, want, got);
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
        if (f.st == 2 || (f.st == 1 && p.forced)) {  // both branches done (a forced one has no "out")
            f.st = 0;
            --i;
            continue;
        }
        if (f.st == 0) {
            if (++nodes > budget) return false;
            bool forced_out = !p.eligible;
            for (uint32_t q : g.Parents(p.tx)) forced_out = forced_out || fr[where[q - first]].st == 2;
            if (forced_out && p.forced) {  // the branch cannot take it: no closed set here
                --i;
                continue;
            }
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

}  // namespace opt::residual
