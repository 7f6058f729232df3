// The incremental engine's preparation of a cycle from the previous one; see incremental.h.
//
// Why the result equals Prepare of the same table's input (optimizer.h, clusters.h): an old
// cluster none of whose members was removed or changed (no changed fee, weight, sigops or parent
// link; a removal or a new link marks both ends changed, Apply) has the same members and links
// now, so it is a cluster of the new graph. Its members keep their relative index order (indices
// are txid ranks, and SortIn keeps survivors in order), so the cluster's topological order
// (Kahn's, which depends only on that order and the links) and its place in the numbering (by
// lowest index) carry over: it is copied as a block, indices shifted. Every other transaction is
// in the changed region, which is closed under links (checked); its clusters are found and
// ordered by FindClusters + RenumberByCluster on the region alone (indices renumbered in order),
// and the two sequences are merged by lowest index. Debug builds compare the result with Prepare.
#include <algorithm>

#include "incremental.h"

namespace opt {

namespace {

constexpr double MAX_TOTAL_FEE = 9007199254740991.0;  // graph.h: the fee total must stay exact

/** Append the cluster at from's internal indices [b, e) as to's [base, base + e - b): data as
 *  ranges, links shifted (a cluster's parents and children are inside it, and a shift keeps their
 *  order, so the children lists are those FillChildren would give). index_of(x): x's input index. */
template <typename IndexOf>
void AppendCluster(const Graph& from, uint32_t b, uint32_t e, Graph& to, uint32_t base, IndexOf index_of)
{
    to.fee.insert(to.fee.end(), from.fee.begin() + b, from.fee.begin() + e);
    to.weight.insert(to.weight.end(), from.weight.begin() + b, from.weight.begin() + e);
    to.adj_weight.insert(to.adj_weight.end(), from.adj_weight.begin() + b, from.adj_weight.begin() + e);
    to.sigops.insert(to.sigops.end(), from.sigops.begin() + b, from.sigops.begin() + e);
    const auto links = [&](const std::vector<uint32_t>& off, const std::vector<uint32_t>& list, std::vector<uint32_t>& to_off,
                           std::vector<uint32_t>& to_list) {
        const uint32_t first = off[b], at = static_cast<uint32_t>(to_list.size());
        for (uint32_t x = b; x < e; ++x) to_off.push_back(off[x] - first + at);
        for (uint32_t k = first; k < off[e]; ++k) to_list.push_back(list[k] - b + base);
    };
    links(from.parent_offsets, from.parents, to.parent_offsets, to.parents);
    links(from.child_offsets, from.children, to.child_offsets, to.children);
    for (uint32_t x = b; x < e; ++x) to.rank.push_back(index_of(x));
}

void ClearGraph(Graph& g, uint32_t n)
{
    g.n = n;
    for (auto* v : {&g.fee, &g.weight, &g.adj_weight, &g.sigops}) {
        v->clear();
        v->reserve(n);
    }
    for (auto* v : {&g.rank, &g.parent_offsets, &g.child_offsets}) {
        v->clear();
        v->reserve(size_t{n} + 1);
    }
    g.parents.clear();
    g.children.clear();
}

/** The CSRs' last offsets and the internal clusters' identity lists, as RenumberByCluster leaves
 *  them. O(n). */
void Finish(Graph& g, Clusters& cl)
{
    const uint32_t n = g.n;
    g.parent_offsets.push_back(static_cast<uint32_t>(g.parents.size()));
    g.child_offsets.push_back(static_cast<uint32_t>(g.children.size()));
    cl.count = static_cast<uint32_t>(cl.offsets.size() - 1);
    cl.txs.resize(n);
    cl.cluster_of.resize(n);
    cl.local.resize(n);
    for (uint32_t c = 0; c < cl.count; ++c) {
        for (uint32_t i = cl.offsets[c]; i < cl.offsets[c + 1]; ++i) {
            cl.txs[i] = i;
            cl.cluster_of[i] = c;
            cl.local[i] = i - cl.offsets[c];
        }
    }
}

#ifdef OPTIMIZER_DEBUG
bool SamePrepared(const Prepared& a, const Prepared& b)
{
    const Graph &x = a.g, &y = b.g;
    return x.n == y.n && x.fee == y.fee && x.weight == y.weight && x.adj_weight == y.adj_weight && x.sigops == y.sigops &&
           x.rank == y.rank && x.parent_offsets == y.parent_offsets && x.parents == y.parents && x.child_offsets == y.child_offsets &&
           x.children == y.children && a.cl.count == b.cl.count && a.cl.offsets == b.cl.offsets && a.original == b.original &&
           a.warm == b.warm && a.warm_reuse == b.warm_reuse;
}
#endif

}  // namespace

bool IncrementalEngine::PrepareIncremental(uint32_t n)
{
    const Prepared& old = m_prep;
    const uint32_t old_n = old.g.n;
    if (old.original.size() != old_n || m_remap.size() != old_n || m_src.size() != n) return false;
    // Which old clusters are intact, and each one's lowest new index.
    m_intact.assign(old.cl.count, 1);
    m_min_new.assign(old.cl.count, UINT32_MAX);
    m_new_of_old.resize(old_n);
    for (uint32_t c = 0; c < old.cl.count; ++c) {
        for (uint32_t x = old.cl.offsets[c]; x < old.cl.offsets[c + 1]; ++x) {
            const uint32_t i = m_new_of_old[x] = m_remap[old.original[x]];
            if (i == UINT32_MAX || m_dirty_at[i]) {
                m_intact[c] = 0;
            } else {
                m_min_new[c] = std::min(m_min_new[c], i);
            }
        }
    }
    // The changed region: new or changed transactions and the survivors of changed clusters.
    m_region.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) m_region[i] = m_src[i] == UINT32_MAX || m_dirty_at[i] != 0;
    for (uint32_t c = 0; c < old.cl.count; ++c) {
        if (m_intact[c]) continue;
        for (uint32_t x = old.cl.offsets[c]; x < old.cl.offsets[c + 1]; ++x) {
            const uint32_t i = m_new_of_old[x];
            if (i != UINT32_MAX) m_region[i] = 1;
        }
    }
    m_region_list.clear();
    for (uint32_t i = 0; i < n; ++i) {
        if (m_region[i]) m_region_list.push_back(i);
    }
    // The region as a graph of its own (indices in the same order), read from the slots.
    const uint32_t r = static_cast<uint32_t>(m_region_list.size());
    m_sub_of.resize(std::max<size_t>(m_sub_of.size(), n));
    for (uint32_t k = 0; k < r; ++k) m_sub_of[m_region_list[k]] = k;
    Graph sub;
    ClearGraph(sub, r);
    for (uint32_t k = 0; k < r; ++k) {
        const uint32_t s = m_sorted[m_region_list[k]];
        const Slot& x = m_slots[s];
        sub.fee.push_back(static_cast<int64_t>(x.fee));
        sub.weight.push_back(x.weight);
        sub.sigops.push_back(x.sigops);
        sub.adj_weight.push_back(std::max<int64_t>(x.weight, int64_t{x.sigops} * BYTES_PER_SIGOP));
        sub.rank.push_back(k);
        sub.parent_offsets.push_back(static_cast<uint32_t>(sub.parents.size()));
        for (uint32_t p : x.parents) {
            const uint32_t i = m_index[p];
            if (!m_region[i]) return false;  // a link out of the region: the marks missed a change
            sub.parents.push_back(m_sub_of[i]);
        }
        for (uint32_t c : m_children[s]) {
            if (!m_region[m_index[c]]) return false;
        }
    }
    sub.parent_offsets.push_back(static_cast<uint32_t>(sub.parents.size()));
    Clusters sub_cl;
    Graph sub_g;
    try {
        sub_cl = FindClusters(sub);
        sub_g = RenumberByCluster(sub, sub_cl, m_sub_original);  // throws on a cycle
    } catch (const InputError&) {
        return false;
    }
    // Merge the intact clusters (in their old order, which is by lowest index) with the region's
    // (by lowest region index, the same order) into the new numbering.
    Prepared& next = m_next;
    ClearGraph(next.g, n);
    next.cl.offsets.assign(1, 0);
    auto region_min = [&](uint32_t sc) {
        uint32_t lo = UINT32_MAX;
        for (uint32_t y = sub_cl.offsets[sc]; y < sub_cl.offsets[sc + 1]; ++y) lo = std::min(lo, m_sub_original[y]);
        return m_region_list[lo];
    };
    double total_fee = 0;
    uint32_t oc = 0, sc = 0;
    uint32_t sc_min = sub_cl.count > 0 ? region_min(0) : UINT32_MAX;
    m_from_old.clear();
    // Consecutive intact clusters sit side by side in the old graph: they are copied as one run
    // (one shift for all), since most clusters are single transactions.
    uint32_t run_b = 0, run_e = 0, size = 0;
    const auto flush = [&] {
        if (run_e == run_b) return;
        AppendCluster(old.g, run_b, run_e, next.g, static_cast<uint32_t>(next.g.rank.size()), [&](uint32_t x) { return m_new_of_old[x]; });
        run_b = run_e;
    };
    while (true) {
        while (oc < old.cl.count && !m_intact[oc]) ++oc;
        const bool take_old = oc < old.cl.count && (sc >= sub_cl.count || m_min_new[oc] < sc_min);
        if (!take_old && sc >= sub_cl.count) break;
        if (take_old) {
            const uint32_t ob = old.cl.offsets[oc], oe = old.cl.offsets[oc + 1];
            if (ob != run_e) {
                flush();
                run_b = run_e = ob;
            }
            run_e = oe;
            m_from_old.push_back(ob);
            size += oe - ob;
            ++oc;
        } else {
            flush();
            const uint32_t sb = sub_cl.offsets[sc], se = sub_cl.offsets[sc + 1];
            AppendCluster(sub_g, sb, se, next.g, size, [&](uint32_t y) { return m_region_list[m_sub_original[y]]; });
            m_from_old.push_back(UINT32_MAX);
            size += se - sb;
            ++sc;
            sc_min = sc < sub_cl.count ? region_min(sc) : UINT32_MAX;
        }
        next.cl.offsets.push_back(size);
    }
    flush();
    if (next.g.rank.size() != n) return false;
    next.original = next.g.rank;  // the new graph's ranks are the input indices (txid order)
    for (int64_t f : next.g.fee) total_fee += static_cast<double>(f);
    if (total_fee > MAX_TOTAL_FEE) return false;  // the full path reports it, naming the transaction
    Finish(next.g, next.cl);
    WarmHint(n);
#ifdef OPTIMIZER_DEBUG
    {
        // The claim above, checked: Prepare of the same table's input gives the same object.
        WriteInput(n, false);
        m_arrays_valid = true;
        const InputView in = InputArrays();
        Options o;
        const Prepared scratch = Prepare(in, o, nullptr);
        OPT_ASSUME(SamePrepared(scratch, next));
    }
#endif
    return true;
}

void IncrementalEngine::WarmHint(uint32_t n)
{
    // Each transaction by its position in the last Build's linearization (new ones left out), and
    // its reuse mark: what WriteInput gives Prepare, in internal indices. An intact cluster is
    // clean, has one mark (its cluster's optimality) and its positions are read in its old
    // internal order, sequentially; only the changed region is looked up per transaction.
    Prepared& next = m_next;
    const Prepared& old = m_prep;
    m_bucket.assign(m_prev_n, UINT32_MAX);
    next.warm_reuse.resize(n);
    for (uint32_t c = 0; c < next.cl.count; ++c) {
        const uint32_t b = next.cl.offsets[c], e = next.cl.offsets[c + 1], ob = m_from_old[c];
        if (ob != UINT32_MAX) {
            const uint8_t mark = m_prev_opt[old.original[ob]] ? 1 : 2;
            std::fill(next.warm_reuse.begin() + b, next.warm_reuse.begin() + e, mark);
            for (uint32_t x = b; x < e; ++x) {
                const uint32_t pos = m_prev_pos_int[ob + (x - b)];
                if (pos < m_prev_n) m_bucket[pos] = x;
            }
            continue;
        }
        for (uint32_t x = b; x < e; ++x) {
            const uint32_t i = next.original[x];
            const uint32_t oi = m_src[i];
            const bool dirty = m_dirty_at[i] != 0 || oi == UINT32_MAX;
            next.warm_reuse[x] = dirty ? 0 : (m_prev_opt[oi] ? 1 : 2);
            const uint32_t pos = oi == UINT32_MAX ? UINT32_MAX : m_prev_pos[oi];
            if (pos < m_prev_n) m_bucket[pos] = x;
        }
    }
    next.warm.clear();
    for (uint32_t x : m_bucket) {
        if (x != UINT32_MAX) next.warm.push_back(x);
    }
}

}  // namespace opt
