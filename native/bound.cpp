// The hull / LP upper bound; see bound.h for why it is valid.
#include "bound.h"

#include "bound_branch.h"
#include "bound_closure.h"
#include "bound_deepen.h"
#include "bound_exact.h"
#include "bound_lagrange.h"
#include "bound_repair.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace opt {

namespace {

/** Fractional knapsack over items already sorted by rate (descending). */
template <typename Items>
int64_t Fill(const Items& items, size_t count, int64_t capacity)
{
    int64_t fee = 0, room = capacity;
    for (size_t i = 0; i < count; ++i) {
        const FeeFrac it = items(i);
        if (it.size <= room) {
            fee += it.fee;
            room -= it.size;
        } else {
            return fee + MulDivFloor(it.fee, room, it.size);
        }
    }
    return fee;
}

/** A knapsack item of the bound: a chunk of a cluster proven optimal, or a relaxed transaction.
 *  partial_cap: the most weight a template can take from it without taking all of it (the chunk
 *  minus its lightest transaction with no child inside the chunk; 0 for a single transaction). */
struct Item {
    FeeFrac ff;
    int64_t partial_cap;
    uint32_t cluster;  // UINT32_MAX: a transaction of a relaxed cluster
    uint32_t chunk;    // its chunk in t (UINT32_MAX: a transaction)
};

/** ceil(fee * num / den) for fee >= 0, num >= 0, den > 0. */
int64_t MulDivCeil(int64_t fee, int64_t num, int64_t den) noexcept
{
    return static_cast<int64_t>((static_cast<__int128>(fee) * num + den - 1) / den);
}

/** The fractional fill by rate of the items (mark: 0 free; 1 not wholly in: at most partial_cap of
 *  it, at its rate; 2 wholly in: already counted in base_fee and removed from cap), refined by
 *  branching on the critical item (the first that does not fit): every template either takes all
 *  of it or not. Why a part is worth at most its chunk's rate: any part a template can take (with
 *  the cluster's earlier chunks) is a closed subset of what remains of the cluster after them, and
 *  an optimal chunk is a highest-rate such set; the later chunks stay bounded by their diagram.
 *  Each branch is a relaxation of its restriction, so the larger of the two is a bound, and never
 *  above the plain fill. Partial amounts are rounded up, the last fractional one down (the sum is
 *  then still >= the floor of the exact value). */
int64_t BranchFill(const std::vector<Item>& items, std::vector<uint8_t>& mark, int64_t cap, int64_t base_fee, int depth)
{
    if (cap < 0) return std::numeric_limits<int64_t>::min();
    int64_t fee = base_fee, room = cap;
    for (size_t i = 0; i < items.size(); ++i) {
        if (mark[i] == 2) continue;
        const FeeFrac& it = items[i].ff;
        const int64_t size = mark[i] == 1 ? items[i].partial_cap : it.size;
        if (size <= room) {
            fee += mark[i] == 1 ? MulDivCeil(it.fee, size, it.size) : it.fee;
            room -= size;
            continue;
        }
        const int64_t lp = fee + MulDivFloor(it.fee, room, it.size);
        if (depth == 0 || mark[i] == 1) return lp;
        mark[i] = 1;
        const int64_t out = BranchFill(items, mark, cap, base_fee, depth - 1);
        mark[i] = 2;
        const int64_t in = BranchFill(items, mark, cap - it.size, base_fee + it.fee, depth - 1);
        mark[i] = 0;
        return std::min(lp, std::max(out, in));
    }
    return fee;
}

/** Branching depth: at most 2^depth fills, each scanning only up to its critical item. */
constexpr int BRANCH_DEPTH = 6;

/** Search nodes and DP states of the residual solve (about 10 ns each). */
constexpr uint64_t RESIDUAL_BUDGET = 28'000'000;

}  // namespace

UpperBound ComputeUpperBound(const Graph& g, const Clusters& cl, const Linearization& lin, const ChunkTable& t,
                             std::span<const uint32_t> order, const BoundLimits& limits, int64_t incumbent)
{
    UpperBound ub;
    const int64_t capacity = limits.weight;
    std::vector<uint8_t> relaxed(cl.count, 0);
    for (uint32_t c = 0; c < cl.count; ++c) {
        bool r = !lin.optimal[c];
        if (!t.real) {
            for (uint32_t x : cl.Txs(c)) r = r || g.adj_weight[x] != g.weight[x];
        }
        relaxed[c] = r;
        ub.relaxed_clusters += r;
    }
    const bool hull = ub.relaxed_clusters == 0;
    // Eligible: the transactions of chunks paying the min fee rate (a prefix of each cluster).
    std::vector<uint8_t> eligible_chunk(t.Count()), eligible(g.n, 0);
    int64_t eligible_sigops = 0, eligible_count = 0;
    for (uint32_t k = 0; k < t.Count(); ++k) {
        const Chunk& ch = t.chunks[k];
        eligible_chunk[k] = static_cast<__int128>(ch.fee) * 4000 >= static_cast<__int128>(limits.min_rate_sat_kvb) * ch.weight;
        if (!eligible_chunk[k]) continue;
        eligible_sigops += ch.sigops;
        eligible_count += t.TxCount(k);
    }
    // By transaction, in order: chunks in mining order sit at random places of the transactions.
    for (uint32_t x = 0; x < g.n; ++x) eligible[x] = eligible_chunk[t.chunk_of[x]];
    std::vector<Item> items;
    items.reserve(order.size());
    for (uint32_t k : order) {
        const Chunk& ch = t.chunks[k];
        if (eligible_chunk[k] && (hull || !relaxed[ch.cluster])) items.push_back({{ch.fee, ch.weight}, ch.weight, ch.cluster, k});
    }
    if (!hull) {
        for (uint32_t x = 0; x < g.n; ++x) {
            if (relaxed[cl.cluster_of[x]] && eligible[x]) items.push_back({{g.fee[x], g.weight[x]}, 0, UINT32_MAX, UINT32_MAX});
        }
        std::sort(items.begin(), items.end(), [](const Item& ia, const Item& ib) {
            const FeeFrac& a = ia.ff;
            const FeeFrac& b = ib.ff;
            const double ra = static_cast<double>(a.fee) / static_cast<double>(a.size);
            const double rb = static_cast<double>(b.fee) / static_cast<double>(b.size);
            if (std::fabs(ra - rb) > 1e-12 * std::max(std::fabs(ra), std::fabs(rb))) return ra > rb;
            return CompareFeerate(a, b) > 0;
        });
    }
    ub.lp_fee = Fill([&](size_t i) { return items[i].ff; }, items.size(), capacity);

    // The LP's critical item (the first that does not fit).
    const Item* critical = nullptr;
    int64_t lp_room = capacity;
    for (const Item& it : items) {
        if (it.ff.size > lp_room) {
            critical = &it;
            break;
        }
        lp_room -= it.ff.size;
    }
    // Without an incumbent, a greedy template over the chunks (a skipped chunk blocks its
    // cluster's later ones, so the taken set stays closed).
    if (incumbent < 0) {
        int64_t room = capacity, sig = limits.sigops, cnt = limits.tx_count, greedy = 0;
        std::vector<uint8_t> blocked(cl.count, 0);
        for (const Item& it : items) {
            if (it.cluster == UINT32_MAX) continue;
            const Chunk& ch = t.chunks[it.chunk];
            if (blocked[it.cluster] || ch.weight > room || ch.sigops > sig || t.TxCount(it.chunk) > cnt) {
                blocked[it.cluster] = 1;
            } else {
                greedy += ch.fee;
                room -= ch.weight;
                sig -= ch.sigops;
                cnt -= t.TxCount(it.chunk);
            }
        }
        incumbent = greedy;
    }
    const bool sig_binds = eligible_sigops > limits.sigops;
    const bool count_binds = eligible_count > limits.tx_count;
    if (critical == nullptr && !sig_binds && !count_binds) {  // everything fits: the optimum
        ub.fee = ub.lp_fee;
        ub.solved = ub.exact = true;
        return ub;
    }
    ResidualProblem pb;
    pb.relaxed = relaxed;
    pb.eligible = eligible;
    pb.capacity = capacity;
    pb.sigop_cap = sig_binds ? limits.sigops : NO_LIMIT;
    pb.count_cap = count_binds ? limits.tx_count : NO_LIMIT;
    if (critical != nullptr) {
        pb.F = critical->ff.fee;
        pb.D = critical->ff.size;
    }
    const int64_t given = incumbent;
    // Per transaction its unit's rate: the LP's price (bound_lagrange.h). Only a binding sigop
    // limit or a gap left by the solve needs it: made on first use.
    std::vector<double> rate_of;
    auto rates = [&]() -> const std::vector<double>& {
        if (!rate_of.empty() || g.n == 0) return rate_of;
        std::vector<double> chunk_rate(t.Count());  // one random read of 8 bytes per transaction below, not of a Chunk
        for (uint32_t k = 0; k < t.Count(); ++k) chunk_rate[k] = static_cast<double>(t.chunks[k].fee) / static_cast<double>(t.chunks[k].weight);
        rate_of.resize(g.n);
        for (uint32_t x = 0; x < g.n; ++x) {
            rate_of[x] = relaxed[cl.cluster_of[x]] ? static_cast<double>(g.fee[x]) / static_cast<double>(g.weight[x]) : chunk_rate[t.chunk_of[x]];
        }
        return rate_of;
    };
    if (sig_binds) {
        // The price of a sigop where the sigop limit binds the LP, and the template it guides.
        const LagrangeChoice lc = ChooseSigopMultiplier(g, rates(), eligible, capacity, limits.sigops);
        if (lc.mu > 0) {
            constexpr double SCALE = 1 << 20;  // multipliers in 2^-20 sat: any value is valid
            ub.sigop_price = lc.mu;
            pb.D = 1 << 20;
            pb.F = std::llround(std::max(0.0, lc.lambda) * SCALE);
            pb.M = std::llround(lc.mu * SCALE);
            // The exact dual per cluster (bound_closure.h) from there: the LP of the whole MILP.
            const closure::Dual dual(g, cl, t, relaxed, eligible, eligible, {}, capacity, limits.sigops);
            const closure::Prices p = dual.Minimize({pb.F, pb.M});
            pb.F = p.F;
            pb.M = p.M;
            // The dual's own sets, repaired into a template (bound_repair.h), at its prices and a
            // few around them (the sets change by whole clusters between prices).
            for (const auto& [fs, ms] : {std::pair{1.0, 1.0}, {1.0, 0.95}, {1.0, 1.05}, {0.995, 1.0}, {1.005, 1.0}, {1.0, 0.9}, {1.0, 1.1}}) {
                const closure::Prices q{std::llround(static_cast<double>(p.F) * fs), std::llround(static_cast<double>(p.M) * ms)};
                int64_t repaired = 0;
                std::vector<uint32_t> rt = RepairTemplate(g, dual.Argmax(q), eligible, {capacity, limits.sigops, limits.tx_count},
                                                          static_cast<double>(q.M) / SCALE, repaired);
                if (repaired > incumbent) {
                    incumbent = repaired;
                    ub.better = std::move(rt);
                }
            }
            // The guided template at that price and around the dual's (the better incumbent wins).
            const double dual_mu = static_cast<double>(pb.M) / SCALE;
            for (const double mu : {lc.mu, dual_mu * 0.8, dual_mu * 0.9, dual_mu, dual_mu * 1.1, dual_mu * 1.25}) {
                const GuidedTemplate gt = GuidedGreedy(t, eligible_chunk, mu, capacity, limits.sigops, limits.tx_count);
                if (gt.fee <= incumbent) continue;
                incumbent = gt.fee;
                ub.better.clear();
                for (uint32_t k : gt.chunks) {
                    for (uint32_t x : t.Txs(k)) ub.better.push_back(x);
                }
            }
        }
    }
    ResidualViews views;  // pb's clusters' views, shared by its solves
    DeepenResult dp = SolveDeepening(g, cl, lin, t, order, pb, incumbent, RESIDUAL_BUDGET, &views);
    const ResidualSolve& rs = dp.last;
    ub.free_clusters = rs.free_clusters;
    ub.search_nodes = dp.nodes;
    ub.solved = ub.exact = dp.exact;
    if (!dp.txs.empty() && dp.fee > given) ub.better = std::move(dp.txs);
    if (!dp.exact) {
        // The gap left: a better incumbent, then the branch and bound (bound_branch.h).
        BranchResult bb = CloseGap(g, cl, lin, t, order, pb, rates(), dp, incumbent, &views);
        ub.search_nodes += bb.nodes;
        ub.branches = bb.branches;
        if (!bb.txs.empty() && bb.fee > incumbent) {
            incumbent = bb.fee;
            ub.better = std::move(bb.txs);
        }
        dp.cap = std::min(dp.cap, std::max(bb.cap, incumbent));
        if (bb.exact) {
            dp.exact = true;
            dp.fee = incumbent;
            ub.solved = ub.exact = true;
        }
    }
    if (dp.exact) {
        ub.fee = std::min(ub.lp_fee, dp.fee);
        return ub;
    }
    if (critical == nullptr) {  // everything fits by weight: the other limits are only in the solve
        ub.fee = ub.lp_fee;
        if (pb.M > 0) ub.fee = std::min(ub.fee, rs.lp);
        ub.fee = std::max(std::min(ub.fee, dp.cap), incumbent);
        return ub;
    }
    // The branching bound: partial caps for the items near the block's edge (only they can become
    // critical; the others keep the trivial cap, the whole chunk, which is valid, just not tighter).
    int64_t prefix = 0;
    for (size_t i = 0; i < items.size() && prefix <= 2 * capacity; ++i) {
        prefix += items[i].ff.size;
        const uint32_t k = items[i].chunk;
        if (k == UINT32_MAX) continue;
        int64_t lightest_leaf = items[i].ff.size;
        for (uint32_t x : t.Txs(k)) {
            bool leaf = true;
            for (uint32_t c : g.Children(x)) leaf = leaf && t.chunk_of[c] != k;
            if (leaf) lightest_leaf = std::min(lightest_leaf, g.weight[x]);
        }
        items[i].partial_cap = items[i].ff.size - lightest_leaf;
    }
    std::vector<uint8_t> mark(items.size(), 0);
    ub.fee = std::min(ub.lp_fee, BranchFill(items, mark, capacity, 0, BRANCH_DEPTH));
    if (pb.M > 0) ub.fee = std::min(ub.fee, rs.lp);  // the Lagrangian LP with both limits
    ub.fee = std::max(std::min(ub.fee, dp.cap), incumbent);
    return ub;
}

}  // namespace opt
