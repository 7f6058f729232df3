// Greedy pass plus branch-and-bound tail search; see template_optimized.h.
#include "template_optimized.h"

#include "parallel.h"
#include "template_search.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace opt {

using template_search::INF_WEIGHT;
using template_search::NONE;

TemplateBuilder::TemplateBuilder(const Graph& g, const ChunkTable& t, std::span<const uint32_t> order, const TemplateLimits& lim,
                                 bool parallel)
    : m_g(g), m_t(t), m_lim(lim), m_order(order.begin(), order.end())
{
    const auto m = static_cast<uint32_t>(m_order.size());
    m_pos_of.assign(t.Count(), NONE);
    m_identity = m == t.Count();
    for (uint32_t i = 0; i < m; ++i) {
        m_pos_of[m_order[i]] = i;
        m_identity = m_identity && m_order[i] == i;
    }
    // The external-parent index needs only the positions; the columns are independent of it.
    RunBoth(
        parallel, [&] { Columns(); }, [&] { IndexExternalParents(); });
}

void TemplateBuilder::Columns()
{
    const ChunkTable& t = m_t;
    const TemplateLimits& lim = m_lim;
    const auto m = static_cast<uint32_t>(m_order.size());
    m_fee.resize(m);
    m_weight.resize(m);
    m_sigops.resize(m);
    m_count.resize(m);
    m_eligible.resize(m);
    m_live.assign(m, 1);
    while (m_tree_size < m) m_tree_size <<= 1;
    m_tree.assign(2 * m_tree_size, INF_WEIGHT);
    for (uint32_t i = 0; i < m; ++i) {
        const uint32_t k = m_order[i];
        m_fee[i] = t.chunks[k].fee;
        m_weight[i] = t.chunks[k].weight;
        m_sigops[i] = t.chunks[k].sigops;
        m_count[i] = t.TxCount(k);
        m_eligible[i] = static_cast<__int128>(t.chunks[k].fee) * 4000 >= static_cast<__int128>(lim.min_rate_sat_kvb) * t.chunks[k].weight;
        if (m_eligible[i]) m_tree[m_tree_size + i] = t.chunks[k].weight;
    }
    for (size_t i = m_tree_size; i-- > 1;) m_tree[i] = std::min(m_tree[2 * i], m_tree[2 * i + 1]);
    m_real_sorted_from.assign(size_t{m} + 1, 1);
    for (uint32_t i = m; i-- > 0;) {
        const bool ok = i + 1 >= m || CompareFeerate({m_fee[i], m_weight[i]}, {m_fee[i + 1], m_weight[i + 1]}) >= 0;
        m_real_sorted_from[i] = ok && m_real_sorted_from[i + 1];
    }
    m_cum_fee.resize(size_t{m} + 1);
    m_cum_weight.resize(size_t{m} + 1);
}

void TemplateBuilder::IndexExternalParents()
{
    // Walk the transactions in table order (clusters contiguous, so the graph is read nearly in
    // sequence) rather than chunk by chunk in mining order (a cache miss per chunk, every block).
    // One walk: the (position, parent) pairs, then a counting sort by position. A chunk's
    // position (a random read) is looked up only for a transaction with a parent in another chunk.
    const auto m = static_cast<uint32_t>(m_order.size());
    m_ext_offsets.assign(size_t{m} + 1, 0);
    std::vector<std::pair<uint32_t, uint32_t>> external;
    for (uint32_t x : m_t.txs) {
        const auto parents = m_g.Parents(x);
        if (parents.empty()) continue;
        const uint32_t k = m_t.chunk_of[x];
        if (k == NONE) continue;
        uint32_t pos = NONE;
        for (uint32_t p : parents) {
            if (m_t.chunk_of[p] == k) continue;
            // A cycle's order is its table's: the position is the id, not a random read.
            if (pos == NONE) pos = m_identity ? k : m_pos_of[k];
            if (pos == NONE) break;  // not in the order
            external.emplace_back(pos, p);
            ++m_ext_offsets[pos + 1];
        }
    }
    for (uint32_t i = 0; i < m; ++i) m_ext_offsets[i + 1] += m_ext_offsets[i];
    m_ext_parents.resize(m_ext_offsets[m]);
    m_ext_parent_pos.resize(m_ext_offsets[m]);
    std::vector<uint32_t> fill(m_ext_offsets.begin(), m_ext_offsets.end() - 1);
    for (const auto& [pos, p] : external) {
        // The parent's position too: the tail search's Dead test reads it beside the parent, not
        // through chunk_of and m_pos_of (two dependent random reads per parent, per scanned chunk).
        const uint32_t k = m_t.chunk_of[p];
        uint32_t parent_pos = NONE;
        if (k != NONE) parent_pos = m_identity ? k : m_pos_of[k];
        m_ext_parent_pos[fill[pos]] = parent_pos;
        m_ext_parents[fill[pos]++] = p;
    }
}

void TemplateBuilder::Remove(const Selection& sel)
{
    for (uint32_t k : sel.chunks) {
        const uint32_t pos = m_pos_of[k];
        if (pos == NONE || !m_live[pos]) continue;
        m_live[pos] = 0;
        size_t i = m_tree_size + pos;
        m_tree[i] = INF_WEIGHT;
        for (i >>= 1; i >= 1; i >>= 1) m_tree[i] = std::min(m_tree[2 * i], m_tree[2 * i + 1]);
    }
}

bool WithinRequestLimits(const ChunkTable& consensus, const Selection& sel, const TemplateLimits& lim)
{
    if (static_cast<int64_t>(sel.txs.size()) > lim.tx_count) return false;
    if (lim.min_rate_sat_kvb <= 0) return true;
    for (uint32_t x : sel.txs) {
        const uint32_t k = consensus.chunk_of[x];
        if (k == NONE) return false;
        const Chunk& ch = consensus.chunks[k];
        if (static_cast<__int128>(ch.fee) * 4000 < static_cast<__int128>(lim.min_rate_sat_kvb) * ch.weight) return false;
    }
    return true;
}

Selection TemplateBuilder::Build(std::vector<uint8_t>& state, uint64_t search_budget, const Selection* incumbent, TailSearchStats& stats)
{
    Impl b{*this, state, 0, 0, 0, 0, 0, m_cum_fee, m_cum_weight, 0, {}, true};
    for (auto i = static_cast<uint32_t>(m_order.size()); i-- > 0;) {
        if (m_live[i] && m_eligible[i]) {
            b.m_eff = i + 1;
            break;
        }
    }
    stats = TailSearchStats{};

    // 1. Greedy pass; first_skip = the first live eligible chunk that did not fit (the cutoff).
    std::vector<uint32_t> included;
    const uint32_t first_skip = b.Greedy(included, stats);
    stats.greedy_fee = b.cur_fee;
    const bool incumbent_ok = incumbent != nullptr;  // the caller checked the request limits
    int64_t best_fee = std::max(b.cur_fee, incumbent_ok ? incumbent->fee : int64_t{0});
    std::vector<uint32_t> best_path;
    bool improved = false;
    const bool searched = first_skip != NONE;
    uint32_t s = b.m_eff;

    // 2. Tail search over the window [s, m_eff), everything before s fixed as in the greedy pass.
    if (searched) {
        s = b.WindowStart(first_skip);
        while (!included.empty() && included.back() >= s) {
            b.Exclude(included.back());
            included.pop_back();
        }
        for (uint32_t p = s; p < b.m_eff; ++p) stats.window_chunks += m_live[p];
        b.PrepareBound(s);
        improved = b.Search(s, search_budget, best_fee, best_path, stats);
    }

    // 3. Assemble: the fixed prefix (the whole greedy result when nothing was searched), then the
    // best window choice, or the greedy suffix again when the search found nothing better.
    Selection sel;
    for (uint32_t p : included) sel.AddChunk(m_t, m_order[p]);
    if (improved) {
        for (uint32_t p : best_path) {
            b.Include(p);
            sel.AddChunk(m_t, m_order[p]);
        }
        stats.improved_sat = sel.fee - stats.greedy_fee;
    } else if (searched) {
        b.FillGreedily(s, sel);
    }
    // 4. Never worse than the incumbent (the v31 template) when it satisfies the request limits.
    if (incumbent_ok && incumbent->fee > sel.fee) {
        for (uint32_t x : sel.txs) state[x] = TX_AVAILABLE;
        for (uint32_t x : incumbent->txs) state[x] = TX_IN_BLOCK;
        stats.used_incumbent = true;
        return *incumbent;
    }
    return sel;
}

}  // namespace opt
