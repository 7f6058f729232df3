// Spanning-forest linearization (SFL), the cluster linearizer of Bitcoin Core v31
// (src/cluster_linearize.h, SpanningForestState), re-implemented on BitSet<W>.
//
// State. Every (transitively reduced) parent->child dependency of the cluster is active or not.
// Active dependencies never form an undirected cycle, so they form a spanning forest; each tree
// is a chunk. For every active dependency we cache its top set: the part of its chunk on the
// parent's side if it were deactivated. Set indices 0..n-1 name either a chunk or a top set (a
// chunk of k txs has k-1 active dependencies, so n indices always suffice).
//
// Quality levels of a state (Core's terms): topological (no inactive dependency from a chunk to a
// chunk of higher or equal fee rate), optimal (topological, and no active dependency whose top set
// has a strictly higher fee rate than its chunk), minimal (optimal, and no chunk splits into
// equal-rate parts). An optimal state's chunks form an optimal linearization (best feerate
// diagram); a minimal state's chunks are the finest such.
//
// Algorithm:
// - start from singletons; merge chunks until topological (or load an old linearization by
//   merging each transaction's chunk upwards, which is at least as good as that linearization);
// - improve: pick a chunk (round-robin queue, randomly seeded), deactivate a random dependency
//   whose top set has a higher rate than the chunk; the chunk splits into top T and bottom B.
//   If T depends on B they merge straight back ("self-merge"); otherwise T merges upwards with
//   the lowest-rate chunk it depends on among those not above it, repeatedly, and B downwards
//   with the highest-rate chunk depending on it among those not below it. A split without
//   self-merge strictly raises the diagram;
// - minimize: split equal-rate chunks by pretending a pivot transaction is slightly better
//   (then slightly worse), reusing the same split/self-merge machinery;
// - output chunks by topology, rate (high first), size (small first), max fallback rank (low
//   first); inside a chunk by topology, rate, size, fallback rank.
// Work is charged in Core's cost units (SFLDefaultCostModel, calibrated Feb 2026: one unit is
// 0.5-2.5 ns); the caller stops when the budget is spent and gets optimal=false.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cluster_graph.h"

namespace opt {

/** Core's SFLDefaultCostModel coefficients (src/cluster_linearize.h). */
struct SflCost {
    uint64_t cost{0};
    void Init(uint64_t txs, uint64_t deps) noexcept { cost += 39 * txs + 48 * txs + 4 * deps; }
    void MakeTopological(uint64_t chunks, uint64_t steps) noexcept { cost += 20 * chunks + 28 * steps; }
    void StartOptimizing(uint64_t chunks) noexcept { cost += 13 * chunks; }
    void Activate(uint64_t deps) noexcept { cost += 10 * deps + 1; }
    void Deactivate(uint64_t deps) noexcept { cost += 11 * deps + 8; }
    void MergeMid(uint64_t txs) noexcept { cost += 2 * txs; }
    void MergeEnd(uint64_t steps) noexcept { cost += 3 * steps + 5; }
    void PickMerge(uint64_t steps) noexcept { cost += 8 * steps; }
    void PickChunk(uint64_t steps) noexcept { cost += steps + 4; }
    void PickDep(uint64_t txs) noexcept { cost += 8 * txs + 9; }
    void StartMinimizing(uint64_t chunks) noexcept { cost += 18 * chunks; }
    void MinimizeMid(uint64_t txs) noexcept { cost += 11 * txs + 11; }
    void MinimizeEnd(bool split) noexcept { cost += 17 * uint64_t{split} + 7; }
};

/** Fixed-capacity FIFO (capacity set by Reset, never exceeded by the callers below). */
template <typename T>
class RingQueue
{
    std::vector<T> m_buf;
    size_t m_head{0}, m_count{0};

public:
    void Reset(size_t capacity)
    {
        m_buf.resize(std::max<size_t>(capacity, 1));
        m_head = m_count = 0;
    }
    bool Empty() const noexcept { return m_count == 0; }
    size_t Size() const noexcept { return m_count; }
    T& operator[](size_t i) noexcept { return m_buf[(m_head + i) % m_buf.size()]; }
    const T& operator[](size_t i) const noexcept { return m_buf[(m_head + i) % m_buf.size()]; }
    void PushBack(const T& v) noexcept
    {
        OPT_ASSUME(m_count < m_buf.size());
        m_buf[(m_head + m_count++) % m_buf.size()] = v;
    }
    T PopFront() noexcept
    {
        T v = m_buf[m_head];
        m_head = (m_head + 1) % m_buf.size();
        --m_count;
        return v;
    }
};

template <typename S>
class SpanningForest
{
public:
    using SetIdx = std::conditional_t<(S::SIZE <= 255), uint8_t, uint16_t>;
    static constexpr SetIdx NO_SET = SetIdx(-1);
    static constexpr uint32_t NO_TX = UINT32_MAX;

private:
    struct TxData {
        S parents;          // reduced parents (immutable after Init)
        S children;         // reduced children (immutable after Init)
        S active_children;  // children reached through an active dependency
        SetIdx chunk;
        std::array<SetIdx, S::SIZE> top;  // top set index per active child
    };
    struct SetData {
        S txs;
        FeeFrac fr;
    };
    struct MinEntry {
        SetIdx chunk;
        uint16_t pivot;
        uint8_t flags;  // bit 1: moving the pivot down; bit 2: second stage
    };

    const ClusterGraph<S>* m_g{nullptr};
    Rng m_rng{0};
    std::vector<TxData> m_tx;
    std::vector<SetData> m_set;
    std::vector<S> m_up;    // per chunk: out-of-chunk reduced parents of its txs
    std::vector<S> m_down;  // per chunk: out-of-chunk reduced children of its txs
    S m_chunks;             // which set indices are chunks (the rest are top sets)
    S m_queued;             // which set indices are in m_queue
    RingQueue<SetIdx> m_queue;
    RingQueue<MinEntry> m_minq;
    SflCost m_cost;

    uint32_t RandomTx(const S& set) noexcept
    {
        auto skip = m_rng.Range(set.Count());
        for (unsigned t : set) {
            if (skip-- == 0) return t;
        }
        return NO_TX;
    }

    void Enqueue(SetIdx chunk) noexcept
    {
        if (!m_queued[chunk]) {
            m_queued.Set(chunk);
            m_queue.PushBack(chunk);
        }
    }

    /** Make the inactive dependency p->c active, merging c's chunk (bottom) with p's chunk (top).
     *  Returns the merged chunk (it keeps the bottom's index; the top's index becomes the new
     *  dependency's top set). Complexity: O(k) for a merged chunk of k txs.
     *
     *    A           A      Activating E->C merges ABC and DEF. Every active dependency whose top
     *   / \         / \     set holds the parent C (B->A: AC) gains the whole bottom chunk
     *  B   C       B   C    (-> ACDEF); every one whose top set holds the child E (F->E: E)
     *      :  ==>      |    gains the whole top chunk (-> ABCE). C->A (AB) and F->D (D) hold
     *  D   E       D   E    neither and keep their top sets.
     *   \ /         \ /
     *    F           F
     */
    SetIdx Activate(uint32_t p, uint32_t c) noexcept
    {
        const SetIdx top = m_tx[p].chunk, bot = m_tx[c].chunk;
        OPT_ASSUME(top != bot && m_chunks[top] && m_chunks[bot]);
        const SetData top_set = m_set[top], bot_set = m_set[bot];
        for (unsigned t : top_set.txs) {
            TxData& d = m_tx[t];
            d.chunk = bot;
            for (unsigned ch : d.active_children) {
                SetData& s = m_set[d.top[ch]];
                if (s.txs[p]) {
                    s.txs |= bot_set.txs;
                    s.fr += bot_set.fr;
                }
            }
        }
        for (unsigned t : bot_set.txs) {
            const TxData& d = m_tx[t];
            for (unsigned ch : d.active_children) {
                SetData& s = m_set[d.top[ch]];
                if (s.txs[c]) {
                    s.txs |= top_set.txs;
                    s.fr += top_set.fr;
                }
            }
        }
        m_set[bot].txs |= top_set.txs;
        m_set[bot].fr += top_set.fr;
        m_up[bot] = (m_up[bot] | m_up[top]) - m_set[bot].txs;
        m_down[bot] = (m_down[bot] | m_down[top]) - m_set[bot].txs;
        m_tx[p].top[c] = top;
        m_tx[p].active_children.Set(c);
        m_chunks.Reset(top);
        m_cost.Activate(m_set[bot].txs.Count() - 1);
        return bot;
    }

    /** Make the active dependency p->c inactive, splitting its chunk into top (with p, keeping the
     *  dependency's top set index) and bottom (with c, keeping the chunk's index).
     *  Complexity: O(k). */
    std::pair<SetIdx, SetIdx> Deactivate(uint32_t p, uint32_t c) noexcept
    {
        const SetIdx top = m_tx[p].top[c], bot = m_tx[p].chunk;
        OPT_ASSUME(m_tx[p].active_children[c] && m_chunks[bot] && !m_chunks[top]);
        const auto k = m_set[bot].txs.Count();
        m_tx[p].active_children.Reset(c);
        m_chunks.Set(top);
        m_set[bot].txs -= m_set[top].txs;
        m_set[bot].fr -= m_set[top].fr;
        const SetData top_set = m_set[top], bot_set = m_set[bot];
        S up, down;
        for (unsigned t : top_set.txs) {
            TxData& d = m_tx[t];
            d.chunk = top;
            up |= d.parents;
            down |= d.children;
            for (unsigned ch : d.active_children) {
                SetData& s = m_set[d.top[ch]];
                if (s.txs[p]) {
                    s.txs -= bot_set.txs;
                    s.fr -= bot_set.fr;
                }
            }
        }
        m_up[top] = up - top_set.txs;
        m_down[top] = down - top_set.txs;
        up = down = S{};
        for (unsigned t : bot_set.txs) {
            const TxData& d = m_tx[t];
            up |= d.parents;
            down |= d.children;
            for (unsigned ch : d.active_children) {
                SetData& s = m_set[d.top[ch]];
                if (s.txs[c]) {
                    s.txs -= top_set.txs;
                    s.fr -= top_set.fr;
                }
            }
        }
        m_up[bot] = up - bot_set.txs;
        m_down[bot] = down - bot_set.txs;
        m_cost.Deactivate(k - 1);
        return {top, bot};
    }

    /** Activate a uniformly random dependency from chunk top to chunk bottom (one must exist). */
    SetIdx MergeChunks(SetIdx top, SetIdx bottom) noexcept
    {
        const S& bot_txs = m_set[bottom].txs;
        unsigned total = 0;
        for (unsigned t : m_set[top].txs) total += (m_tx[t].children & bot_txs).Count();
        m_cost.MergeMid(m_set[top].txs.Count());
        OPT_ASSUME(total > 0);
        auto pick = m_rng.Range(total);
        unsigned steps = 0;
        for (unsigned t : m_set[top].txs) {
            ++steps;
            for (unsigned c : m_tx[t].children& bot_txs) {
                if (pick-- == 0) {
                    m_cost.MergeEnd(steps);
                    return Activate(t, c);
                }
            }
        }
        return NO_SET;
    }

    /** The chunk to merge with: upwards, the lowest-rate chunk this one depends on among those
     *  with a rate <= its own; downwards, the highest-rate dependent chunk among those >= its own.
     *  Ties are broken uniformly at random. NO_SET if none. */
    template <bool DOWN>
    SetIdx PickMergeCandidate(SetIdx chunk) noexcept
    {
        FeeFrac best_fr = m_set[chunk].fr;
        SetIdx best = NO_SET;
        uint64_t best_tiebreak = 0;
        S todo = DOWN ? m_down[chunk] : m_up[chunk];
        unsigned steps = 0;
        while (todo.Any()) {
            ++steps;
            const SetIdx other = m_tx[todo.First()].chunk;
            todo -= m_set[other].txs;
            const int cmp = DOWN ? CompareFeerate(best_fr, m_set[other].fr) : CompareFeerate(m_set[other].fr, best_fr);
            if (cmp > 0) continue;
            const uint64_t tiebreak = m_rng.Next();
            if (cmp < 0 || tiebreak >= best_tiebreak) {
                best_fr = m_set[other].fr;
                best = other;
                best_tiebreak = tiebreak;
            }
        }
        m_cost.PickMerge(steps);
        return best;
    }

    template <bool DOWN>
    SetIdx MergeStep(SetIdx chunk) noexcept
    {
        const SetIdx other = PickMergeCandidate<DOWN>(chunk);
        if (other == NO_SET) return NO_SET;
        return DOWN ? MergeChunks(chunk, other) : MergeChunks(other, chunk);
    }

    template <bool DOWN>
    void MergeSequence(SetIdx chunk) noexcept
    {
        while (true) {
            const SetIdx merged = MergeStep<DOWN>(chunk);
            if (merged == NO_SET) break;
            chunk = merged;
        }
        Enqueue(chunk);
    }

    /** Split at p->c, then restore topology with merges (see the file comment). */
    void Improve(uint32_t p, uint32_t c) noexcept
    {
        const auto [top, bot] = Deactivate(p, c);
        if (m_up[top].Overlaps(m_set[bot].txs)) {
            // The top depends on the bottom: merge back through another dependency (self-merge).
            Enqueue(MergeChunks(bot, top));
        } else {
            MergeSequence<false>(top);
            MergeSequence<true>(bot);
        }
    }

public:
    /** Start with every transaction its own chunk (not yet topological). Complexity: O(n^2/64). */
    void Init(const ClusterGraph<S>& g, uint64_t seed)
    {
        m_g = &g;
        m_rng.Seed(seed);
        m_cost = SflCost{};
        const unsigned n = g.n;
        m_tx.resize(n);
        m_set.resize(n);
        m_up.resize(n);
        m_down.resize(n);
        unsigned deps = 0;
        for (unsigned i = 0; i < n; ++i) {
            m_tx[i].parents = g.ReducedParents(i);
            m_tx[i].children = S{};
            m_tx[i].active_children = S{};
            m_tx[i].chunk = static_cast<SetIdx>(i);
            deps += m_tx[i].parents.Count();
        }
        for (unsigned i = 0; i < n; ++i) {
            for (unsigned p : m_tx[i].parents) m_tx[p].children.Set(i);
        }
        for (unsigned i = 0; i < n; ++i) {
            m_set[i] = SetData{S::Singleton(i), g.feerate[i]};
            m_up[i] = m_tx[i].parents;
            m_down[i] = m_tx[i].children;
        }
        m_chunks = S::Fill(n);
        m_queued = S{};
        m_queue.Reset(n);
        m_minq.Reset(n);
        m_cost.Init(n, deps);
    }

    /** Merge each transaction's chunk upwards in the order of old_lin (topological, complete).
     *  The state is then topological and at least as good as old_lin. */
    void LoadLinearization(std::span<const uint32_t> old_lin) noexcept;

    /** Merge until topological. Every chunk is tried in one random direction, merged chunks in
     *  both; a violating dependency is seen from at least one of its two sides. */
    void MakeTopological() noexcept;

    /** Queue every chunk for improvement in random order. Requires a topological state. */
    void StartOptimizing() noexcept;

    /** One improvement step. Returns false once the state is optimal. */
    bool OptimizeStep() noexcept;

    /** Queue every chunk with a random pivot and direction. Requires an optimal state. */
    void StartMinimizing() noexcept;

    /** One minimization step. Returns false once every chunk is minimal. */
    bool MinimizeStep() noexcept;

    /** Output the linearization (state must be topological). See the file comment for the
     *  order. Complexity: O(n log n + n * W). */
    void GetLinearization(std::vector<uint32_t>& out) const;

    uint64_t Cost() const noexcept { return m_cost.cost; }

    /** Recompute every cached structure from the active dependencies and compare.
     *  Returns "" or the first mismatch. Complexity: O(n^3 / 64). Debug and tests only. */
    std::string SanityCheck() const;
};

}  // namespace opt

#include "sfl_impl.h"
