// The chunk order kept between builds; see chunk_order_incremental.h.
#include "chunk_order_incremental.h"

#include <algorithm>

namespace opt {

namespace {

constexpr uint32_t NONE = UINT32_MAX;

/** Fall back to the full sort when more than 1 / FRESH_SHARE of the chunks changed: the merge
 *  still walks every chunk, and a large sort of the changed ones buys nothing over the radix sort. */
constexpr uint32_t FRESH_SHARE = 4;

}  // namespace

bool ChunkOrderMemo::KeptOrder(const ChunkTable& t, const Clusters& cl)
{
    const uint32_t m = t.Count();
    const size_t old_m = m_kept.size();
    if (!m_related || old_m == 0 || t.real || m_old_cluster_of_new.size() != cl.count || m_first.empty()) return false;
    const uint32_t old_count = static_cast<uint32_t>(m_first.size() - 1);
    const auto key = [&t](uint32_t v) {
        const Chunk& c = t.chunks[v];
        return Key{c.fee, c.adj_weight, c.eq_prefix, c.max_rank, v};
    };
    // Both tables in cluster order, side by side (unchanged clusters keep their relative order):
    // each kept chunk checked and its id put at its old mining position (a 4-byte scatter, the one
    // random access per chunk), the others set apart.
    m_target.assign(old_m, NONE);
    m_fresh.clear();
    uint32_t v = 0;
    for (uint32_t c = 0; c < cl.count; ++c) {
        const uint32_t vb = v;
        while (v < m && t.chunks[v].cluster == c) ++v;
        const uint32_t oc = m_old_cluster_of_new[c];
        if (oc == NONE) {
            for (uint32_t u = vb; u < v; ++u) m_fresh.push_back(key(u));
            if (m_fresh.size() > m / FRESH_SHARE) return false;
            continue;
        }
        if (oc >= old_count || m_first[oc + 1] - m_first[oc] != v - vb) return false;
        for (uint32_t j = 0; j < v - vb; ++j) {
            const Chunk& ch = t.chunks[vb + j];
            const Kept& e = m_kept[m_first[oc] + j];
            // max_rank is renumbered: an intact cluster has the same transactions (the engine's
            // invariant), so it is remap[old max_rank]; reading remap here is a random access per
            // chunk, so only debug builds check it.
            if (ch.tx_begin - cl.offsets[c] != e.local_begin || ch.tx_end - ch.tx_begin != e.size || ch.fee != e.fee ||
                ch.adj_weight != e.adj_weight || ch.eq_prefix != e.eq_prefix || e.max_rank >= m_remap.size()) {
                return false;
            }
            OPT_ASSUME(m_remap[e.max_rank] == ch.max_rank);
            uint32_t& at = m_target[m_kept_pos[m_first[oc] + j]];
            if (at != NONE) return false;  // two clusters related to one
            at = vb + j;
        }
    }
    if (v != m) return false;
    // The changed chunks sorted (chunk.h's order), then merged into the kept order. A kept
    // chunk's key is read from the last build's keys in sequence: the same but for max_rank, which
    // is renumbered (only when everything else ties).
    const auto before = [](const Key& a, const Key& b) {
        const int cmp = CompareFeerate({a.fee, a.adj_weight}, {b.fee, b.adj_weight});
        if (cmp != 0) return cmp > 0;
        if (a.eq_prefix != b.eq_prefix) return a.eq_prefix < b.eq_prefix;
        return a.max_rank < b.max_rank;  // distinct chunks differ here
    };
    // A changed chunk before a kept one (old: its key in the last build, max_rank renumbered
    // only when the rest ties, which is rare).
    const auto FreshBefore = [this](const Key& a, const Key& old) {
        const int cmp = CompareFeerate({a.fee, a.adj_weight}, {old.fee, old.adj_weight});
        if (cmp != 0) return cmp > 0;
        if (a.eq_prefix != old.eq_prefix) return a.eq_prefix < old.eq_prefix;
        return a.max_rank < m_remap[old.max_rank];
    };
    std::sort(m_fresh.begin(), m_fresh.end(), before);
    m_ids.clear();
    m_ids.reserve(m);
    size_t f = 0;
    for (size_t k = 0; k < old_m; ++k) {
        const uint32_t at = m_target[k];
        if (at == NONE) continue;
        while (f < m_fresh.size() && FreshBefore(m_fresh[f], m_sorted[k])) m_ids.push_back(m_fresh[f++].id);
        m_ids.push_back(at);
    }
    for (; f < m_fresh.size(); ++f) m_ids.push_back(m_fresh[f].id);
    // Every chunk once: each is either changed or checked into one distinct position.
    return m_ids.size() == m;
}

uint32_t ChunkOrderMemo::Sort(ChunkTable& t, const Clusters& cl, bool parallel)
{
    const bool from_kept = KeptOrder(t, cl);
    m_related = false;  // the relation held for this build only
    const uint32_t m = t.Count();
    // What the next build needs, read in cluster order before the table is reordered.
    m_next.resize(m);
    m_kept_pos.resize(m);  // the last build's positions are read: first each chunk's first tx here
    m_first_next.assign(size_t{cl.count} + 1, 0);
    for (uint32_t u = 0; u < m; ++u) {
        const Chunk& c = t.chunks[u];
        m_next[u] = Kept{c.fee, c.adj_weight, c.eq_prefix, c.max_rank, c.tx_begin - cl.offsets[c.cluster], c.tx_end - c.tx_begin};
        m_kept_pos[u] = c.tx_begin;
        ++m_first_next[c.cluster + 1];
    }
    for (uint32_t c = 0; c < cl.count; ++c) m_first_next[c + 1] += m_first_next[c];
    uint32_t kept = 0;
    if (from_kept) {
#ifdef OPTIMIZER_DEBUG
        ChunkTable scratch = t;
        SortIntoMiningOrder(scratch);
#endif
        ApplyChunkOrder(t, m_ids, parallel);
        kept = m - static_cast<uint32_t>(m_fresh.size());
#ifdef OPTIMIZER_DEBUG
        OPT_ASSUME(SameTable(scratch, t));
#endif
    } else {
        SortIntoMiningOrder(t, {}, parallel);
    }
    // Each chunk's mining position, through its first transaction (the table is sorted now).
    m_kept.swap(m_next);
    m_first.swap(m_first_next);
    for (uint32_t u = 0; u < m; ++u) m_kept_pos[u] = t.chunk_of[t.txs[m_kept_pos[u]]];
    m_sorted.resize(m);
    for (uint32_t k = 0; k < m; ++k) {
        const Chunk& c = t.chunks[k];
        m_sorted[k] = Key{c.fee, c.adj_weight, c.eq_prefix, c.max_rank, k};
    }
    return kept;
}

}  // namespace opt
