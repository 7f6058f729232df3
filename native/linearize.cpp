// Cluster linearization driver; see linearize.h for the paths and budgets.
#include "linearize.h"

#include <algorithm>
#include <atomic>
#include <queue>

#include <memory>

#include "parallel.h"
#include "sfl.h"

namespace opt {

namespace {

struct RunResult {
    bool optimal;
    uint64_t cost;
};

/** Reusable per-width state, so clusters do not allocate. */
template <unsigned W>
struct Workspace {
    ClusterGraph<BitSet<W>> graph;
    SpanningForest<BitSet<W>> forest;
    std::vector<uint32_t> local_lin;
    std::vector<uint32_t> old_lin;
};

/** Core's Linearize (src/cluster_linearize.h): load or make topological, optimize, minimize,
 *  each while the cost stays under max_cost; PostLinearize when not proven optimal. */
template <typename S>
RunResult RunSfl(SpanningForest<S>& f, const ClusterGraph<S>& cg, uint64_t max_cost, uint64_t seed,
                 std::span<const uint32_t> old_lin, std::vector<uint32_t>& out)
{
    f.Init(cg, seed);
    if (!old_lin.empty()) {
        f.LoadLinearization(old_lin);
    } else {
        f.MakeTopological();
    }
    bool optimized = false, optimal = false;
    if (f.Cost() < max_cost) {
        f.StartOptimizing();
        while (true) {
            if (!f.OptimizeStep()) {
                optimized = true;
                break;
            }
            if (f.Cost() >= max_cost) break;
        }
    }
    if (optimized && f.Cost() < max_cost) {
        f.StartMinimizing();
        while (true) {
            if (!f.MinimizeStep()) {
                optimal = true;
                break;
            }
            if (f.Cost() >= max_cost) break;
        }
    }
    f.GetLinearization(out);
    if (!optimal) PostLinearize(cg, std::span<uint32_t>(out));
    return {optimal, f.Cost()};
}

/** Build the cluster graph of txs (topological global indices). */
template <typename S>
void BuildClusterGraph(const Graph& g, const Clusters& cl, std::span<const uint32_t> txs, ClusterGraph<S>& cg, bool real = false)
{
    cg.Reset(static_cast<unsigned>(txs.size()));
    for (unsigned j = 0; j < txs.size(); ++j) {
        const uint32_t t = txs[j];
        cg.feerate[j] = FeeFrac{g.fee[t], real ? g.weight[t] : g.adj_weight[t]};
        cg.fallback[j] = g.rank[t];
        for (uint32_t p : g.Parents(t)) cg.AddParent(cl.local[p], j);
    }
    cg.FinishDescendants();
}

/** The warm-start order of a cluster in local indices, or empty if unusable. */
template <typename S>
void WarmOrder(const Clusters& cl, std::span<const uint32_t> txs, const std::vector<uint32_t>& warm_pos,
               const ClusterGraph<S>& cg, std::vector<uint32_t>& old_lin)
{
    old_lin.clear();
    if (warm_pos.empty()) return;
    for (unsigned j = 0; j < txs.size(); ++j) old_lin.push_back(j);
    std::stable_sort(old_lin.begin(), old_lin.end(), [&](uint32_t a, uint32_t b) {
        return warm_pos[txs[a]] < warm_pos[txs[b]];
    });
    if (!cg.IsTopological(old_lin)) old_lin.clear();
    (void)cl;
}

/** SFL on one cluster with width W; writes global indices to out. */
template <unsigned W>
RunResult LinearizeWith(Workspace<W>& ws, const Graph& g, const Clusters& cl, std::span<const uint32_t> txs,
                        uint64_t budget, uint64_t seed, const std::vector<uint32_t>& warm_pos, uint32_t* out)
{
    BuildClusterGraph(g, cl, txs, ws.graph);
    WarmOrder(cl, txs, warm_pos, ws.graph, ws.old_lin);
    const RunResult r = RunSfl(ws.forest, ws.graph, budget, seed, ws.old_lin, ws.local_lin);
    for (size_t i = 0; i < txs.size(); ++i) out[i] = txs[ws.local_lin[i]];
    return r;
}

/** Re-run SFL warm-started from the cluster's current order in out. */
template <unsigned W>
RunResult RelinearizeWith(Workspace<W>& ws, const Graph& g, const Clusters& cl, std::span<const uint32_t> txs,
                          uint64_t budget, uint64_t seed, uint32_t* out, bool real = false)
{
    BuildClusterGraph(g, cl, txs, ws.graph, real);
    ws.old_lin.clear();
    for (size_t i = 0; i < txs.size(); ++i) ws.old_lin.push_back(cl.local[out[i]]);
    const RunResult r = RunSfl(ws.forest, ws.graph, budget, seed, ws.old_lin, ws.local_lin);
    for (size_t i = 0; i < txs.size(); ++i) out[i] = txs[ws.local_lin[i]];
    return r;
}

/** Whether the cluster is a single path (every tx at most one parent and one child). */
bool IsChain(const Graph& g, std::span<const uint32_t> txs)
{
    for (uint32_t t : txs) {
        if (g.Parents(t).size() > 1 || g.Children(t).size() > 1) return false;
    }
    return true;
}

/** Large clusters: Kahn's algorithm picking the ready transaction with the highest individual
 *  fee rate (ties: lower txid rank). Topological, not proven optimal. O(k log k + e). */
void GreedyTopological(const Graph& g, const Clusters& cl, std::span<const uint32_t> txs, uint32_t* out, bool real = false)
{
    auto after = [&](uint32_t a, uint32_t b) {
        const int cmp = real ? CompareFeerate({g.fee[a], g.weight[a]}, {g.fee[b], g.weight[b]}) : CompareFeerate({g.fee[a], g.adj_weight[a]}, {g.fee[b], g.adj_weight[b]});
        if (cmp != 0) return cmp < 0;
        return g.rank[a] > g.rank[b];
    };
    std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(after)> ready(after);
    std::vector<uint32_t> left(txs.size());
    for (uint32_t k = 0; k < txs.size(); ++k) {
        left[k] = static_cast<uint32_t>(g.Parents(txs[k]).size());
        if (left[k] == 0) ready.push(txs[k]);
    }
    size_t w = 0;
    while (!ready.empty()) {
        const uint32_t t = ready.top();
        ready.pop();
        out[w++] = t;
        for (uint32_t c : g.Children(t)) {
            if (--left[cl.local[c]] == 0) ready.push(c);
        }
    }
}

}  // namespace

/** Per-thread reusable state, so clusters do not allocate. */
struct Workers {
    Workspace<1> ws1;
    Workspace<2> ws2;
    Workspace<4> ws4;
    Workspace<8> ws8;
};

/** Calls `f` with the narrowest workspace whose bitsets hold `k` transactions (k <= 512).
 *  Complexity: O(1) besides `f`. */
template <typename F>
RunResult WithWorkspace(Workers& w, uint32_t k, F&& f)
{
    if (k <= 64) return f(w.ws1);
    if (k <= 128) return f(w.ws2);
    if (k <= 256) return f(w.ws4);
    return f(w.ws8);
}

struct ClusterLinearizer::State {
    const Graph& g;
    const Clusters& cl;
    const Options& o;
    Linearization res;
    std::vector<uint32_t> warm_pos;
    std::span<const uint8_t> warm_reuse;
    std::vector<uint8_t> reused;  // per cluster
    std::atomic<uint32_t> next{0};
    Workers finish_workers;  // used by Finish on the caller's thread
    ClusterLinearizer::OnCluster on_cluster;
    State(const Graph& graph, const Clusters& clusters, const Options& options) : g(graph), cl(clusters), o(options) {}
};

ClusterLinearizer::ClusterLinearizer(const Graph& g, const Clusters& cl, const Options& o, std::span<const uint32_t> warm_order,
                                     OnCluster on_cluster, std::span<const uint8_t> warm_reuse)
    : m_state(std::make_unique<State>(g, cl, o))
{
    m_state->on_cluster = std::move(on_cluster);
    if (!warm_order.empty() && warm_reuse.size() == g.n) {
        m_state->warm_reuse = warm_reuse;
        m_state->reused.assign(cl.count, 0);
    }
    Linearization& res = m_state->res;
    res.lin.resize(g.n);
    res.optimal.assign(cl.count, 0);
    res.cost.assign(cl.count, 0);
    if (!warm_order.empty()) {
        m_state->warm_pos.assign(g.n, UINT32_MAX);
        for (uint32_t k = 0; k < warm_order.size(); ++k) m_state->warm_pos[warm_order[k]] = k;
    }
}

ClusterLinearizer::~ClusterLinearizer() = default;

void ClusterLinearizer::Work()
{
    State& st = *m_state;
    const Graph& g = st.g;
    const Clusters& cl = st.cl;
    const Options& o = st.o;
    Linearization& res = st.res;
    auto w = std::make_unique<Workers>();
    // Every transaction marked unchanged (and placed by the warm order): the cluster is reused.
    auto reusable = [&](std::span<const uint32_t> txs) {
        if (st.warm_reuse.empty()) return false;
        for (uint32_t t : txs) {
            if (st.warm_reuse[t] == 0 || st.warm_pos[t] == UINT32_MAX) return false;
        }
        return true;
    };
    constexpr uint32_t BATCH = 64;
    while (true) {
        const uint32_t first = st.next.fetch_add(BATCH, std::memory_order_relaxed);
        if (first >= cl.count) return;
        const uint32_t last = std::min(cl.count, first + BATCH);
        for (uint32_t c = first; c < last; ++c) {
            const auto txs = cl.Txs(c);
            const uint32_t k = cl.Size(c);
            uint32_t* out = res.lin.data() + cl.offsets[c];
            if (k <= 2 || IsChain(g, txs)) {
                std::copy(txs.begin(), txs.end(), out);  // the unique topological order
                res.optimal[c] = 1;
            } else if (reusable(txs)) {
                // Unchanged since the previous cycle: its order then is final (topological, since
                // neither its members nor their parent links changed).
                std::copy(txs.begin(), txs.end(), out);
                std::sort(out, out + k, [&](uint32_t a, uint32_t b) { return st.warm_pos[a] < st.warm_pos[b]; });
                res.optimal[c] = 1;
                for (uint32_t t : txs) res.optimal[c] &= static_cast<uint8_t>(st.warm_reuse[t] == 1);
                st.reused[c] = 1;
            } else {
                const uint64_t seed = MixSeed(o.seed, g.rank[txs[0]]);
                RunResult r{false, 0};
                if (k <= 512) {
                    r = WithWorkspace(*w, k, [&](auto& ws) { return LinearizeWith(ws, g, cl, txs, o.linearize_budget, seed, st.warm_pos, out); });
                } else {
                    GreedyTopological(g, cl, txs, out);
                }
                res.optimal[c] = r.optimal;
                res.cost[c] = r.cost;
            }
            if (st.on_cluster) st.on_cluster(c, {out, k});
        }
    }
}

Linearization ClusterLinearizer::Finish()
{
    State& st = *m_state;
    const Graph& g = st.g;
    const Clusters& cl = st.cl;
    const Options& o = st.o;
    Linearization& res = st.res;
    Workers& w = st.finish_workers;
    std::vector<uint32_t> retry;
    for (uint32_t c = 0; c < cl.count; ++c) {
        const uint32_t k = cl.Size(c);
        res.largest = std::max(res.largest, k);
        if (k > 64) ++res.over64_count;
        if (!st.reused.empty() && st.reused[c]) {
            ++res.reused_count;  // had its second chance in the cycle that produced it
            continue;
        }
        if (!res.optimal[c] && k <= 512) retry.push_back(c);
    }
    // Second chance for clusters SFL did not finish, warm-started from their current order.
    uint64_t extra = o.linearize_extra_budget;
    const uint64_t per_cluster = std::max<uint64_t>(o.linearize_budget, 1) * 10;
    for (uint32_t c : retry) {
        if (extra == 0) break;
        const uint64_t budget = std::min(extra, per_cluster);
        const auto txs = cl.Txs(c);
        const uint32_t k = cl.Size(c);
        uint32_t* out = res.lin.data() + cl.offsets[c];
        const uint64_t seed = MixSeed(o.seed + 1, g.rank[txs[0]]);
        const RunResult r = WithWorkspace(w, k, [&](auto& ws) { return RelinearizeWith(ws, g, cl, txs, budget, seed, out); });
        res.optimal[c] = r.optimal;
        res.cost[c] += r.cost;
        extra -= std::min(extra, r.cost);
        if (st.on_cluster) st.on_cluster(c, {out, k});
    }
    for (uint32_t c = 0; c < cl.count; ++c) {
        res.optimal_count += res.optimal[c];
        res.total_cost += res.cost[c];
    }
    return std::move(res);
}

Linearization LinearizeClusters(const Graph& g, const Clusters& cl, const Options& o, std::span<const uint32_t> warm_order)
{
    ClusterLinearizer lz(g, cl, o, warm_order);
    lz.Work();
    return lz.Finish();
}

uint32_t RelinearizeByRealWeight(const Graph& g, const Clusters& cl, const Options& o, std::span<const uint8_t> which,
                                 Linearization& lin, bool parallel)
{
    // These clusters are few (sigop-heavy ones); each gets ten times the usual budget, and those
    // still not optimal share the extra budget, so the bound stays exact wherever it can. A
    // cluster's first run depends only on the cluster, so the first runs can go in any order (two
    // threads: each half of the clusters); the extra budget then goes in cluster order, as one
    // pass in cluster order would give it.
    const uint64_t first = std::max<uint64_t>(o.linearize_budget, 1) * 10;
    std::vector<uint64_t> cost(cl.count, 0);  // of the first run
    std::vector<uint8_t> ran(cl.count, 0);    // the first run was SFL (not a path without it)
    auto first_runs = [&](uint32_t c_begin, uint32_t c_end) {
        auto w = std::make_unique<Workers>();
        for (uint32_t c = c_begin; c < c_end; ++c) {
            if (!which[c]) continue;
            const auto txs = cl.Txs(c);
            const uint32_t k = cl.Size(c);
            uint32_t* out = lin.lin.data() + cl.offsets[c];
            if (k <= 2 || IsChain(g, txs)) {
                std::copy(txs.begin(), txs.end(), out);
                lin.optimal[c] = 1;
                continue;
            }
            if (k > 512) {
                GreedyTopological(g, cl, txs, out, true);
                lin.optimal[c] = 0;
                continue;
            }
            const uint64_t seed = MixSeed(o.seed + 2, g.rank[txs[0]]);
            const RunResult r = WithWorkspace(*w, k, [&](auto& ws) { return RelinearizeWith(ws, g, cl, txs, first, seed, out, true); });
            lin.optimal[c] = r.optimal;
            cost[c] = r.cost;
            ran[c] = 1;
        }
    };
    // Halves of about the same work: by the transactions of the clusters to re-linearize, counted
    // as their first runs' budget grows, by size (the others cost nothing here). Clusters are
    // numbered by their lowest transaction, so the large ones come first: halves by all
    // transactions gave the first thread most of the work.
    auto work = [&](uint32_t c) { return which[c] && cl.Size(c) > 2 ? uint64_t{cl.Size(c)} : uint64_t{0}; };
    uint64_t total = 0;
    for (uint32_t c = 0; c < cl.count; ++c) total += work(c);
    uint32_t mid = 0;
    for (uint64_t acc = 0; mid < cl.count && 2 * acc < total;) acc += work(mid++);
    RunBoth(
        parallel, [&] { first_runs(0, mid); }, [&] { first_runs(mid, cl.count); });

    auto w = std::make_unique<Workers>();
    uint32_t count = 0;
    uint64_t extra = o.linearize_extra_budget;
    for (uint32_t c = 0; c < cl.count; ++c) {
        if (!which[c]) continue;
        ++count;
        if (!ran[c] || lin.optimal[c]) continue;
        const auto txs = cl.Txs(c);
        const uint32_t k = cl.Size(c);
        uint32_t* out = lin.lin.data() + cl.offsets[c];
        const uint64_t seed = MixSeed(o.seed + 2, g.rank[txs[0]]);
        uint64_t spent = cost[c];
        while (extra > 0) {
            const uint64_t budget = std::min(extra, first * 10);
            const RunResult r =
                WithWorkspace(*w, k, [&](auto& ws) { return RelinearizeWith(ws, g, cl, txs, budget, seed + spent, out, true); });
            extra -= std::min(extra, r.cost);
            spent += r.cost;
            lin.optimal[c] = r.optimal;
            if (r.optimal || r.cost == 0) break;
        }
    }
    lin.optimal_count = static_cast<uint32_t>(std::count(lin.optimal.begin(), lin.optimal.end(), uint8_t{1}));
    return count;
}

std::string SanityCheckLinearize(const Graph& g, const Clusters& cl, const Options& o, unsigned every)
{
    Workspace<1> ws;
    for (uint32_t c = 0; c < cl.count; ++c) {
        const auto txs = cl.Txs(c);
        if (txs.size() < 3 || txs.size() > 64) continue;
        BuildClusterGraph(g, cl, txs, ws.graph);
        auto& f = ws.forest;
        f.Init(ws.graph, MixSeed(o.seed, g.rank[txs[0]]));
        f.MakeTopological();
        std::string err = f.SanityCheck();
        unsigned step = 0;
        bool optimized = false;
        if (err.empty()) {
            f.StartOptimizing();
            while (err.empty()) {
                if (!f.OptimizeStep()) {
                    optimized = true;
                    break;
                }
                if (f.Cost() >= o.linearize_budget) break;
                if (++step % every == 0) err = f.SanityCheck();
            }
        }
        if (err.empty() && optimized) {
            f.StartMinimizing();
            while (err.empty() && f.MinimizeStep() && f.Cost() < 2 * o.linearize_budget) {
                if (++step % every == 0) err = f.SanityCheck();
            }
        }
        if (err.empty()) err = f.SanityCheck();
        if (err.empty()) {
            f.GetLinearization(ws.local_lin);
            if (!ws.graph.IsTopological(ws.local_lin)) err = "output is not topological";
        }
        if (!err.empty()) return "cluster " + std::to_string(c) + ": " + err;
    }
    return "";
}

}  // namespace opt
