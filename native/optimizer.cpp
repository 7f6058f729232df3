// The cycle orchestration; see optimizer.h.
#include "optimizer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

#include "baseline_v30.h"
#include "baseline_v31.h"
#include "default_init_allocator.h"
#include "parallel.h"

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

}  // namespace

Prepared Prepare(const InputView& input, const Options& o, Timings* t)
{
    Stopwatch lap;
    ValidateOptions(o);
    Prepared p;
    {
        // The clusters need only the input's links: they are found beside the checks and copies
        // (which report errors in ValidateInput's order).
        Graph raw;
        ValidateLengths(input, raw);
        bool found = false;  // single-threaded: from the validated links (no checks to repeat)
        RunBoth(
            o.threads >= 2, [&] { found = o.threads >= 2 && FindClustersOfInput(input, raw.n, p.cl); },
            [&] {
                ValidateColumns(input, raw);
                ValidateLinks(input, raw);
            },
            true);
        if (!found) p.cl = FindClusters(raw);  // the links are valid here (else ValidateLinks threw)
        if (t) t->validate = lap.Lap();
        p.g = RenumberByCluster(raw, p.cl, p.original, o.threads >= 2);  // before the helper starts: a thread of its own
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

namespace {

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

/** One piece of work handed to the helper thread: posted once by this thread, or closed unposted
 *  (an exception on this side); the helper waits until it is decided and runs it if posted. */
struct TaskSlot {
    static constexpr int NONE = 0, POSTED = 1, CLOSED = 2;
    std::function<void()> f;
    std::atomic<int> state{NONE};
    std::atomic<bool> done{false};  // set by the helper once it ran (or skipped) f

    /** On the helper: the slot is finished with. */
    void MarkDone()
    {
        done.store(true, std::memory_order_release);
        done.notify_all();
    }

    void Post(std::function<void()> work)
    {
        f = std::move(work);
        state.store(POSTED, std::memory_order_release);
        state.notify_one();
    }
    void Close()
    {
        int expected = NONE;
        if (state.compare_exchange_strong(expected, CLOSED, std::memory_order_acq_rel)) state.notify_one();
    }
    /** On the helper: wait until decided; true if posted (then f is visible). */
    bool Await()
    {
        state.wait(NONE, std::memory_order_acquire);
        return state.load(std::memory_order_acquire) == POSTED;
    }
};

/** The second thread (options.threads == 2): it linearizes clusters from the shared queue beside
 *  this one (in a cycle from scratch; an incremental one linearizes on this thread alone); then,
 *  when some clusters have sigop-adjusted transactions, re-linearizes them by real weight (the
 *  relin task: it needs only the linearization) while this thread sorts the chunks; then builds
 *  the v30 baseline (it needs only the graph) while this thread sorts and builds block 1; then
 *  runs the side task posted after the linearization (the per-transaction outputs, in the wait for
 *  block 1), then the task posted after block 1 (the upper bound) while this thread builds blocks
 *  2..N. Results do not depend on threads. */
struct Helper {
    JoiningThread thread;
    std::atomic<bool> linearized{false};
    std::exception_ptr error;  // an exception must not escape a thread: rethrown here
    double v30_ms{0};
    TaskSlot relin, side, task;

    /** Never leave the thread waiting for a task (an exception on this side): close, then join. */
    ~Helper() { Stop(); }

    /** relin_expected: a relin task will be posted or its slot closed (else it is not awaited).
     *  share_linearization: the helper takes clusters from the queue too (else only its tasks). */
    void Start(ClusterLinearizer& lz, const Prepared& p, const Options& o, Selection& v30, bool relin_expected, bool share_linearization)
    {
        if (o.threads < 2) return;
        if (!relin_expected) relin.Close();
        thread.thread = std::thread([this, &lz, &p, &o, &v30, share_linearization] {
            try {
                if (share_linearization) lz.Work();
            } catch (...) {
                error = std::current_exception();
            }
            linearized.store(true, std::memory_order_release);
            linearized.notify_one();
            auto run = [this](TaskSlot& slot) {
                try {
                    if (slot.Await() && !error) slot.f();
                } catch (...) {
                    error = std::current_exception();
                }
                slot.MarkDone();  // also when skipped: this thread may wait for it
            };
            run(relin);
            try {
                if (!error && !o.skip_v30) {
                    Stopwatch sw;
                    v30 = BuildBaselineV30(p.g, p.cl, o);
                    v30_ms = sw.Lap();
                }
            } catch (...) {
                error = std::current_exception();
            }
            run(side);
            run(task);
        });
    }
    /** Wait until the relin task is done (rethrow the helper's error); no-op single-threaded. */
    void WaitRelin(const Options& o)
    {
        if (o.threads < 2) return;
        relin.done.wait(false, std::memory_order_acquire);
        if (error) {
            Stop();
            std::rethrow_exception(error);
        }
    }
    /** Wait until the helper's share of the linearization is done; rethrow its error. */
    void WaitLinearized(const Options& o)
    {
        if (o.threads < 2) return;
        linearized.wait(false, std::memory_order_acquire);  // blocks: a spin would take the core the helper may need
        if (error) {
            Stop();
            std::rethrow_exception(error);
        }
    }
    /** Run f on the helper after its v30 baseline (here, now, when single-threaded). */
    static void Post(const Options& o, TaskSlot& slot, std::function<void()> f)
    {
        if (o.threads < 2) {
            f();
            return;
        }
        slot.Post(std::move(f));
    }
    void PostRelin(const Options& o, std::function<void()> f) { Post(o, relin, std::move(f)); }
    void PostSide(const Options& o, std::function<void()> f) { Post(o, side, std::move(f)); }
    void PostTask(const Options& o, std::function<void()> f) { Post(o, task, std::move(f)); }
    /** Close the task slots (those not posted) and join. */
    void Stop()
    {
        relin.Close();
        side.Close();
        task.Close();
        thread.Join();
    }
    /** Join the helper (its v30 baseline is then in v30, its tasks done), or build v30 here when
     *  single-threaded. */
    void Finish(const Prepared& p, const Options& o, Selection& v30)
    {
        if (o.threads >= 2) {
            Stop();
            if (error) std::rethrow_exception(error);
        } else if (!o.skip_v30) {
            Stopwatch sw;
            v30 = BuildBaselineV30(p.g, p.cl, o);
            v30_ms = sw.Lap();
        }
    }
};

/** Per chunk its MiningKey (chunk.h), staged then compacted like the chunks; not zeroed first. */
using SortKeys = std::vector<uint64_t, DefaultInitAllocator<uint64_t>>;

/** Linearize every cluster (with the helper, when there is one) and chunk each as it is done, by
 *  the thread that linearized it, into its own slots of `chunks` (by Core's adjusted weight), and
 *  record each transaction's chunk fee and (adjusted) weight by input index (a cluster chunked
 *  again by the linearizer's second chance is recorded again) and each chunk's sort key (keys,
 *  compacted with the chunks). */
Linearization LinearizeAndChunk(const Prepared& p, const Options& o, Helper& helper, Selection& v30, ChunkTable& chunks, Result& r,
                                bool relin_expected, bool set_chunk_of, SortKeys& keys)
{
    const Graph& g = p.g;
    const Clusters& cl = p.cl;
    chunks.chunks.resize(g.n);
    chunks.chunk_of.resize(g.n);
    keys.resize(g.n);
    r.tx_chunk_fee.resize(g.n);
    r.tx_chunk_weight.resize(g.n);
    std::vector<uint32_t> chunk_counts(cl.count);
    ClusterLinearizer lz(
        g, cl, o, p.warm, [&](uint32_t c, std::span<const uint32_t> order) {
            const uint32_t base = cl.offsets[c];
            Chunk* out = chunks.chunks.data() + base;
            if (order.size() == 1) {  // most clusters (~92 % at 150k): the loops below, for one record
                const Chunk one = out[0] = ChunkOfOne(g, c, order[0], base);
                chunk_counts[c] = 1;
                keys[base] = MiningKey({one.fee, one.adj_weight});
                const uint32_t x = p.original[order[0]];
                r.tx_chunk_fee[x] = static_cast<double>(one.fee);
                r.tx_chunk_weight[x] = static_cast<uint32_t>(std::min<int64_t>(one.adj_weight, UINT32_MAX));
                return;
            }
            const uint32_t count = ChunkCluster(g, c, order, base, out);
            chunk_counts[c] = count;
            for (uint32_t j = 0; j < count; ++j) keys[base + j] = MiningKey({out[j].fee, out[j].adj_weight});  // the sort's
            // Here, beside the linearization and with the chunks in cache, rather than in a
            // serial pass over the whole table afterwards. Input indices are distinct: the two
            // threads never write the same entry.
            for (uint32_t j = 0; j < count; ++j) {
                const auto fee = static_cast<double>(out[j].fee);
                const auto weight = static_cast<uint32_t>(std::min<int64_t>(out[j].adj_weight, UINT32_MAX));
                for (uint32_t i = out[j].tx_begin; i < out[j].tx_end; ++i) {
                    const uint32_t x = p.original[order[i - base]];
                    r.tx_chunk_fee[x] = fee;
                    r.tx_chunk_weight[x] = weight;
                }
            }
        },
        p.warm_reuse);
    // An incremental cycle (reuse marks) re-linearizes only its changed clusters and copies the
    // others: memory-bound work that a second thread slowed down (linearize 7.1-7.3 ms with the
    // helper's share against 6.0-6.2 without, 150k transactions, 1,000 changes per step, the build
    // VM's 2 cores). A cycle from scratch linearizes every cluster: there it shares the queue.
    helper.Start(lz, p, o, v30, relin_expected, p.warm_reuse.empty());
    try {
        lz.Work();
    } catch (...) {
        helper.Stop();  // it may still be using lz
        throw;
    }
    helper.WaitLinearized(o);
    Linearization lin = lz.Finish();
    chunks.txs = lin.lin;
    // The sort into mining order rewrites chunk_of in full; the incremental engine's kept order
    // (chunk_order) reads it first.
    AssembleChunks(chunks, cl, chunk_counts, set_chunk_of, keys.data());
    keys.resize(chunks.Count());
    return lin;
}

void RecordLinearization(const Prepared& p, const Linearization& lin, Result& r)
{
    r.cluster_count = p.cl.count;
    r.largest = lin.largest;
    r.optimal_count = lin.optimal_count;
    r.over64_count = lin.over64_count;
    r.linearize_cost = lin.total_cost;
    r.reused_count = lin.reused_count;
}

/** The per-transaction outputs of the linearization, by input index: the linearization itself
 *  and whether each transaction's cluster order is proven optimal. */
void RecordLinearizationByInput(const Prepared& p, const Linearization& lin, Result& r)
{
    const uint32_t n = p.g.n;
    r.tx_optimal.resize(n);
    for (uint32_t x = 0; x < n; ++x) r.tx_optimal[p.original[x]] = lin.optimal[p.cl.cluster_of[x]];
    r.linearization.resize(n);
    for (uint32_t i = 0; i < n; ++i) r.linearization[i] = p.original[lin.lin[i]];
}

/** The order the optimized template, its projected blocks and the bound follow: consensus, by
 *  real weight with sigop cost as its own limit. Clusters with a sigop-adjusted transaction are
 *  re-linearized by real weight and merged into Core's table (RealFromCore); without such clusters
 *  the two orders coincide and Core's table is used as is. */
struct ConsensusOrder {
    const ChunkTable* core_table;
    const Linearization* core_lin;
    std::span<const uint32_t> core_order;
    std::optional<ChunkTable> real_table;
    Linearization real_lin;
    std::vector<uint32_t> real_order;

    const ChunkTable& Table() const noexcept { return real_table ? *real_table : *core_table; }
    const Linearization& Lin() const noexcept { return real_table ? real_lin : *core_lin; }
    std::span<const uint32_t> Order() const noexcept { return real_table ? std::span<const uint32_t>(real_order) : core_order; }
};

/** Clusters with a sigop-adjusted transaction (their order by real weight may differ); whether any. */
bool FindAffected(const Prepared& p, std::vector<uint8_t>& affected)
{
    affected.assign(p.cl.count, 0);
    bool any = false;
    for (uint32_t x = 0; x < p.g.n; ++x) {
        if (p.g.adj_weight[x] != p.g.weight[x]) {
            affected[p.cl.cluster_of[x]] = 1;
            any = true;
        }
    }
    return any;
}

/** The affected clusters re-linearized by real weight, into co.real_lin (needs only lin). */
void RelinearizeAffected(const Prepared& p, const Options& o, const Linearization& lin, std::span<const uint8_t> affected,
                         ConsensusOrder& co, Result& r)
{
    co.real_lin.lin = lin.lin;
    co.real_lin.optimal = lin.optimal;
    r.real_relinearized = RelinearizeByRealWeight(p.g, p.cl, o, affected, co.real_lin);
}

/** Block 1 and the projected blocks into the result (tx_block by input index). */
void TakeProjection(const Prepared& p, Projection&& pr, Result& r)
{
    r.optimized = std::move(pr.first);
    r.tail = pr.first_stats;
    r.blocks = std::move(pr.blocks);
    r.projected_search_nodes += pr.search_nodes;
    r.tx_block.resize(p.g.n);
    for (uint32_t x = 0; x < p.g.n; ++x) r.tx_block[p.original[x]] = pr.tx_block[x];
}

/** The bound's solve may have found a better template (the optimum, when solved; its parts need
 *  not be whole chunks): it becomes block 1, and the projected blocks are built again after it. */
void AdoptBetterTemplate(const Prepared& p, const Options& o, const ConsensusOrder& co, const TemplateLimits& lim, Result& r)
{
    if (r.bound.better.empty()) return;
    std::vector<uint8_t> keep(p.g.n, 0);
    for (uint32_t x : r.bound.better) keep[x] = 1;
    r.bound.better.clear();
    const ChunkTable mine = RechunkRemaining(p.g, co.Table(), keep);
    Selection sel;
    for (uint32_t k = 0; k < mine.Count(); ++k) sel.AddChunk(mine, k);
    if (sel.fee <= r.optimized.fee || !WithinRequestLimits(co.Table(), sel, lim)) return;
    // Block 1 is sel (the search already ran and found less): blocks 2..N on what remains.
    Projection again = Projector(p.g, co.Table(), lim, std::move(sel), mine, o.projected_blocks, o.projected_search_budget, o.threads >= 2)
                           .BuildRest();
    const TailSearchStats searched = r.tail;  // the search that ran (nodes, window, completeness)
    TakeProjection(p, std::move(again), r);
    r.tail = searched;
    r.tail.improved_sat = r.optimized.fee - r.tail.greedy_fee;  // over the greedy pass, as the search reports it
    r.tail.used_incumbent = false;                              // (the v31 template was not used)
    r.tail.used_bound = true;
}

/** Map a selection's transactions back to input indices. */
void ToInput(Selection& s, const std::vector<uint32_t>& original)
{
    for (uint32_t& x : s.txs) x = original[x];
}

}  // namespace

Result BuildTemplates(const InputView& input, const Options& o)
{
    Stopwatch sw;
    Timings t;
    const Prepared p = Prepare(input, o, &t);
    t.total = sw.Lap();  // the preparation's share, added to the total below
    return BuildPrepared(p, o, t);
}

Result BuildPrepared(const Prepared& p, const Options& o, const Timings& timings, ChunkOrderMemo* chunk_order)
{
    Result r;
    r.timings = timings;
    Stopwatch total, lap;
    // Before the helper: its relin and side tasks use these until it is joined.
    Linearization lin;
    std::vector<uint8_t> affected;
    const bool any_affected = FindAffected(p, affected);
    ConsensusOrder co{nullptr, &lin, {}, std::nullopt, {}, {}};
    Helper helper;
    ChunkTable chunks;
    SortKeys keys;
    lin = LinearizeAndChunk(p, o, helper, r.v30, chunks, r, any_affected, chunk_order != nullptr, keys);
    RecordLinearization(p, lin, r);
    r.chunk_count = chunks.Count();
    // The order by real weight needs only the linearization: the helper re-linearizes while this
    // thread sorts. The per-transaction outputs of the linearization: the helper has time for
    // them while this thread builds block 1 (lin is only read from here on).
    if (any_affected) helper.PostRelin(o, [&p, &o, &lin, &affected, &co, &r] { RelinearizeAffected(p, o, lin, affected, co, r); });
    helper.PostSide(o, [&p, &lin, &r] { RecordLinearizationByInput(p, lin, r); });
    r.timings.linearize = lap.Lap();

    if (chunk_order) {
        // One thread for the incremental sort's permutation too (3.7-3.8 ms on two threads against
        // 3.1 on one, measured as above): a short-lived thread's start and two memory-bound halves.
        r.kept_chunks = chunk_order->Sort(chunks, p.cl, o.threads >= 2 && p.warm_reuse.empty());
    } else {
        SortIntoMiningOrder(chunks, keys, o.threads >= 2);
    }
    r.timings.chunk = lap.Lap();

    std::vector<uint32_t> order(chunks.Count());  // chunk ids are mining positions now
    std::iota(order.begin(), order.end(), 0u);
    r.v31 = BuildBaselineV31(chunks, order, p.cl.count, o);
    const double v31_ms = lap.Lap();

    // The order the optimized template, its projected blocks and the bound follow (ConsensusOrder).
    co.core_table = &chunks;
    co.core_order = order;
    if (any_affected) {
        helper.WaitRelin(o);
        co.real_table = RealFromCore(p.g, p.cl, chunks, co.real_lin, affected);
        co.real_order.resize(co.real_table->Count());
        std::iota(co.real_order.begin(), co.real_order.end(), 0u);
    }
    r.timings.chunk += lap.Lap();

    const TemplateLimits lim = LimitsOf(o);
    r.v31_within_limits = WithinRequestLimits(co.Table(), r.v31, lim);  // v31's txs, judged by the bound's chunks
    // Block 1 (the optimized template) and the later projected blocks share one builder. The
    // bound needs only block 1's fee: the helper computes it while this thread builds blocks 2..N.
    // Its construction on two threads: the helper is usually done with v30 by now, and waits.
    {
        // Scoped: the builder's columns are freed before a better template is adopted below,
        // which builds another (memory reused instead of touched afresh).
        Projector projector(p.g, co.Table(), co.Order(), lim, r.v31_within_limits ? &r.v31 : nullptr, &chunks, o.projected_blocks,
                            o.projected_search_budget, o.threads >= 2);
        const int64_t first_fee = projector.BuildFirst().fee;
        helper.PostTask(o, [&p, &co, &lim, &r, first_fee] {
            Stopwatch sw;
            r.bound = ComputeUpperBound(p.g, p.cl, co.Lin(), co.Table(), co.Order(),
                                        BoundLimits{lim.weight, lim.sigops, lim.tx_count, lim.min_rate_sat_kvb}, first_fee);
            r.timings.bound = sw.Lap();
        });
        try {
            Projection pr = projector.BuildRest();
            r.timings.optimized = pr.first_block_ms;
            TakeProjection(p, std::move(pr), r);
            const double inline_bound_ms = o.threads < 2 ? r.timings.bound : 0.0;  // the task ran on this thread
            r.timings.projected = std::max(0.0, lap.Lap() - r.timings.optimized - inline_bound_ms);
            helper.Finish(p, o, r.v30);
        } catch (...) {
            helper.Stop();  // its task reads co, declared after it
            throw;
        }
    }
    r.timings.baselines = v31_ms + helper.v30_ms;  // v30 ran on the helper thread, overlapping the phases above
    lap.Lap();
    AdoptBetterTemplate(p, o, co, lim, r);
    r.timings.bound += lap.Lap();

    ToInput(r.optimized, p.original);
    ToInput(r.v31, p.original);
    ToInput(r.v30, p.original);
    r.timings.total += total.Lap();
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
