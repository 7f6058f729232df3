// The branch and bound over the units at the block's edge; see bound_branch.h.
#include "bound_branch.h"

#include "bound_closure.h"
#include "bound_deepen.h"
#include "bound_lagrange.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

namespace opt {

namespace {

using i128 = __int128;

/** Branches solved at most (each one O(n log n) plus its deepening solve). */
constexpr uint32_t MAX_BRANCHES = 16;

/** Search nodes and DP states: of each residual solve of the heuristic, and of the deepening
 *  again and of the branch and bound (all branches together). */
constexpr uint64_t HEURISTIC_BUDGET = 3'000'000;
constexpr uint64_t AGAIN_BUDGET = 6'000'000;
constexpr uint64_t BRANCH_BUDGET = 6'000'000;

/** States per layer of the heuristic's beam search (bound_choose.h). */
constexpr size_t HEURISTIC_BEAM = 400;

/** One branching decision: a unit (a chunk of t, or a transaction of a relaxed cluster) all in
 *  (with its ancestors) or all out. */
struct Decision {
    uint32_t id;
    bool chunk;
    bool in;
};

struct Node {
    int64_t cap;  // no template of the branch earns more (its parent's proven cap until solved)
    std::vector<Decision> path;
    bool operator<(const Node& o) const noexcept { return cap < o.cap; }
};

/** A branch's restricted problem: the eligibility and forced transactions of its path. */
struct Branch {
    std::vector<uint8_t> eligible, forced;
    int64_t w{0}, s{0}, n{0};  // the forced transactions' totals
};

class Brancher
{
public:
    Brancher(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t, std::span<const uint32_t> order,
             const ResidualProblem& root, std::span<const double> rate_of)
        : m_g(g), m_cl(cl), m_lin(lin), m_t(t), m_order(order), m_root(root), m_rate_of(rate_of)
    {
    }

    /** The branch's eligibility and forced sets; false when its decisions contradict each other
     *  or the forced transactions alone break a limit (no template in it). */
    bool Restrict(std::span<const Decision> path, Branch& b) const
    {
        b.eligible.assign(m_root.eligible.begin(), m_root.eligible.end());
        if (b.eligible.empty()) b.eligible.assign(m_g.n, 1);
        b.forced.assign(m_g.n, 0);
        std::vector<uint32_t> stack;
        for (const Decision& d : path) {
            for (uint32_t x : Txs(d)) {
                if (!d.in) {
                    b.eligible[x] = 0;
                    continue;
                }
                stack.push_back(x);
                while (!stack.empty()) {
                    const uint32_t y = stack.back();
                    stack.pop_back();
                    if (b.forced[y]) continue;
                    b.forced[y] = 1;
                    for (uint32_t q : m_g.Parents(y)) stack.push_back(q);
                }
            }
        }
        b.w = b.s = b.n = 0;
        for (uint32_t x = 0; x < m_g.n; ++x) {
            if (!b.forced[x]) continue;
            if (!b.eligible[x]) return false;
            b.w += m_g.weight[x];
            b.s += m_g.sigops[x];
            b.n += 1;
        }
        return b.w <= m_root.capacity && b.s <= m_root.sigop_cap && b.n <= m_root.count_cap;
    }

    /** The branch's problem with multipliers chosen again for it: the Lagrangian LP of the
     *  transactions neither forced nor excluded, in the room the forced ones leave. */
    ResidualProblem Problem(const Branch& b, std::vector<uint8_t>& free_scratch) const
    {
        ResidualProblem pb = m_root;
        pb.eligible = b.eligible;
        pb.forced = b.forced;
        free_scratch.resize(m_g.n);
        for (uint32_t x = 0; x < m_g.n; ++x) free_scratch[x] = b.eligible[x] && !b.forced[x];
        const bool sig = m_root.sigop_cap != NO_LIMIT;
        const int64_t sig_room = sig ? m_root.sigop_cap - b.s : std::numeric_limits<int64_t>::max() / 4;
        const LagrangeChoice lc = ChooseSigopMultiplier(m_g, m_rate_of, free_scratch, m_root.capacity - b.w, sig_room);
        constexpr double SCALE = 1 << 20;  // multipliers in 2^-20 sat: any value is valid
        pb.D = 1 << 20;
        pb.F = std::llround(std::max(0.0, lc.lambda) * SCALE);
        pb.M = sig ? std::llround(std::max(0.0, lc.mu) * SCALE) : 0;
        const closure::Dual dual(m_g, m_cl, m_t, m_root.relaxed, m_root.eligible, b.eligible, b.forced, m_root.capacity,
                                 sig ? m_root.sigop_cap : std::numeric_limits<int64_t>::max() / 4);
        const closure::Prices p = dual.Minimize({pb.F, pb.M});
        pb.F = p.F;
        pb.M = sig ? p.M : 0;
        return pb;
    }

    /** The unit to branch on: the heaviest undecided eligible one whose |h| is within allow
     *  (scaled by D): the LP is nearly indifferent to it, and its weight makes the fill lumpy.
     *  false when there is none. */
    bool Pick(const ResidualProblem& pb, const Branch& b, i128 allow, Decision& out) const
    {
        int64_t best_w = 0;
        i128 best_h = 0;
        bool found = false;
        const auto consider = [&](uint32_t id, bool chunk, int64_t fee, int64_t w, int64_t s) {
            i128 h = static_cast<i128>(fee) * pb.D - static_cast<i128>(pb.F) * w - static_cast<i128>(pb.M) * s;
            if (h < 0) h = -h;
            if (h > allow) return;
            if (!found || w > best_w || (w == best_w && h < best_h)) {
                found = true;
                best_w = w;
                best_h = h;
                out = {id, chunk, false};
            }
        };
        for (uint32_t k = 0; k < m_t.Count(); ++k) {
            const Chunk& ch = m_t.chunks[k];
            if (m_root.relaxed[ch.cluster]) continue;
            bool open = true;
            for (uint32_t x : m_t.Txs(k)) open = open && b.eligible[x] && !b.forced[x];
            if (open) consider(k, true, ch.fee, ch.weight, ch.sigops);
        }
        for (uint32_t x = 0; x < m_g.n; ++x) {
            if (m_root.relaxed[m_cl.cluster_of[x]] && b.eligible[x] && !b.forced[x]) consider(x, false, m_g.fee[x], m_g.weight[x], m_g.sigops[x]);
        }
        return found;
    }

    /** The branch's deepening solve; cap: its parent's proven cap (the rounds above it are skipped). */
    DeepenResult Solve(const ResidualProblem& pb, int64_t incumbent, uint64_t budget, int64_t cap) const
    {
        return SolveDeepening(m_g, m_cl, m_lin, m_t, m_order, pb, incumbent, budget, nullptr, DEEPEN_FIRST, cap);
    }

private:
    std::span<const uint32_t> Txs(const Decision& d) const
    {
        return d.chunk ? m_t.Txs(d.id) : std::span<const uint32_t>(&d.id, 1);
    }

    const Graph& m_g;
    const Clusters& m_cl;
    const Linearization& m_lin;
    const ChunkTable& m_t;
    std::span<const uint32_t> m_order;
    const ResidualProblem& m_root;
    std::span<const double> m_rate_of;
};

}  // namespace

BranchResult SolveBranching(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                            std::span<const uint32_t> order, const ResidualProblem& root, std::span<const double> rate_of,
                            int64_t root_cap, int64_t root_lp, int64_t incumbent, uint64_t budget)
{
    BranchResult out;
    out.fee = incumbent;
    out.cap = std::max(root_cap, incumbent);
    if (root_cap <= incumbent) {
        out.exact = true;
        return out;
    }
    const Brancher br(g, cl, lin, t, order, root, rate_of);
    std::priority_queue<Node> open;
    int64_t stuck = std::numeric_limits<int64_t>::min();  // the largest cap of a branch that could not be split
    Branch b;
    std::vector<uint8_t> scratch;
    // Split a branch (its problem pb, LP lp, proven cap) into its two children.
    const auto split = [&](const Node& node, const ResidualProblem& pb, int64_t lp, int64_t cap) {
        Decision d{};
        const i128 allow = (static_cast<i128>(lp) - out.fee) * pb.D;
        if (!br.Pick(pb, b, allow, d)) {
            stuck = std::max(stuck, cap);
            return;
        }
        for (const bool in : {true, false}) {
            Node child{cap, node.path};
            d.in = in;
            child.path.push_back(d);
            open.push(std::move(child));
        }
    };
    const Node root_node{out.cap, {}};
    if (!br.Restrict(root_node.path, b)) return out;  // (cannot happen: no decisions)
    split(root_node, root, root_lp, root_cap);
    while (!open.empty()) {
        Node node = open.top();
        if (node.cap <= out.fee) {  // nothing in it beats the incumbent
            open.pop();
            continue;
        }
        if (out.nodes >= budget || out.branches >= MAX_BRANCHES) break;
        open.pop();
        if (!br.Restrict(node.path, b)) continue;  // no template in this branch
        const ResidualProblem pb = br.Problem(b, scratch);
        ++out.branches;
        DeepenResult dp = br.Solve(pb, out.fee, budget - out.nodes, node.cap);
        out.nodes += dp.nodes;
        if (dp.exact) {
            if (dp.fee > out.fee) {
                if (dp.txs.empty()) {  // (the solve always hands its template back; never trust a fee without one)
                    stuck = std::max(stuck, dp.fee);
                } else {
                    out.fee = dp.fee;
                    out.txs = std::move(dp.txs);
                }
            }
            continue;
        }
        const int64_t cap = std::min(node.cap, dp.cap);
        if (cap <= out.fee) continue;
        split(node, pb, dp.last.lp, cap);
    }
    int64_t cap = std::max(out.fee, stuck);
    while (!open.empty()) {
        cap = std::max(cap, open.top().cap);
        open.pop();
    }
    out.cap = std::min(cap, std::max(root_cap, out.fee));
    out.exact = out.cap <= out.fee;
    return out;
}

BranchResult CloseGap(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                      std::span<const uint32_t> order, const ResidualProblem& pb, std::span<const double> rate_of,
                      const DeepenResult& dp, int64_t incumbent, ResidualViews* views)
{
    BranchResult out;
    const int64_t lp = dp.last.lp;
    int64_t cap = std::max(dp.cap, incumbent);
    // The heuristic: floors from where the deepening ran out, the allowance doubling.
    ResidualSolve heur;
    for (int64_t floor = std::max(incumbent, dp.failed_floor);;) {
        heur = SolveResidual(g, cl, lin, t, order, pb, floor, HEURISTIC_BUDGET, HEURISTIC_BEAM, views);
        out.nodes += heur.nodes;
        if ((!heur.txs.empty() && heur.fee > floor) || floor <= incumbent) break;
        floor = std::max(incumbent, lp - 2 * (lp - floor));
    }
    if (!heur.txs.empty() && heur.fee > incumbent) {
        const bool shrinks = heur.fee >= dp.failed_floor;  // else the deepening would run out where it did
        incumbent = heur.fee;
        out.txs = std::move(heur.txs);
        if (shrinks) {
            DeepenResult again = SolveDeepening(g, cl, lin, t, order, pb, incumbent, AGAIN_BUDGET, views, dp.failed_delta);
            out.nodes += again.nodes;
            if (!again.txs.empty() && again.fee > incumbent) {
                incumbent = again.fee;
                out.txs = std::move(again.txs);
            }
            cap = std::min(cap, std::max(again.cap, incumbent));
            if (again.exact) {
                out.exact = true;
                out.fee = out.cap = incumbent;
                return out;
            }
        }
    }
    BranchResult bb = SolveBranching(g, cl, lin, t, order, pb, rate_of, cap, lp, incumbent, BRANCH_BUDGET);
    out.nodes += bb.nodes;
    out.branches = bb.branches;
    if (!bb.txs.empty() && bb.fee > incumbent) {
        incumbent = bb.fee;
        out.txs = std::move(bb.txs);
    }
    out.fee = incumbent;
    out.cap = std::max(std::min(cap, bb.cap), incumbent);
    out.exact = bb.exact || out.cap <= incumbent;
    return out;
}

}  // namespace opt
