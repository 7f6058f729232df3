// Chunking and mining order; see chunk.h for the invariants.
#include "chunk.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

namespace opt {

uint32_t ChunkCluster(const Graph& g, uint32_t cluster_id, std::span<const uint32_t> seq, uint32_t base, Chunk* out, bool real)
{
    auto rate = [real](const Chunk& c) { return FeeFrac{c.fee, real ? c.weight : c.adj_weight}; };
    // Stack chunking (Core's ChunkLinearization): each new transaction starts a group that absorbs
    // preceding groups while its fee rate is strictly higher. Groups are contiguous in seq.
    uint32_t k = 0;
    for (uint32_t i = 0; i < seq.size(); ++i) {
        const uint32_t x = seq[i];
        Chunk cur{g.fee[x], g.adj_weight[x], g.weight[x], g.sigops[x], 0, base + i, base + i + 1, cluster_id, g.rank[x]};
        while (k > 0 && CompareFeerate(rate(cur), rate(out[k - 1])) > 0) {
            const Chunk& prev = out[--k];
            cur.tx_begin = prev.tx_begin;
            cur.fee += prev.fee;
            cur.adj_weight += prev.adj_weight;
            cur.weight += prev.weight;
            cur.sigops += prev.sigops;
            cur.max_rank = std::max(cur.max_rank, prev.max_rank);
        }
        out[k++] = cur;
    }
    for (uint32_t j = 0; j < k; ++j) {
        const bool same_rate = j > 0 && CompareFeerate(rate(out[j]), rate(out[j - 1])) == 0;
        out[j].eq_prefix = (same_rate ? out[j - 1].eq_prefix : 0) + rate(out[j]).size;
    }
    return k;
}

ChunkTable StageChunks(const Graph& g, const Linearization& lin)
{
    ChunkTable t;
    t.txs = lin.lin;
    t.chunks.resize(g.n);
    t.chunk_of.resize(g.n);
    return t;
}

void AssembleChunks(ChunkTable& t, const Clusters& cl, std::span<const uint32_t> counts)
{
    // Cluster c's chunks move from offsets[c] to the running total, which is never larger: a
    // forward in-place compaction.
    uint32_t m = 0;
    for (uint32_t c = 0; c < cl.count; ++c) {
        for (uint32_t j = 0; j < counts[c]; ++j, ++m) {
            if (m != cl.offsets[c] + j) t.chunks[m] = t.chunks[cl.offsets[c] + j];
            for (uint32_t i = t.chunks[m].tx_begin; i < t.chunks[m].tx_end; ++i) t.chunk_of[t.txs[i]] = m;
        }
    }
    t.chunks.resize(m);
}

namespace {

/** Core's mining order between two chunks (by real or sigop-adjusted rate); 0 when they tie,
 *  which distinct chunks never do (their max_rank differs). */
int CompareMining(const Chunk& a, const Chunk& b, bool real) noexcept
{
    const int cmp = CompareFeerate({a.fee, real ? a.weight : a.adj_weight}, {b.fee, real ? b.weight : b.adj_weight});
    if (cmp != 0) return cmp > 0 ? -1 : 1;
    if (a.eq_prefix != b.eq_prefix) return a.eq_prefix < b.eq_prefix ? -1 : 1;
    if (a.max_rank != b.max_rank) return a.max_rank < b.max_rank ? -1 : 1;
    return 0;
}

}  // namespace

bool ChunkTable::Before(uint32_t a, uint32_t b) const noexcept
{
    const int cmp = CompareMining(chunks[a], chunks[b], real);
    return cmp != 0 ? cmp < 0 : a < b;
}

ChunkTable BuildChunks(const Graph& g, const Clusters& cl, const Linearization& lin, bool real)
{
    ChunkTable t = StageChunks(g, lin);
    t.real = real;
    std::vector<uint32_t> counts(cl.count);
    for (uint32_t c = 0; c < cl.count; ++c) {
        const uint32_t base = cl.offsets[c];
        counts[c] = ChunkCluster(g, c, {lin.lin.data() + base, lin.lin.data() + cl.offsets[c + 1]}, base, t.chunks.data() + base, real);
    }
    AssembleChunks(t, cl, counts);
    return t;
}

namespace {
std::vector<uint32_t> MiningOrder(const ChunkTable& t);
}  // namespace

ChunkTable RealFromCore(const Graph& g, const Clusters& cl, const ChunkTable& core, const Linearization& real_lin,
                        std::span<const uint8_t> affected)
{
    // The affected clusters' chunks by real weight, in mining order among themselves.
    ChunkTable fresh;
    fresh.real = true;
    for (uint32_t c = 0; c < cl.count; ++c) {
        if (!affected[c]) continue;
        const size_t at = fresh.chunks.size();
        fresh.chunks.resize(at + cl.Size(c));
        const std::span<const uint32_t> seq{real_lin.lin.data() + cl.offsets[c], cl.Size(c)};
        fresh.chunks.resize(at + ChunkCluster(g, c, seq, cl.offsets[c], fresh.chunks.data() + at, true));
    }
    const std::vector<uint32_t> ids = MiningOrder(fresh);
    // Merge them with Core's chunks of the other clusters, already in mining order (where real and
    // adjusted weights coincide the chunks, and so their order, are the same).
    ChunkTable t;
    t.real = true;
    t.txs = real_lin.lin;
    t.chunk_of.resize(g.n);
    t.chunks.reserve(core.Count() + fresh.Count());
    size_t j = 0;
    for (uint32_t k = 0; k < core.Count(); ++k) {
        if (affected[core.chunks[k].cluster]) continue;
        while (j < ids.size() && CompareMining(fresh.chunks[ids[j]], core.chunks[k], true) < 0) t.chunks.push_back(fresh.chunks[ids[j++]]);
        t.chunks.push_back(core.chunks[k]);
    }
    for (; j < ids.size(); ++j) t.chunks.push_back(fresh.chunks[ids[j]]);
    for (uint32_t k = 0; k < t.Count(); ++k) {
        for (uint32_t i = t.chunks[k].tx_begin; i < t.chunks[k].tx_end; ++i) t.chunk_of[t.txs[i]] = k;
    }
    return t;
}

ChunkTable RechunkRemaining(const Graph& g, const ChunkTable& t, std::span<const uint8_t> keep)
{
    ChunkTable r;
    r.real = t.real;
    r.txs.reserve(t.txs.size());  // no reallocation below: ChunkCluster reads spans of it
    r.chunks.resize(t.txs.size());
    r.chunk_of.assign(g.n, UINT32_MAX);
    uint32_t m = 0;
    // t.txs holds each cluster's linearization contiguously (chunks keep their lin positions).
    for (size_t i = 0; i < t.txs.size();) {
        const uint32_t c = t.chunks[t.chunk_of[t.txs[i]]].cluster;
        const auto base = static_cast<uint32_t>(r.txs.size());
        size_t j = i;
        for (; j < t.txs.size() && t.chunks[t.chunk_of[t.txs[j]]].cluster == c; ++j) {
            if (keep[t.txs[j]]) r.txs.push_back(t.txs[j]);
        }
        const std::span<const uint32_t> seq{r.txs.data() + base, r.txs.size() - base};
        m += ChunkCluster(g, c, seq, base, r.chunks.data() + m, t.real);
        i = j;
    }
    r.chunks.resize(m);
    SortIntoMiningOrder(r);
    return r;
}

namespace {

/** t's chunk ids in Core's mining order (ChunkTable::Before). Key: the top 32 bits of the double
 *  rate (sign, exponent, 20 mantissa bits), complemented so ascending keys are descending rates
 *  (non-negative doubles order like their bit patterns). LSD radix sort, 8 bits per pass, skipping
 *  passes where every key has the same byte. Equal keys mean rates within a relative 2^-20: those
 *  runs are then sorted exactly, on a compact copy of their sort keys (no gather through the
 *  table per comparison): by the full double first (rounding is monotone, so different doubles
 *  order like the exact rates), then, for equal doubles, Core's full comparison. */
std::vector<uint32_t> MiningOrder(const ChunkTable& t)
{
    const uint32_t m = t.Count();
    struct Item {
        uint32_t key;
        uint32_t id;
    };
    // The complemented bits of a chunk's double rate.
    const auto full = [](const FeeFrac& fr) { return ~std::bit_cast<uint64_t>(static_cast<double>(fr.fee) / static_cast<double>(fr.size)); };
    std::vector<Item> a(m), b(m);
    for (uint32_t k = 0; k < m; ++k) a[k] = Item{static_cast<uint32_t>(full(t.Rate(k)) >> 32), k};
    for (int shift = 0; shift < 32; shift += 8) {
        std::array<uint32_t, 257> count{};
        for (const Item& it : a) ++count[((it.key >> shift) & 0xff) + 1];
        if (std::find(count.begin() + 1, count.end(), m) != count.end()) continue;  // one bucket
        for (int i = 0; i < 256; ++i) count[i + 1] += count[i];
        for (const Item& it : a) b[count[(it.key >> shift) & 0xff]++] = it;
        a.swap(b);
    }
    std::vector<uint32_t> ids(m);
    for (uint32_t i = 0; i < m; ++i) ids[i] = a[i].id;
    struct RunItem {
        uint64_t full;
        int64_t fee, size, eq_prefix;
        uint32_t max_rank, id;
    };
    std::vector<RunItem> run;
    for (uint32_t i = 0; i < m;) {
        uint32_t j = i + 1;
        while (j < m && a[j].key == a[i].key) ++j;
        if (j - i > 1) {
            run.clear();
            for (uint32_t q = i; q < j; ++q) {
                const Chunk& c = t.chunks[ids[q]];
                const FeeFrac fr = t.Rate(ids[q]);
                run.push_back(RunItem{full(fr), fr.fee, fr.size, c.eq_prefix, c.max_rank, ids[q]});
            }
            std::sort(run.begin(), run.end(), [](const RunItem& x, const RunItem& y) {
                if (x.full != y.full) return x.full < y.full;
                const int cmp = CompareFeerate({x.fee, x.size}, {y.fee, y.size});
                if (cmp != 0) return cmp > 0;
                if (x.eq_prefix != y.eq_prefix) return x.eq_prefix < y.eq_prefix;
                if (x.max_rank != y.max_rank) return x.max_rank < y.max_rank;
                return x.id < y.id;
            });
            for (uint32_t q = i; q < j; ++q) ids[q] = run[q - i].id;
        }
        i = j;
    }
    return ids;
}

}  // namespace

void SortIntoMiningOrder(ChunkTable& t)
{
    const uint32_t m = t.Count();
    const std::vector<uint32_t> ids = MiningOrder(t);
    // Apply the permutation (new chunk k = old chunk ids[k]) as a gather into a second table:
    // sequential writes, one random read per chunk (walking the permutation's cycles in place
    // made both random). The freed table's memory is reused by the next cycle (malloc_tuning.h).
    std::vector<Chunk> sorted;
    sorted.reserve(m);
    for (uint32_t k = 0; k < m; ++k) sorted.push_back(t.chunks[ids[k]]);
    t.chunks.swap(sorted);
    for (uint32_t k = 0; k < m; ++k) {
        for (uint32_t i = t.chunks[k].tx_begin; i < t.chunks[k].tx_end; ++i) t.chunk_of[t.txs[i]] = k;
    }
}

std::string SanityCheck(const Graph& g, const ChunkTable& t)
{
    std::vector<uint8_t> covered(g.n, 0);
    for (uint32_t k = 0; k < t.Count(); ++k) {
        const Chunk& c = t.chunks[k];
        if (c.tx_begin >= c.tx_end) return "empty chunk";
        FeeFrac adj;
        int64_t w = 0, s = 0;
        uint32_t mr = 0;
        for (uint32_t x : t.Txs(k)) {
            if (t.chunk_of[x] != k) return "chunk_of is stale";
            if (covered[x]++) return "transaction in two chunks";
            adj += FeeFrac{g.fee[x], g.adj_weight[x]};
            w += g.weight[x];
            s += g.sigops[x];
            mr = std::max(mr, g.rank[x]);
        }
        if (adj != t.AdjRate(k) || w != c.weight || s != c.sigops || mr != c.max_rank) return "chunk sums are stale";
        if (k > 0 && !t.Before(k - 1, k)) return "chunks are not in mining order";
    }
    if (std::find(covered.begin(), covered.end(), 0) != covered.end()) return "a transaction has no chunk";
    return "";
}

}  // namespace opt
