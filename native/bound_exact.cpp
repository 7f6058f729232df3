// The exact residual solve; see bound_exact.h for why max(incumbent, its optimum) is a bound.
#include "bound_exact.h"

#include "bound_choose.h"
#include "bound_exact_view.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <vector>

namespace opt {

namespace {

using mckp::Choice;
using mckp::ChooseExactly;
using mckp::KeepFront;
using mckp::Option;
using residual::BuildView;
using residual::Caps;
using residual::Enumerate;
using residual::Frame;
using residual::i128;
using residual::Multipliers;
using residual::Pos;
using residual::Summarize;
using residual::Summary;
using residual::View;
using residual::WIDE;

/** Search nodes one cluster may take: past it, its near-lambda closed sets are too many to list
 *  (a dense cluster of similar rates), and giving up early leaves the budget's time unspent. */
constexpr uint64_t CLUSTER_BUDGET = 100'000;

/** The same for a heuristic solve (beam > 0), which keeps what it found. */
constexpr uint64_t HEURISTIC_CLUSTER_BUDGET = 4'000;

/** Free clusters past which the choice is not attempted: the DP's fronts would outgrow any budget
 *  (a gap of thousands of sat around a binding sigop limit), so the work is saved for the caller. */
constexpr size_t MAX_FREE = 2'000;

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

/** Drop (zero) the sigop or count totals of the candidates when even the largest candidate of
 *  every free cluster together fits that limit's room (room set to NO_LIMIT): it cannot bind the
 *  choice, and a front over fewer limits is smaller. Then keep each cluster's front again; pick
 *  holds each candidate's index before (into the caller's full list). */
void DropSlackLimits(std::vector<Option>& opts, std::vector<size_t>& starts, mckp::Room& room, uint64_t& work)
{
    int64_t max_s = 0, max_n = 0;
    for (size_t j = 0; j + 1 < starts.size(); ++j) {
        int64_t cs = 0, cn = 0;
        for (size_t k = starts[j]; k < starts[j + 1]; ++k) {
            cs = std::max(cs, opts[k].s);
            cn = std::max(cn, opts[k].n);
        }
        max_s += cs;
        max_n += cn;
    }
    const bool drop_s = room.s != NO_LIMIT && max_s <= room.s;
    const bool drop_n = room.n != NO_LIMIT && max_n <= room.n;
    for (size_t k = 0; k < opts.size(); ++k) {
        opts[k].pick = static_cast<uint32_t>(k);
        if (drop_s) opts[k].s = 0;
        if (drop_n) opts[k].n = 0;
    }
    if (drop_s) room.s = NO_LIMIT;
    if (drop_n) room.n = NO_LIMIT;
    if (!drop_s && !drop_n) return;
    std::vector<Option> kept;
    kept.reserve(opts.size());
    std::vector<size_t> kept_starts;
    for (size_t j = 0; j + 1 < starts.size(); ++j) {
        const size_t from = kept.size();
        kept_starts.push_back(from);
        kept.insert(kept.end(), opts.begin() + static_cast<std::ptrdiff_t>(starts[j]), opts.begin() + static_cast<std::ptrdiff_t>(starts[j + 1]));
        KeepFront(kept, from, &work);
    }
    kept_starts.push_back(kept.size());
    opts = std::move(kept);
    starts = std::move(kept_starts);
}

/** A cluster whose choice was made by enumeration (one candidate left, or the DP's pick). */
struct Decided {
    uint32_t cluster;
    Option opt;
};

/** The clusters that were not fixed: their candidates opts[starts[j] .. starts[j+1]) per free
 *  cluster j, and the base (the fixed clusters' sets) they add to. */
struct Fixing {
    std::vector<Option> opts;
    std::vector<size_t> starts;
    std::vector<i128> free_H;
    std::vector<uint32_t> free_c;
    std::vector<Decided> decided;
    std::vector<uint8_t> deviates;  // per cluster: chosen by enumeration, not the LP's set
    int64_t base_w{0}, base_s{0}, base_n{0}, base_fee{0};
    void AddToBase(int64_t w, int64_t s, int64_t n, int64_t fee) noexcept
    {
        base_w += w;
        base_s += s;
        base_n += n;
        base_fee += fee;
    }
};

}  // namespace

struct ResidualViews::Impl {
    std::vector<View> views;  // per cluster, when full
    bool full{false};
    i128 lp{0};  // the Lagrangian LP (scaled), when full
};

ResidualViews::ResidualViews() : impl(std::make_unique<Impl>()) {}
ResidualViews::~ResidualViews() = default;

namespace {

/** One SolveResidual call: the problem and the per-cluster scratch. */
class Solver
{
public:
    Solver(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t, std::span<const uint32_t> mining,
           const ResidualProblem& pb, ResidualViews* views)
        : m_g(g), m_cl(cl), m_lin(lin), m_t(t), m_mining(mining), m_pb(pb), m_kept(views != nullptr ? views->impl.get() : nullptr),
          m_mu{pb.F, pb.D, pb.M},
          m_caps{pb.capacity, pb.sigop_cap, pb.count_cap, pb.sigop_cap != NO_LIMIT, pb.count_cap != NO_LIMIT}
    {
        const bool any_relaxed = std::any_of(pb.relaxed.begin(), pb.relaxed.end(), [](uint8_t r) { return r != 0; });
        // With M = 0 and every cluster proven, the units are the chunks and the LP's sets are the
        // chunks of h > 0: a prefix of the mining order (ineligible chunks, below the min rate, come last).
        m_window = m_mu.M == 0 && !any_relaxed && pb.forced.empty();
    }

    /** LP = lambda*C_w + mu*C_s + sum of H_c; in window mode also the LP's sets' totals (the
     *  base before fixing) and the edge: mining[edge] is the first chunk of h <= 0 or not eligible. */
    i128 Lp(Fixing& fx)
    {
        i128 lp = static_cast<i128>(m_mu.F) * m_pb.capacity + (m_mu.M > 0 ? static_cast<i128>(m_mu.M) * m_pb.sigop_cap : 0);
        if (!m_window) {
            if (m_kept != nullptr && m_kept->full) return m_kept->lp;
            if (m_kept != nullptr) m_kept->views.resize(m_cl.count);
            for (uint32_t c = 0; c < m_cl.count; ++c) {
                View& v = m_kept != nullptr ? m_kept->views[c] : m_view;
                BuildView(m_g, m_cl, m_lin, m_t, m_pb, m_mu, c, v);
                lp += v.H - v.cslack;
            }
            if (m_kept != nullptr) {
                m_kept->full = true;
                m_kept->lp = lp;
            }
            return lp;
        }
        for (; m_edge < m_mining.size(); ++m_edge) {
            const Chunk& ch = m_t.chunks[m_mining[m_edge]];
            const i128 hk = m_mu.h(ch.fee, ch.weight, 0);
            if (hk <= 0 || !Eligible(m_t.Txs(m_mining[m_edge])[0])) break;
            lp += hk;
            fx.AddToBase(ch.weight, ch.sigops, m_t.TxCount(m_mining[m_edge]), ch.fee);
        }
        return lp;
    }

    /** The clusters that may have another candidate than their LP set. In window mode only a chunk
     *  within allow / (lightest transaction anywhere) of lambda's rate can make its cluster free
     *  (Summarize), and those chunks are a window around the edge of the order. */
    std::vector<uint32_t> Candidates(i128 allow) const
    {
        std::vector<uint32_t> cands;
        if (!m_window) {
            cands.resize(m_cl.count);
            std::iota(cands.begin(), cands.end(), 0u);
            return cands;
        }
        const int64_t minw = m_g.n > 0 ? *std::min_element(m_g.weight.begin(), m_g.weight.end()) : 1;
        const auto near = [&](size_t i) {
            const Chunk& ch = m_t.chunks[m_mining[i]];
            const i128 hk = m_mu.h(ch.fee, ch.weight, 0);
            return ch.weight > WIDE || (hk < 0 ? -hk : hk) * minw <= allow * ch.weight;
        };
        size_t lo = m_edge, hi = m_edge;
        while (lo > 0 && near(lo - 1)) --lo;
        while (hi < m_mining.size() && near(hi)) ++hi;
        for (size_t i = lo; i < hi; ++i) cands.push_back(m_t.chunks[m_mining[i]].cluster);
        std::sort(cands.begin(), cands.end());
        cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
        return cands;
    }

    /** Reduced-cost fixing: each candidate cluster's closed sets cheap enough are enumerated; one
     *  left joins the base, more make it free. false when the solve ends here (res says how). */
    bool Fix(std::span<const uint32_t> cands, i128 allow, uint64_t budget, Fixing& fx, ResidualSolve& res, bool heuristic)
    {
        fx.deviates.assign(m_cl.count, 0);
        for (uint32_t c : cands) {
            const std::span<const uint32_t> pos = Prepare(c);
            const Summary su = Summarize(m_g, *m_cur, m_cl.offsets[c], pos, allow);
            if (m_window) fx.AddToBase(-su.w, -su.s, -su.n, -su.fee);  // the LP's set is in the base already
            if (su.fixed) {                                            // every deviation from the LP's set is too dear
                fx.AddToBase(su.w, su.s, su.n, su.fee);
                continue;
            }
            const size_t from = fx.opts.size();
            // A heuristic keeps the candidates found within a smaller budget (any subset of them
            // still gives valid templates).
            const uint64_t cluster_budget = std::min(budget, res.nodes + (heuristic ? HEURISTIC_CLUSTER_BUDGET : CLUSTER_BUDGET));
            if (!Enumerate(m_g, *m_cur, m_cl.offsets[c], pos, allow + m_cur->cslack, m_caps, m_frames, fx.opts, res.nodes, cluster_budget) &&
                !heuristic) {
                return false;
            }
            if (fx.opts.size() == from) {
                res.solved = true;  // no closed set of c is cheap enough: nothing beats the incumbent
                return false;
            }
            KeepFront(fx.opts, from, &res.nodes);
            fx.deviates[c] = 1;
            if (fx.opts.size() - from == 1) {
                const Option& only = fx.opts[from];
                fx.AddToBase(only.w, only.s, only.n, only.fee);
                fx.decided.push_back({c, only});
                fx.opts.resize(from);
            } else {
                fx.starts.push_back(from);
                fx.free_H.push_back(m_cur->H - m_cur->cslack);
                fx.free_c.push_back(c);
                if (fx.free_c.size() > MAX_FREE && !heuristic) {
                    res.free_clusters = static_cast<uint32_t>(fx.free_c.size());
                    return false;
                }
            }
            if (res.nodes > budget) return false;
        }
        if (!m_caps.sig_model) fx.base_s = 0;
        if (!m_caps.count_model) fx.base_n = 0;
        if (fx.base_w > m_pb.capacity || fx.base_s > m_pb.sigop_cap || fx.base_n > m_pb.count_cap) {
            res.solved = true;  // the fixed clusters alone overfill: nothing beats the incumbent
            return false;
        }
        return true;
    }

    /** One candidate per free cluster under the limits, exactly (bound_choose.h); the picks join
     *  fx.decided. false when the budget ran out. */
    bool Choose(Fixing& fx, int64_t incumbent, uint64_t budget, ResidualSolve& res, size_t beam) const
    {
        fx.starts.push_back(fx.opts.size());
        res.free_clusters = static_cast<uint32_t>(fx.free_H.size());
        mckp::Room room{m_pb.capacity - fx.base_w, m_caps.sig_model ? m_pb.sigop_cap - fx.base_s : NO_LIMIT,
                        m_caps.count_model ? m_pb.count_cap - fx.base_n : NO_LIMIT};
        // The DP's candidates: a limit no choice can exceed (the free clusters' largest candidates
        // together fit the room) is dropped, so the fronts keep fewer dimensions. pick: the index
        // of the candidate in fx.opts (the full totals, to find its set again).
        std::vector<Option> opts = fx.opts;
        std::vector<size_t> starts = fx.starts;
        DropSlackLimits(opts, starts, room, res.nodes);
        const std::vector<uint32_t> ord = DpOrder(opts, starts, fx.free_H, m_mu);
        // Without a sigop room the rest's bound has no sigop term: its h then leaves out mu too.
        const Multipliers lm{m_mu.F, m_mu.D, room.s == NO_LIMIT ? 0 : m_mu.M};
        mckp::Lagrangian lag{lm.F, lm.D, lm.M, {}};
        lag.hbest.resize(fx.free_H.size());
        for (size_t j = 0; j + 1 < starts.size(); ++j) {
            i128 best = std::numeric_limits<i128>::min();
            for (size_t k = starts[j]; k < starts[j + 1]; ++k) {
                const Option& o = fx.opts[opts[k].pick];
                best = std::max(best, lm.h(o.fee, o.w, o.s));
            }
            lag.hbest[j] = best;
        }
        const Choice ch = ChooseExactly(opts, starts, ord, room, incumbent + 1 - fx.base_fee, lag, budget, res.nodes, beam);
        if (!ch.finished) return false;
        res.solved = beam == 0;
        if (ch.best < 0) return false;
        res.fee = std::max(res.fee, fx.base_fee + ch.best);
        for (size_t j = 0; j < ord.size(); ++j) fx.decided.push_back({fx.free_c[ord[j]], fx.opts[opts[ch.picks[j]].pick]});
        return true;
    }

    /** The template earning the choice: the enumerated choices, and every other cluster's LP set.
     *  Empty if an enumerated choice is not found again (cannot happen). */
    std::vector<uint32_t> TemplateOf(const Fixing& fx, i128 allow)
    {
        std::vector<uint32_t> txs;
        for (const Decided& d : fx.decided) {
            const std::span<const uint32_t> pos = Prepare(d.cluster);
            std::vector<Option> unused;
            uint64_t spent = 0;
            const size_t before = txs.size();
            Enumerate(m_g, *m_cur, m_cl.offsets[d.cluster], pos, allow + m_cur->cslack, m_caps, m_frames, unused, spent, NO_LIMIT, &d.opt, &txs);
            if (txs.size() == before && d.opt.w != 0) return {};
        }
        if (m_window) {
            for (size_t i = 0; i < m_edge; ++i) {
                if (fx.deviates[m_t.chunks[m_mining[i]].cluster]) continue;
                for (uint32_t x : m_t.Txs(m_mining[i])) txs.push_back(x);
            }
            return txs;
        }
        for (uint32_t c = 0; c < m_cl.count; ++c) {
            if (fx.deviates[c]) continue;
            for (const Pos& p : ViewOf(c).pos) {
                if (p.eligible && p.phi_pos) txs.push_back(p.tx);
            }
        }
        return txs;
    }

    /** Whether txs is closed, within every limit, and earns fee. */
    bool Valid(std::span<const uint32_t> txs, int64_t fee) const
    {
        std::vector<uint8_t> in(m_g.n, 0);
        for (uint32_t x : txs) in[x] = 1;
        int64_t w = 0, s = 0, sum = 0;
        for (uint32_t x : txs) {
            for (uint32_t q : m_g.Parents(x)) {
                if (!in[q]) return false;
            }
            w += m_g.weight[x];
            s += m_g.sigops[x];
            sum += m_g.fee[x];
        }
        return sum == fee && w <= m_pb.capacity && (!m_caps.sig_model || s <= m_pb.sigop_cap) &&
               (!m_caps.count_model || static_cast<int64_t>(txs.size()) <= m_pb.count_cap);
    }

    const Multipliers& Mu() const noexcept { return m_mu; }

private:
    bool Eligible(uint32_t x) const noexcept { return m_pb.eligible.empty() || m_pb.eligible[x] != 0; }
    /** Cluster c's view: the kept one, else built into m_view. */
    const View& ViewOf(uint32_t c)
    {
        if (m_kept != nullptr && m_kept->full) return m_kept->views[c];
        BuildView(m_g, m_cl, m_lin, m_t, m_pb, m_mu, c, m_view);
        return m_view;
    }

    /** Cluster c's view (into m_cur), and each of its transactions' position in it (by cluster-local index). */
    std::span<const uint32_t> Prepare(uint32_t c)
    {
        m_cur = &ViewOf(c);
        const size_t m = m_cur->pos.size();
        m_where.resize(std::max<size_t>(m_where.size(), m));
        for (size_t k = 0; k < m; ++k) m_where[m_cur->pos[k].tx - m_cl.offsets[c]] = static_cast<uint32_t>(k);
        return std::span<const uint32_t>(m_where).subspan(0, m);
    }

    const Graph& m_g;
    const Clusters& m_cl;
    const Linearization& m_lin;
    const ChunkTable& m_t;
    std::span<const uint32_t> m_mining;
    const ResidualProblem& m_pb;
    ResidualViews::Impl* m_kept;  // the problem's kept views, or null
    const Multipliers m_mu;
    const Caps m_caps;
    bool m_window{false};
    size_t m_edge{0};
    View m_view;
    const View* m_cur{&m_view};  // the view Prepare chose
    std::vector<uint32_t> m_where;
    std::vector<Frame> m_frames;
};

}  // namespace

ResidualSolve SolveResidual(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> mining, const ResidualProblem& pb, int64_t incumbent, uint64_t budget,
                            size_t beam, ResidualViews* views)
{
    ResidualSolve res;
    Solver solver(g, cl, lin, t, mining, pb, views);
    Fixing fx;
    const i128 lp = solver.Lp(fx);
    res.lp = static_cast<int64_t>(std::min<i128>(lp / solver.Mu().D, std::numeric_limits<int64_t>::max()));
    // A template earning incumbent + 1 or more loses at most this much in total (scaled).
    const i128 allow = lp - static_cast<i128>(incumbent + 1) * solver.Mu().D;
    res.fee = incumbent;
    if (allow < 0) {
        res.solved = true;
        return res;
    }
    const std::vector<uint32_t> cands = solver.Candidates(allow);
    if (!solver.Fix(cands, allow, budget, fx, res, beam > 0)) return res;
    if (!solver.Choose(fx, incumbent, budget, res, beam)) return res;
    // Check the template before handing it out: closed, within every limit, earning the optimum.
    std::vector<uint32_t> txs = solver.TemplateOf(fx, allow);
    if (!txs.empty() && solver.Valid(txs, res.fee)) res.txs = std::move(txs);
    return res;
}

}  // namespace opt
