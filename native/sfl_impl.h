// Out-of-class members of SpanningForest<S> (sfl.h): the load/merge/optimize/minimize steps,
// output, and the sanity check. See sfl.h for the algorithm and the invariants.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "sfl.h"

namespace opt {

template <typename S>
void SpanningForest<S>::LoadLinearization(std::span<const uint32_t> old_lin) noexcept
{
    for (uint32_t t : old_lin) {
        SetIdx chunk = m_tx[t].chunk;
        while (true) {
            const SetIdx merged = MergeStep<false>(chunk);
            if (merged == NO_SET) break;
            chunk = merged;
        }
    }
}

template <typename S>
void SpanningForest<S>::MakeTopological() noexcept
{
    const unsigned init_dir = m_rng.Bool() ? 1 : 2;
    S merged;
    unsigned chunks = 0, steps = 0;
    for (unsigned ch : m_chunks) {
        ++chunks;
        m_queued.Set(ch);
        m_queue.PushBack(static_cast<SetIdx>(ch));
        const auto j = m_rng.Range(m_queue.Size());
        std::swap(m_queue[m_queue.Size() - 1], m_queue[j]);
    }
    while (!m_queue.Empty()) {
        ++steps;
        const SetIdx chunk = m_queue.PopFront();
        m_queued.Reset(chunk);
        if (!m_chunks[chunk]) continue;
        const unsigned dirs = merged[chunk] ? 3 : init_dir;
        const bool down_first = m_rng.Bool();
        for (int k = 0; k < 2; ++k) {
            const bool down = (k == 0) == down_first;
            if (!(dirs & (down ? 2 : 1))) continue;
            const SetIdx result = down ? MergeStep<true>(chunk) : MergeStep<false>(chunk);
            if (result != NO_SET) {
                Enqueue(result);
                merged.Set(result);
                break;
            }
        }
    }
    m_cost.MakeTopological(chunks, steps);
}

template <typename S>
void SpanningForest<S>::StartOptimizing() noexcept
{
    for (unsigned ch : m_chunks) {
        m_queued.Set(ch);
        m_queue.PushBack(static_cast<SetIdx>(ch));
        const auto j = m_rng.Range(m_queue.Size());
        std::swap(m_queue[m_queue.Size() - 1], m_queue[j]);
    }
    m_cost.StartOptimizing(m_queue.Size());
}

template <typename S>
bool SpanningForest<S>::OptimizeStep() noexcept
{
    SetIdx chunk = NO_SET;
    unsigned steps = 0;
    while (!m_queue.Empty()) {
        ++steps;
        const SetIdx c = m_queue.PopFront();
        m_queued.Reset(c);
        if (m_chunks[c]) {
            chunk = c;
            break;
        }
    }
    m_cost.PickChunk(steps);
    if (chunk == NO_SET) return false;
    // A uniformly random active dependency whose top set beats the chunk's rate.
    const SetData& cs = m_set[chunk];
    uint32_t best_p = NO_TX, best_c = NO_TX;
    uint64_t best_tiebreak = 0;
    for (unsigned t : cs.txs) {
        for (unsigned ch : m_tx[t].active_children) {
            if (CompareFeerate(m_set[m_tx[t].top[ch]].fr, cs.fr) <= 0) continue;
            const uint64_t tiebreak = m_rng.Next();
            if (tiebreak < best_tiebreak) continue;
            best_p = t;
            best_c = ch;
            best_tiebreak = tiebreak;
        }
    }
    m_cost.PickDep(cs.txs.Count());
    if (best_p == NO_TX) return !m_queue.Empty();
    Improve(best_p, best_c);
    return true;
}

template <typename S>
void SpanningForest<S>::StartMinimizing() noexcept
{
    for (unsigned ch : m_chunks) {
        const uint32_t pivot = RandomTx(m_set[ch].txs);
        m_minq.PushBack(MinEntry{static_cast<SetIdx>(ch), static_cast<uint16_t>(pivot), static_cast<uint8_t>(m_rng.Bool())});
        const auto j = m_rng.Range(m_minq.Size());
        std::swap(m_minq[m_minq.Size() - 1], m_minq[j]);
    }
    m_cost.StartMinimizing(m_minq.Size());
}

template <typename S>
bool SpanningForest<S>::MinimizeStep() noexcept
{
    if (m_minq.Empty()) return false;
    MinEntry e = m_minq.PopFront();
    const SetData& cs = m_set[e.chunk];
    const bool pivot_down = e.flags & 1;
    const bool second_stage = e.flags & 2;
    // Among dependencies with top rate equal to the chunk's (none can be higher), find a random
    // one with the pivot on the wanted side.
    uint32_t best_p = NO_TX, best_c = NO_TX;
    uint64_t best_tiebreak = 0;
    bool any_equal = false;
    for (unsigned t : cs.txs) {
        for (unsigned ch : m_tx[t].active_children) {
            const SetData& top = m_set[m_tx[t].top[ch]];
            if (CompareFeerate(top.fr, cs.fr) < 0) continue;
            any_equal = true;
            if (pivot_down == top.txs[e.pivot]) continue;
            const uint64_t tiebreak = m_rng.Next() | 1;
            if (tiebreak > best_tiebreak) {
                best_tiebreak = tiebreak;
                best_p = t;
                best_c = ch;
            }
        }
    }
    m_cost.MinimizeMid(cs.txs.Count());
    if (!any_equal) return true;  // minimal
    if (best_p == NO_TX) {
        // Try the other direction once.
        e.flags ^= 3;
        if (!second_stage) m_minq.PushBack(e);
        return true;
    }
    const auto [top, bot] = Deactivate(best_p, best_c);
    if (m_up[top].Overlaps(m_set[bot].txs)) {
        const SetIdx merged = MergeChunks(bot, top);
        m_minq.PushBack(MinEntry{merged, e.pivot, e.flags});
        m_cost.MinimizeEnd(false);
    } else {
        // Split found. The part with the pivot keeps its direction and stage; the other part
        // gets a fresh random pivot.
        const SetIdx keep = pivot_down ? bot : top;
        const SetIdx fresh = pivot_down ? top : bot;
        const uint32_t fresh_pivot = RandomTx(m_set[fresh].txs);
        MinEntry a{keep, e.pivot, e.flags};
        MinEntry b{fresh, static_cast<uint16_t>(fresh_pivot), static_cast<uint8_t>(m_rng.Bool())};
        if (m_rng.Bool()) std::swap(a, b);
        m_minq.PushBack(a);
        m_minq.PushBack(b);
        m_cost.MinimizeEnd(true);
    }
    return true;
}

template <typename S>
void SpanningForest<S>::GetLinearization(std::vector<uint32_t>& out) const
{
    const ClusterGraph<S>& g = *m_g;
    const unsigned n = g.n;
    out.clear();
    out.reserve(n);
    // Unmet dependencies per transaction and per chunk (reduced parents suffice: same order).
    std::vector<uint32_t> tx_missing(n), chunk_missing(n, 0), chunk_max_rank(n, 0);
    for (unsigned ch : m_chunks) {
        uint32_t mx = 0;
        for (unsigned t : m_set[ch].txs) mx = std::max(mx, g.fallback[t]);
        chunk_max_rank[ch] = mx;
    }
    for (unsigned t = 0; t < n; ++t) {
        tx_missing[t] = m_tx[t].parents.Count();
        chunk_missing[m_tx[t].chunk] += (m_tx[t].parents - m_set[m_tx[t].chunk].txs).Count();
    }
    // Heap comparators: "a after b". Chunks: higher rate, then smaller, then lower max rank first.
    auto chunk_after = [&](SetIdx a, SetIdx b) {
        const int cmp = CompareFeerate(m_set[a].fr, m_set[b].fr);
        if (cmp != 0) return cmp < 0;
        if (m_set[a].fr.size != m_set[b].fr.size) return m_set[a].fr.size > m_set[b].fr.size;
        return chunk_max_rank[a] > chunk_max_rank[b];
    };
    auto tx_after = [&](uint32_t a, uint32_t b) {
        const int cmp = CompareFeerate(g.feerate[a], g.feerate[b]);
        if (cmp != 0) return cmp < 0;
        if (g.feerate[a].size != g.feerate[b].size) return g.feerate[a].size > g.feerate[b].size;
        return g.fallback[a] > g.fallback[b];
    };
    std::vector<SetIdx> ready_chunks;
    std::vector<uint32_t> ready_txs;
    for (unsigned ch : m_chunks) {
        if (chunk_missing[ch] == 0) ready_chunks.push_back(static_cast<SetIdx>(ch));
    }
    std::make_heap(ready_chunks.begin(), ready_chunks.end(), chunk_after);
    while (!ready_chunks.empty()) {
        std::pop_heap(ready_chunks.begin(), ready_chunks.end(), chunk_after);
        const SetIdx ch = ready_chunks.back();
        ready_chunks.pop_back();
        const S& txs = m_set[ch].txs;
        ready_txs.clear();
        for (unsigned t : txs) {
            if (tx_missing[t] == 0) ready_txs.push_back(t);
        }
        std::make_heap(ready_txs.begin(), ready_txs.end(), tx_after);
        while (!ready_txs.empty()) {
            std::pop_heap(ready_txs.begin(), ready_txs.end(), tx_after);
            const uint32_t t = ready_txs.back();
            ready_txs.pop_back();
            out.push_back(t);
            for (unsigned c : m_tx[t].children) {
                if (--tx_missing[c] == 0 && txs[c]) {
                    ready_txs.push_back(c);
                    std::push_heap(ready_txs.begin(), ready_txs.end(), tx_after);
                }
                const SetIdx cc = m_tx[c].chunk;
                if (cc != ch && --chunk_missing[cc] == 0) {
                    ready_chunks.push_back(cc);
                    std::push_heap(ready_chunks.begin(), ready_chunks.end(), chunk_after);
                }
            }
        }
    }
}

template <typename S>
std::string SpanningForest<S>::SanityCheck() const
{
    const ClusterGraph<S>& g = *m_g;
    const unsigned n = g.n;
    struct Dep {
        uint32_t p, c;
    };
    std::vector<Dep> active;
    for (unsigned t = 0; t < n; ++t) {
        if (m_tx[t].parents != g.ReducedParents(t)) return "parents differ from the reduced parents";
        if (m_tx[t].children != g.ReducedChildren(t)) return "children differ from the reduced children";
        if (!m_tx[t].active_children.IsSubsetOf(m_tx[t].children)) return "active child is not a child";
        for (unsigned c : m_tx[t].active_children) active.push_back({t, c});
    }
    // The connected component of `start` through active dependencies, skipping one dependency;
    // also counts the dependencies inside it to verify it is a tree.
    auto component = [&](uint32_t start, const Dep* skip, size_t& deps_inside) {
        S comp = S::Singleton(start);
        while (true) {
            const S before = comp;
            deps_inside = 0;
            for (const Dep& d : active) {
                if (skip && d.p == skip->p && d.c == skip->c) continue;
                if (comp[d.p] || comp[d.c]) {
                    comp.Set(d.p);
                    comp.Set(d.c);
                    ++deps_inside;
                }
            }
            if (comp == before) return comp;
        }
    };
    S cover;
    for (unsigned ch : m_chunks) {
        const SetData& cs = m_set[ch];
        if (cs.txs.None()) return "empty chunk";
        if (cover.Overlaps(cs.txs)) return "chunks overlap";
        cover |= cs.txs;
        for (unsigned t : cs.txs) {
            if (m_tx[t].chunk != ch) return "transaction does not point to its chunk";
        }
        size_t deps = 0;
        const S comp = component(cs.txs.First(), nullptr, deps);
        if (comp != cs.txs) return "chunk differs from its active component";
        if (deps + 1 != cs.txs.Count()) return "chunk is not a tree of active dependencies";
        if (cs.fr != g.FeeRateOf(cs.txs)) return "chunk fee/size is stale";
        S up, down;
        for (unsigned t : cs.txs) {
            up |= m_tx[t].parents;
            down |= m_tx[t].children;
        }
        if (m_up[ch] != (up - cs.txs) || m_down[ch] != (down - cs.txs)) return "reachable sets are stale";
    }
    if (cover != S::Fill(n)) return "chunks do not cover the cluster";
    for (const Dep& d : active) {
        if (m_chunks[m_tx[d.p].top[d.c]]) return "a top set index names a chunk";
        size_t deps = 0;
        const S expect = component(d.p, &d, deps);
        if (expect[d.c]) return "an active dependency closes a cycle";
        const SetData& top = m_set[m_tx[d.p].top[d.c]];
        if (top.txs != expect) return "top set is stale";
        if (top.fr != g.FeeRateOf(top.txs)) return "top set fee/size is stale";
    }
    S queued;
    for (size_t k = 0; k < m_queue.Size(); ++k) {
        if (queued[m_queue[k]]) return "chunk queued twice";
        queued.Set(m_queue[k]);
    }
    if (queued != m_queued) return "queued set differs from the queue";
    return "";
}

}  // namespace opt
