// Union-find clustering and renumbering; see clusters.h for the invariants.
#include "clusters.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "parallel.h"

namespace opt {

namespace {

/** How far ahead the passes over transactions in input order request their random reads. */
constexpr uint32_t AHEAD = 16;

/** Find with path halving. */
uint32_t Find(std::vector<uint32_t>& parent, uint32_t x) noexcept
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

}  // namespace

namespace {

/** FindClusters over n transactions whose parents are parents(c) (a span; duplicates and
 *  self-links are harmless). */
template <typename ParentsOf>
Clusters FindClustersOf(uint32_t n, ParentsOf parents_of)
{
    // Link by lowest index: every root is its cluster's lowest transaction, so the numbering pass
    // below meets the root before the rest of its cluster and reads the id from there (no size or
    // id-of-root arrays, no random access to them).
    std::vector<uint32_t> uf(n);
    std::iota(uf.begin(), uf.end(), 0u);
    // The input order is random (Core lists its mempool by txid): every link reads the forest at a
    // random place. Those reads are requested AHEAD transactions early, so they overlap.
    for (uint32_t c = 0; c < n; ++c) {
        if (c + AHEAD < n) {
            for (uint32_t p : parents_of(c + AHEAD)) __builtin_prefetch(&uf[p]);
        }
        for (uint32_t p : parents_of(c)) {
            const uint32_t a = Find(uf, c), b = Find(uf, p);
            if (a < b) {
                uf[b] = a;
            } else if (b < a) {
                uf[a] = b;
            }
        }
    }
    Clusters cl;
    cl.cluster_of.resize(n);
    cl.offsets.reserve(size_t{n} + 1);
    cl.offsets.push_back(0);
    // Number clusters by their lowest transaction index (the root) and count their sizes.
    for (uint32_t i = 0; i < n; ++i) {
        if (i + AHEAD < n && uf[i + AHEAD] != i + AHEAD) {  // a member: its root's id, read ahead
            __builtin_prefetch(&uf[uf[i + AHEAD]]);
            __builtin_prefetch(&cl.cluster_of[uf[i + AHEAD]]);
        }
        const uint32_t r = Find(uf, i);
        uint32_t c;
        if (r == i) {
            c = cl.count++;
            cl.offsets.push_back(0);
        } else {
            c = cl.cluster_of[r];
        }
        cl.cluster_of[i] = c;
        ++cl.offsets[c + 1];
    }
    for (uint32_t c = 0; c < cl.count; ++c) cl.offsets[c + 1] += cl.offsets[c];
    std::vector<uint32_t>& fill = uf;  // reuse: the forest is no longer needed
    std::copy(cl.offsets.begin(), cl.offsets.end() - 1, fill.begin());
    cl.txs.resize(n);
    cl.local.resize(n);
    for (uint32_t t = 0; t < n; ++t) {
        const uint32_t c = cl.cluster_of[t];
        cl.local[t] = fill[c] - cl.offsets[c];
        cl.txs[fill[c]++] = t;
    }
    return cl;
}

}  // namespace

Clusters FindClusters(const Graph& g)
{
    return FindClustersOf(g.n, [&g](uint32_t c) { return g.Parents(c); });
}

bool FindClustersOfInput(const InputView& in, uint32_t n, Clusters& out)
{
    const auto& off = in.parent_offsets;
    const auto& idx = in.parent_indices;
    if (off.size() != size_t{n} + 1) return false;
    // Lists past the end or out of order, or parents out of range, read as empty (never out of
    // bounds); the result is then not used: ValidateLinks reports them.
    bool bad = false;
    Clusters cl = FindClustersOf(n, [&](uint32_t c) -> std::span<const uint32_t> {
        const uint32_t b = off[c], e = off[c + 1];
        if (b > e || e > idx.size()) {
            bad = true;
            return {};
        }
        const std::span<const uint32_t> list = idx.subspan(b, e - b);
        for (uint32_t p : list) {
            if (p >= n) {
                bad = true;
                return {};
            }
        }
        return list;
    });
    if (bad) return false;
    out = std::move(cl);
    return true;
}

namespace {

/** The error for a cycle, naming (by input index) the first transaction Kahn's algorithm left. */
InputError CycleError(uint32_t culprit)
{
    return InputError(ErrorCode::CYCLE, "the parent links contain a cycle (transaction " + std::to_string(culprit) + " is on or below it)");
}

/** Kahn's algorithm inside each cluster of [c_begin, c_end), on cluster-local counters:
 *  original[offsets[c] + k] = the k-th transaction of cluster c in topological order. missing
 *  (n entries) is scratch, touched only at these clusters' positions. Throws CYCLE. */
void SortClusters(const Graph& in, const Clusters& cl, uint32_t c_begin, uint32_t c_end, std::vector<uint32_t>& missing,
                  std::vector<uint32_t>& original)
{
    std::vector<uint32_t> queue, child_off, child_list, pos;
    // A cluster's members lie at random places of the input: their parent lists, then the
    // parents' cluster-local positions, are requested some clusters ahead, stage by stage.
    auto prefetch_offsets = [&](uint32_t c) {
        if (c < c_end && cl.Size(c) > 1) {
            for (uint32_t t : cl.Txs(c)) __builtin_prefetch(&in.parent_offsets[t]);
        }
    };
    auto prefetch_parents = [&](uint32_t c) {
        if (c < c_end && cl.Size(c) > 1) {
            for (uint32_t t : cl.Txs(c)) __builtin_prefetch(in.parents.data() + in.parent_offsets[t]);
        }
    };
    auto prefetch_local = [&](uint32_t c) {
        if (c < c_end && cl.Size(c) > 2) {
            for (uint32_t t : cl.Txs(c)) {
                for (uint32_t p : in.Parents(t)) __builtin_prefetch(&cl.local[p]);
            }
        }
    };
    constexpr uint32_t STAGE = 16;  // clusters between the stages (most are single transactions)
    for (uint32_t c = c_begin; c < c_end; ++c) {
        prefetch_offsets(c + 3 * STAGE);
        prefetch_parents(c + 2 * STAGE);
        prefetch_local(c + STAGE);
        const auto txs = cl.Txs(c);
        const uint32_t base = cl.offsets[c];
        if (txs.size() == 1) {  // most clusters: nothing to sort
            original[base] = txs[0];
            continue;
        }
        if (txs.size() == 2) {  // the next most: one link (parents are deduplicated), or two (a cycle)
            const bool first_has_parent = !in.Parents(txs[0]).empty();
            if (first_has_parent && !in.Parents(txs[1]).empty()) throw CycleError(txs[0]);
            original[base] = txs[first_has_parent ? 1 : 0];
            original[base + 1] = txs[first_has_parent ? 0 : 1];
            continue;
        }
        // Local children lists: for each tx, count parents; children found via a local CSR.
        queue.clear();
        for (uint32_t k = 0; k < txs.size(); ++k) {
            missing[base + k] = static_cast<uint32_t>(in.Parents(txs[k]).size());
        }
        child_off.assign(txs.size() + 1, 0);
        for (uint32_t k = 0; k < txs.size(); ++k) {
            for (uint32_t p : in.Parents(txs[k])) ++child_off[cl.local[p] + 1];
        }
        for (size_t k = 0; k < txs.size(); ++k) child_off[k + 1] += child_off[k];
        child_list.resize(child_off[txs.size()]);
        pos.assign(child_off.begin(), child_off.end() - 1);
        for (uint32_t k = 0; k < txs.size(); ++k) {
            for (uint32_t p : in.Parents(txs[k])) child_list[pos[cl.local[p]]++] = k;
        }
        for (uint32_t k = 0; k < txs.size(); ++k) {
            if (missing[base + k] == 0) queue.push_back(k);
        }
        for (size_t head = 0; head < queue.size(); ++head) {
            const uint32_t k = queue[head];
            for (uint32_t j = child_off[k]; j < child_off[k + 1]; ++j) {
                if (--missing[base + child_list[j]] == 0) queue.push_back(child_list[j]);
            }
        }
        if (queue.size() != txs.size()) {
            uint32_t culprit = 0;
            while (missing[base + culprit] == 0) ++culprit;
            throw CycleError(txs[culprit]);
        }
        for (uint32_t k = 0; k < txs.size(); ++k) original[base + k] = txs[queue[k]];
    }
}

/** The first cluster of the second half when the clusters are split into two of about equal
 *  work. A single transaction costs a copy; a larger cluster a sort whose reads (parent lists,
 *  positions) are random, several times a copy per transaction. The split is by that estimate,
 *  not by transactions: clusters are numbered by their lowest transaction, so the large ones,
 *  whose lowest index is small, come first, and an even split by transactions gave the first
 *  thread several times the work of the second. */
uint32_t MiddleCluster(const Clusters& cl)
{
    constexpr uint64_t SORT_COST = 8;  // a sorted transaction, in copies
    auto work = [&](uint32_t c) { return cl.Size(c) == 1 ? uint64_t{1} : SORT_COST * cl.Size(c); };
    uint64_t total = 0;
    for (uint32_t c = 0; c < cl.count; ++c) total += work(c);
    uint64_t acc = 0;
    uint32_t c = 0;
    while (c < cl.count && 2 * acc < total) acc += work(c++);
    return c;
}

}  // namespace

Graph RenumberByCluster(const Graph& in, Clusters& cl, std::vector<uint32_t>& original, bool parallel)
{
    const uint32_t n = in.n;
    original.resize(n);
    {
        std::vector<uint32_t> missing(n);
        const uint32_t mid = MiddleCluster(cl);
        // The first half's cycle is the one the sequential order reports.
        RunBoth(
            parallel, [&] { SortClusters(in, cl, 0, mid, missing, original); },
            [&] { SortClusters(in, cl, mid, cl.count, missing, original); });
    }
    std::vector<uint32_t> internal(n);
    for (uint32_t i = 0; i < n; ++i) internal[original[i]] = i;

    Graph g;
    g.n = n;
    g.fee.resize(n);
    g.weight.resize(n);
    g.adj_weight.resize(n);
    g.sigops.resize(n);
    g.rank.resize(n);
    g.parent_offsets.resize(size_t{n} + 1);
    g.parents.resize(in.parents.size());
    // The per-transaction columns beside the links (distinct arrays: no shared writes).
    auto columns = [&] {
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t o = original[i];
            g.fee[i] = in.fee[o];
            g.weight[i] = in.weight[o];
            g.adj_weight[i] = in.adj_weight[o];
            g.sigops[i] = in.sigops[o];
            g.rank[i] = in.rank[o];
        }
    };
    auto links = [&] {
        uint32_t e = 0;
        for (uint32_t i = 0; i < n; ++i) {
            // Two stages ahead: the parent list's offsets, then (once they are near) the parents' new indices.
            if (i + 2 * AHEAD < n) __builtin_prefetch(&in.parent_offsets[original[i + 2 * AHEAD]]);
            if (i + AHEAD < n) {
                for (uint32_t p : in.Parents(original[i + AHEAD])) __builtin_prefetch(&internal[p]);
            }
            g.parent_offsets[i] = e;
            for (uint32_t p : in.Parents(original[i])) g.parents[e++] = internal[p];
        }
        g.parent_offsets[n] = e;
        FillChildren(g);
        // The clusters of the internal graph: same ids and offsets, identity transaction lists.
        for (uint32_t c = 0; c < cl.count; ++c) {
            for (uint32_t i = cl.offsets[c]; i < cl.offsets[c + 1]; ++i) {
                cl.txs[i] = i;
                cl.cluster_of[i] = c;
                cl.local[i] = i - cl.offsets[c];
            }
        }
    };
    RunBoth(parallel, links, columns);
    return g;
}

std::string SanityCheck(const Graph& g, const Clusters& cl)
{
    if (cl.offsets.size() != size_t{cl.count} + 1 || cl.offsets[cl.count] != g.n) return "cluster offsets do not cover n";
    std::vector<uint8_t> seen(g.n, 0);
    for (uint32_t c = 0; c < cl.count; ++c) {
        if (cl.Size(c) == 0) return "empty cluster " + std::to_string(c);
        for (uint32_t k = 0; k < cl.Size(c); ++k) {
            const uint32_t t = cl.Txs(c)[k];
            if (seen[t]) return "transaction listed twice";
            seen[t] = 1;
            if (cl.cluster_of[t] != c || cl.local[t] != k) return "cluster_of/local mismatch";
            for (uint32_t p : g.Parents(t)) {
                if (cl.cluster_of[p] != c) return "a parent link crosses clusters";
                if (cl.local[p] >= k) return "cluster order is not topological";
            }
        }
    }
    // Connectivity: every cluster must be one component of its own links.
    std::vector<uint32_t> stack;
    std::vector<uint8_t> reached(g.n, 0);
    for (uint32_t c = 0; c < cl.count; ++c) {
        stack.assign(1, cl.Txs(c)[0]);
        reached[stack[0]] = 1;
        uint32_t count = 0;
        while (!stack.empty()) {
            const uint32_t t = stack.back();
            stack.pop_back();
            ++count;
            for (auto list : {g.Parents(t), g.Children(t)}) {
                for (uint32_t u : list) {
                    if (!reached[u]) {
                        reached[u] = 1;
                        stack.push_back(u);
                    }
                }
            }
        }
        if (count != cl.Size(c)) return "cluster " + std::to_string(c) + " is not connected";
    }
    return "";
}

}  // namespace opt
