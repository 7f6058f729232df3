// The cycle orchestration; see optimizer.h.
#include "optimizer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <numeric>
#include <string>
#include <thread>

#include "baseline_v30.h"
#include "baseline_v31.h"

namespace opt {

namespace {

/** A thread joined on destruction, so an exception on the caller's side cannot leave it running. */
struct JoiningThread {
    std::thread thread;
    void Join()
    {
        if (thread.joinable()) thread.join();
    }
    ~JoiningThread() { Join(); }
};

class Stopwatch
{
    using Clock = std::chrono::steady_clock;
    Clock::time_point m_start{Clock::now()};

public:
    /** Milliseconds since the last lap (or construction). */
    double Lap() noexcept
    {
        const auto now = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - m_start).count();
        m_start = now;
        return ms;
    }
};

TemplateLimits LimitsOf(const Options& o)
{
    TemplateLimits lim;
    lim.weight = o.weight_limit - o.coinbase_reserve;
    lim.sigops = o.max_sigop_cost - o.coinbase_sigops;
    lim.tx_count = o.max_tx_count;
    lim.min_rate_sat_kvb = o.min_fee_rate_sat_kvb;
    lim.search_budget = o.tail_search_budget;
    lim.window_pct = o.tail_window_pct;
    return lim;
}

/** The validated input renumbered cluster by cluster (clusters.h), plus the warm-start hint in
 *  internal indices. */
struct Prepared {
    Graph g;
    Clusters cl;
    std::vector<uint32_t> original;  // internal index -> input index
    std::vector<uint32_t> warm;
    std::vector<uint8_t> warm_reuse;  // internal indices (InputView::warm_reuse)
};

Prepared Prepare(const InputView& input, const Options& o, Timings* t)
{
    Stopwatch lap;
    ValidateOptions(o);
    Prepared p;
    {
        const Graph raw = ValidateInput(input);
        if (t) t->validate = lap.Lap();
        p.cl = FindClusters(raw);
        p.g = RenumberByCluster(raw, p.cl, p.original);
    }
    if (!input.warm_order.empty()) {
        std::vector<uint32_t> internal(p.g.n);
        for (uint32_t i = 0; i < p.g.n; ++i) internal[p.original[i]] = i;
        p.warm.reserve(input.warm_order.size());
        for (uint32_t x : input.warm_order) p.warm.push_back(internal[x]);
        if (input.warm_reuse.size() == p.g.n) {
            p.warm_reuse.resize(p.g.n);
            for (uint32_t i = 0; i < p.g.n; ++i) p.warm_reuse[i] = input.warm_reuse[p.original[i]];
        }
    }
    if (t) t->clusters = lap.Lap();
    return p;
}

/** The table by real weight built from Core's (RealFromCore) equals the one built from scratch,
 *  chunk for chunk. "" or the first difference. */
std::string CheckRealTable(const Prepared& p, const Options& o, const Linearization& lin, const ChunkTable& core)
{
    std::vector<uint8_t> affected(p.cl.count, 0);
    for (uint32_t x = 0; x < p.g.n; ++x) affected[p.cl.cluster_of[x]] |= p.g.adj_weight[x] != p.g.weight[x] ? 1 : 0;
    Linearization real_lin = lin;
    RelinearizeByRealWeight(p.g, p.cl, o, affected, real_lin);
    const ChunkTable merged = RealFromCore(p.g, p.cl, core, real_lin, affected);
    ChunkTable scratch = BuildChunks(p.g, p.cl, real_lin, true);
    SortIntoMiningOrder(scratch);
    std::string err = SanityCheck(p.g, merged);
    if (!err.empty()) return "real chunks: " + err;
    if (merged.Count() != scratch.Count()) return "real chunks: count differs from a fresh build";
    for (uint32_t k = 0; k < merged.Count(); ++k) {
        const Chunk &a = merged.chunks[k], &b = scratch.chunks[k];
        if (a.fee != b.fee || a.weight != b.weight || a.adj_weight != b.adj_weight || a.eq_prefix != b.eq_prefix ||
            a.tx_begin != b.tx_begin || a.tx_end != b.tx_end || a.cluster != b.cluster) {
            return "real chunks: chunk " + std::to_string(k) + " differs from a fresh build";
        }
    }
    return "";
}

/** Map a selection's transactions back to input indices. */
void ToInput(Selection& s, const std::vector<uint32_t>& original)
{
    for (uint32_t& x : s.txs) x = original[x];
}

}  // namespace

Result BuildTemplates(const InputView& input, const Options& o)
{
    Result r;
    Stopwatch total, lap;
    Prepared p = Prepare(input, o, &r.timings);
    const Graph& g = p.g;
    const Clusters& cl = p.cl;
    lap.Lap();

    // Two threads (options.threads == 2): both linearize clusters from a shared queue; then the
    // helper builds the v30 baseline (it needs only the graph) while this thread chunks, sorts
    // and builds the v31, optimized and projected templates. Results do not depend on threads.
    // Each cluster is chunked by the thread that linearized it, into its own slots of the table.
    ChunkTable chunks;
    chunks.chunks.resize(g.n);
    chunks.chunk_of.resize(g.n);
    std::vector<uint32_t> chunk_counts(cl.count);
    ClusterLinearizer lz(
        g, cl, o, p.warm, [&](uint32_t c, std::span<const uint32_t> order) {
            const uint32_t base = cl.offsets[c];
            chunk_counts[c] = ChunkCluster(g, c, order, base, chunks.chunks.data() + base);
        },
        p.warm_reuse);
    std::atomic<bool> helper_linearized{false};
    std::exception_ptr helper_error;  // an exception must not escape a thread: rethrown here
    double v30_ms = 0;
    JoiningThread helper;
    if (o.threads >= 2) {
        helper.thread = std::thread([&] {
            try {
                lz.Work();
            } catch (...) {
                helper_error = std::current_exception();
            }
            helper_linearized.store(true, std::memory_order_release);
            if (helper_error || o.skip_v30) return;
            try {
                Stopwatch sw;
                r.v30 = BuildBaselineV30(g, cl, o);
                v30_ms = sw.Lap();
            } catch (...) {
                helper_error = std::current_exception();
            }
        });
    }
    lz.Work();
    if (o.threads >= 2) {
        while (!helper_linearized.load(std::memory_order_acquire)) std::this_thread::yield();
        if (helper_error) {
            helper.Join();
            std::rethrow_exception(helper_error);
        }
    }
    Linearization lin = lz.Finish();
    r.cluster_count = cl.count;
    r.largest = lin.largest;
    r.optimal_count = lin.optimal_count;
    r.over64_count = lin.over64_count;
    r.linearize_cost = lin.total_cost;
    r.reused_count = lin.reused_count;
    r.tx_optimal.resize(g.n);
    for (uint32_t x = 0; x < g.n; ++x) r.tx_optimal[p.original[x]] = lin.optimal[cl.cluster_of[x]];
    r.timings.linearize = lap.Lap();

    chunks.txs = lin.lin;
    AssembleChunks(chunks, cl, chunk_counts);
    SortIntoMiningOrder(chunks);
    std::vector<uint32_t> order(chunks.Count());  // chunk ids are mining positions now
    std::iota(order.begin(), order.end(), 0u);
    r.chunk_count = chunks.Count();
    r.tx_chunk_fee.resize(g.n);
    r.tx_chunk_weight.resize(g.n);
    for (uint32_t x = 0; x < g.n; ++x) {
        const uint32_t k = chunks.chunk_of[x];
        r.tx_chunk_fee[p.original[x]] = static_cast<double>(chunks.chunks[k].fee);
        r.tx_chunk_weight[p.original[x]] = static_cast<uint32_t>(std::min<int64_t>(chunks.chunks[k].adj_weight, UINT32_MAX));
    }
    r.timings.chunk = lap.Lap();

    r.v31 = BuildBaselineV31(chunks, order, cl.count, o);
    double v31_ms = lap.Lap();

    // The optimized template, its projected blocks and the bound follow consensus: real weight,
    // sigop cost as its own limit. Clusters with a sigop-adjusted transaction are re-linearized by
    // real weight and everything is chunked and ordered by real weight; elsewhere the two orders
    // coincide, so without such clusters Core's table is reused as is.
    std::vector<uint8_t> affected(cl.count, 0);
    bool any_affected = false;
    for (uint32_t x = 0; x < g.n; ++x) {
        if (g.adj_weight[x] != g.weight[x]) {
            affected[cl.cluster_of[x]] = 1;
            any_affected = true;
        }
    }
    const ChunkTable* ct = &chunks;
    const Linearization* cl_lin = &lin;
    std::span<const uint32_t> ct_order = order;
    ChunkTable real_chunks;
    Linearization real_lin;
    std::vector<uint32_t> real_order;
    if (any_affected) {
        real_lin.lin = lin.lin;
        real_lin.optimal = lin.optimal;
        r.real_relinearized = RelinearizeByRealWeight(g, cl, o, affected, real_lin);
        real_chunks = RealFromCore(g, cl, chunks, real_lin, affected);
        real_order.resize(real_chunks.Count());
        std::iota(real_order.begin(), real_order.end(), 0u);
        ct = &real_chunks;
        cl_lin = &real_lin;
        ct_order = real_order;
    }
    r.timings.chunk += lap.Lap();

    const TemplateLimits lim = LimitsOf(o);
    r.v31_within_limits = WithinRequestLimits(chunks, r.v31, lim);
    // Block 1 (the optimized template) and the later projected blocks share one builder.
    Projection pr = ProjectBlocks(g, *ct, ct_order, lim, r.v31_within_limits ? &r.v31 : nullptr, &chunks, o.projected_blocks,
                                  o.projected_search_budget);
    r.optimized = std::move(pr.first);
    r.tail = pr.first_stats;
    r.blocks = std::move(pr.blocks);
    r.projected_search_nodes = pr.search_nodes;
    r.tx_block.resize(g.n);
    for (uint32_t x = 0; x < g.n; ++x) r.tx_block[p.original[x]] = pr.tx_block[x];
    r.timings.optimized = pr.first_block_ms;
    r.timings.projected = std::max(0.0, lap.Lap() - pr.first_block_ms);

    r.bound = ComputeUpperBound(g, cl, *cl_lin, *ct, ct_order, BoundLimits{lim.weight, lim.sigops, lim.tx_count, lim.min_rate_sat_kvb},
                                r.optimized.fee);
    if (!r.bound.better.empty()) {
        // The bound's solve found a better template (the optimum, when solved; its parts need not
        // be whole chunks): it becomes block 1, and the projected blocks are built again after it.
        std::vector<uint8_t> keep(g.n, 0);
        for (uint32_t x : r.bound.better) keep[x] = 1;
        const ChunkTable mine = RechunkRemaining(g, *ct, keep);
        Selection sel;
        for (uint32_t k = 0; k < mine.Count(); ++k) sel.AddChunk(mine, k);
        if (sel.fee > r.optimized.fee && WithinRequestLimits(mine, sel, lim)) {
            TemplateLimits no_search = lim;  // block 1 is sel: the search already ran and found less
            no_search.search_budget = 0;
            Projection again = ProjectBlocks(g, *ct, ct_order, no_search, &sel, &mine, o.projected_blocks, o.projected_search_budget);
            r.optimized = std::move(again.first);
            r.tail = again.first_stats;
            r.tail.improved_sat = r.optimized.fee - r.tail.greedy_fee;  // over the greedy pass, as the search reports it
            r.tail.used_incumbent = false;                              // (the v31 template was not used)
            r.blocks = std::move(again.blocks);
            r.projected_search_nodes += again.search_nodes;
            for (uint32_t x = 0; x < g.n; ++x) r.tx_block[p.original[x]] = again.tx_block[x];
        }
        r.bound.better.clear();
    }
    r.timings.bound = lap.Lap();

    if (o.threads >= 2) {
        helper.Join();
        if (helper_error) std::rethrow_exception(helper_error);
    } else if (!o.skip_v30) {
        Stopwatch sw;
        r.v30 = BuildBaselineV30(g, cl, o);
        v30_ms = sw.Lap();
    }
    r.timings.baselines = v31_ms + v30_ms;  // v30 ran on the helper thread, overlapping the phases above
    lap.Lap();

    ToInput(r.optimized, p.original);
    ToInput(r.v31, p.original);
    ToInput(r.v30, p.original);
    r.linearization = std::move(lin.lin);
    for (uint32_t& x : r.linearization) x = p.original[x];
    r.timings.total = total.Lap();
    return r;
}

std::vector<ClusterDetail> InspectClusters(const InputView& input, const Options& o)
{
    const Prepared p = Prepare(input, o, nullptr);
    const Linearization lin = LinearizeClusters(p.g, p.cl, o, p.warm);
    const ChunkTable chunks = BuildChunks(p.g, p.cl, lin);
    std::vector<ClusterDetail> out(p.cl.count);
    for (uint32_t c = 0; c < p.cl.count; ++c) {
        ClusterDetail& d = out[c];
        d.optimal = lin.optimal[c];
        d.cost = lin.cost[c];
        uint32_t last = UINT32_MAX;
        for (uint32_t i = p.cl.offsets[c]; i < p.cl.offsets[c + 1]; ++i) {
            const uint32_t x = lin.lin[i];
            d.txs.push_back(p.original[x]);
            if (chunks.chunk_of[x] != last) {
                d.chunk_sizes.push_back(0);
                last = chunks.chunk_of[x];
            }
            ++d.chunk_sizes.back();
        }
    }
    return out;
}

std::string SelfCheck(const InputView& input, const Options& o, unsigned every)
{
    const Prepared p = Prepare(input, o, nullptr);
    std::string err = SanityCheck(p.g, p.cl);
    if (!err.empty()) return "clusters: " + err;
    err = SanityCheckLinearize(p.g, p.cl, o, std::max(every, 1u));
    if (!err.empty()) return "linearize: " + err;
    const Linearization lin = LinearizeClusters(p.g, p.cl, o, p.warm);
    ChunkTable chunks = BuildChunks(p.g, p.cl, lin);
    SortIntoMiningOrder(chunks);
    err = SanityCheck(p.g, chunks);
    if (!err.empty()) return "chunks: " + err;
    return CheckRealTable(p, o, lin, chunks);
}

}  // namespace opt
