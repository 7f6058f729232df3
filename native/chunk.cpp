// Chunking and mining order; see chunk.h for the invariants.
#include "chunk.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

#include "parallel.h"

namespace opt {

uint32_t ChunkCluster(const Graph& g, uint32_t cluster_id, std::span<const uint32_t> seq, uint32_t base, Chunk* out, bool real)
{
    auto rate = [real](const Chunk& c) { return FeeFrac{c.fee, real ? c.weight : c.adj_weight}; };
    // Stack chunking (Core's ChunkLinearization): each new transaction starts a group that absorbs
    // preceding groups while its fee rate is strictly higher. Groups are contiguous in seq. The
    // group's sums stay in locals and are stored once (a Chunk built on the stack and copied out
    // stalled on its own stores, the most of this function's time).
    uint32_t k = 0;
    for (uint32_t i = 0; i < seq.size(); ++i) {
        const uint32_t x = seq[i];
        int64_t fee = g.fee[x], adj_weight = g.adj_weight[x], weight = g.weight[x], sigops = g.sigops[x];
        uint32_t tx_begin = base + i, max_rank = g.rank[x];
        while (k > 0 && CompareFeerate({fee, real ? weight : adj_weight}, rate(out[k - 1])) > 0) {
            const Chunk& prev = out[--k];
            tx_begin = prev.tx_begin;
            fee += prev.fee;
            adj_weight += prev.adj_weight;
            weight += prev.weight;
            sigops += prev.sigops;
            max_rank = std::max(max_rank, prev.max_rank);
        }
        out[k++] = Chunk{fee, adj_weight, weight, sigops, 0, tx_begin, base + i + 1, cluster_id, max_rank};
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

void AssembleChunks(ChunkTable& t, const Clusters& cl, std::span<const uint32_t> counts, bool set_chunk_of, uint64_t* keys)
{
    // Cluster c's chunks move from offsets[c] to the running total, which is never larger: a
    // forward in-place compaction.
    uint32_t m = 0;
    for (uint32_t c = 0; c < cl.count; ++c) {
        for (uint32_t j = 0; j < counts[c]; ++j, ++m) {
            if (m != cl.offsets[c] + j) {
                t.chunks[m] = t.chunks[cl.offsets[c] + j];
                if (keys != nullptr) keys[m] = keys[cl.offsets[c] + j];
            }
            if (!set_chunk_of) continue;
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
/** Arrays written in full before they are read: no zeroing pass (default_init_allocator.h). */
template <typename T>
using Scratch = std::vector<T, DefaultInitAllocator<T>>;
Scratch<uint32_t> MiningOrder(const ChunkTable& t, const uint64_t* keys = nullptr);

/** chunk_of of every transaction in t.txs, in linearization order (the chunks partition it): each
 *  chunk's first position names it, then one pass in sequence; walking the chunks in mining order
 *  jumps to a random place per chunk. chunk_of must be sized already. O(n + m). */
void WriteChunkOf(ChunkTable& t)
{
    std::vector<uint32_t> first_at(t.txs.size(), UINT32_MAX);
    for (uint32_t k = 0; k < t.Count(); ++k) first_at[t.chunks[k].tx_begin] = k;
    uint32_t k = UINT32_MAX;
    for (size_t i = 0; i < t.txs.size(); ++i) {
        if (first_at[i] != UINT32_MAX) k = first_at[i];
        t.chunk_of[t.txs[i]] = k;
    }
}
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
    const Scratch<uint32_t> ids = MiningOrder(fresh);
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
    WriteChunkOf(t);
    return t;
}

#ifdef OPTIMIZER_DEBUG
namespace {

/** RechunkRemaining by chunking every cluster again and sorting all the chunks: the reference the
 *  debug build compares the merge with. */
ChunkTable RechunkRemainingBySort(const Graph& g, const ChunkTable& t, std::span<const uint8_t> keep)
{
    ChunkTable r;
    r.real = t.real;
    r.txs.reserve(t.txs.size());  // no reallocation below: ChunkCluster reads spans of it
    r.chunks.resize(t.txs.size());
    r.chunk_of.assign(g.n, UINT32_MAX);
    uint32_t m = 0;
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

}  // namespace

bool SameTable(const ChunkTable& a, const ChunkTable& b)
{
    if (a.real != b.real || a.txs != b.txs || a.chunk_of != b.chunk_of || a.Count() != b.Count()) return false;
    for (uint32_t k = 0; k < a.Count(); ++k) {
        const Chunk &x = a.chunks[k], &y = b.chunks[k];
        if (x.fee != y.fee || x.adj_weight != y.adj_weight || x.weight != y.weight || x.sigops != y.sigops || x.eq_prefix != y.eq_prefix ||
            x.tx_begin != y.tx_begin || x.tx_end != y.tx_end || x.cluster != y.cluster || x.max_rank != y.max_rank) {
            return false;
        }
    }
    return true;
}
#endif

ChunkTable RechunkRemaining(const Graph& g, const ChunkTable& t, std::span<const uint8_t> keep)
{
    // A cluster that keeps all its transactions keeps its chunks (the same linearization gives the
    // same chunks), at positions shifted by what earlier clusters lost, and t's mining order
    // restricted to those chunks is still sorted (Core's order depends only on the chunks:
    // CompareMining). Only the clusters that lost some transactions are chunked again; their
    // chunks are sorted alone and merged in, as RealFromCore does. (Chunking and sorting every
    // cluster again, the two calls of a cycle that adopts the bound's template took about half of
    // its 88 ms at 150k transactions.)
    ChunkTable r;
    r.real = t.real;
    r.txs.reserve(t.txs.size());
    const uint32_t m = t.Count();
    constexpr uint32_t CHANGED = UINT32_MAX;
    std::vector<uint32_t> moved_begin(m, CHANGED);  // a kept chunk's new first position
    ChunkTable fresh;                               // the chunks of clusters that lost transactions
    fresh.real = t.real;
    // Each chunk by its first position, in one pass over the chunks: the walk below then reads in
    // sequence. (Reading t.chunks[t.chunk_of[x]] there instead is a chain of dependent random
    // reads, the next position coming from the chunk read: ~130 ns each on the build VM.)
    struct Start {
        uint32_t chunk, cluster;
    };
    constexpr Start INSIDE{UINT32_MAX, UINT32_MAX};  // not a chunk's first position
    std::vector<Start> start_at(t.txs.size(), INSIDE);
    for (uint32_t k = 0; k < m; ++k) start_at[t.chunks[k].tx_begin] = Start{k, t.chunks[k].cluster};
    std::vector<std::pair<uint32_t, uint32_t>> own;  // the cluster in hand's chunks and first positions
    size_t kept_chunks = 0;
    // t.txs holds each cluster's linearization contiguously, chunk after chunk.
    const size_t n_pos = t.txs.size();
    for (size_t i = 0; i < n_pos;) {
        const uint32_t c = start_at[i].cluster;
        own.clear();
        size_t j = i, kept = 0;
        while (j < n_pos && start_at[j].cluster == c) {  // j is a chunk's first position
            own.emplace_back(start_at[j].chunk, static_cast<uint32_t>(j));
            do {
                kept += keep[t.txs[j]] != 0;
                ++j;
            } while (j < n_pos && start_at[j].chunk == INSIDE.chunk);
        }
        const auto base = static_cast<uint32_t>(r.txs.size());
        if (kept == j - i) {
            r.txs.insert(r.txs.end(), t.txs.begin() + static_cast<std::ptrdiff_t>(i), t.txs.begin() + static_cast<std::ptrdiff_t>(j));
            for (const auto& [k, at] : own) moved_begin[k] = base + static_cast<uint32_t>(at - i);
            kept_chunks += own.size();
        } else if (kept > 0) {
            for (size_t q = i; q < j; ++q) {
                if (keep[t.txs[q]]) r.txs.push_back(t.txs[q]);
            }
            const size_t at = fresh.chunks.size();
            fresh.chunks.resize(at + kept);
            const std::span<const uint32_t> seq{r.txs.data() + base, kept};
            fresh.chunks.resize(at + ChunkCluster(g, c, seq, base, fresh.chunks.data() + at, t.real));
        }
        i = j;
    }
    const Scratch<uint32_t> ids = MiningOrder(fresh);
    r.chunks.reserve(fresh.Count() + kept_chunks);
    size_t f = 0;
    for (uint32_t k = 0; k < m; ++k) {
        if (moved_begin[k] == CHANGED) continue;
        Chunk ch = t.chunks[k];
        ch.tx_end = moved_begin[k] + (ch.tx_end - ch.tx_begin);
        ch.tx_begin = moved_begin[k];
        while (f < ids.size() && CompareMining(fresh.chunks[ids[f]], ch, t.real) < 0) r.chunks.push_back(fresh.chunks[ids[f++]]);
        r.chunks.push_back(ch);
    }
    for (; f < ids.size(); ++f) r.chunks.push_back(fresh.chunks[ids[f]]);
    r.chunk_of.assign(g.n, UINT32_MAX);
    WriteChunkOf(r);
    OPT_ASSUME(SameTable(r, RechunkRemainingBySort(g, t, keep)));
    return r;
}

namespace {

/** Read the chunk `d` places ahead in a gather (two lines: a Chunk may straddle them), so the
 *  random reads of a permutation overlap instead of waiting one by one. */
inline void PrefetchChunk(const ChunkTable& t, std::span<const uint32_t> ids, size_t at) noexcept
{
    if (at < ids.size()) {
        const char* c = reinterpret_cast<const char*>(t.chunks.data() + ids[at]);
        __builtin_prefetch(c);
        __builtin_prefetch(c + sizeof(Chunk) - 1);
    }
}
constexpr size_t PREFETCH_AHEAD = 16;

/** t's chunk ids in Core's mining order (ChunkTable::Before). Key: MiningKey, the bits of the
 *  double rate complemented (ascending keys are descending rates; rounding is monotone, so
 *  different doubles order like the exact rates). Each chunk is one 8-byte word: its key relative
 *  to the smallest, truncated to the bits the id leaves free, above its id. A cycle's rates span
 *  a few binary exponents, so the word keeps far more of the key than a fixed top half would, and
 *  half the bytes of a (key, id) pair move through the sort: at a million chunks the passes
 *  stream 8 instead of 16 MB. An LSD radix sort on the word's bits that hold the key's top 32
 *  (passes of at most 11 bits, skipped where every chunk has the same digit); runs with those
 *  bits equal (rates within a relative 2^-20) are then sorted by the whole word, and only runs of
 *  equal truncated keys read the table, for Core's full comparison on a compact copy of their
 *  sort keys (no gather through the table per comparison). */
Scratch<uint32_t> MiningOrder(const ChunkTable& t, const uint64_t* keys)
{
    const uint32_t m = t.Count();
    Scratch<uint32_t> ids(m);
    if (m == 0) return ids;
    Scratch<uint64_t> own;
    if (keys == nullptr) {
        own.resize(m);
        for (uint32_t k = 0; k < m; ++k) own[k] = MiningKey(t.Rate(k));
        keys = own.data();
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t k = 0; k < m; ++k) {
        lo = std::min(lo, keys[k]);
        hi = std::max(hi, keys[k]);
    }
    // Word layout: [ (key - lo) >> drop | id ], the id in the low id_bits.
    const int id_bits = std::bit_width(m - 1);
    const int span_bits = std::bit_width(hi - lo);  // (key - lo) < 2^span_bits
    const int drop = std::max(0, span_bits - (64 - id_bits));
    const int top = id_bits + span_bits - drop;  // the word's bits above this are 0
    // The radix covers the bits that hold the key's top 32 (key >> 32 differs => these differ).
    const int radix_bits = std::max(0, std::min(top - id_bits, span_bits - 32));
    const int radix_low = top - radix_bits;
    Scratch<uint64_t> a(m), b(m);
    for (uint32_t k = 0; k < m; ++k) a[k] = ((keys[k] - lo) >> drop) << id_bits | k;
    const int passes = (radix_bits + 10) / 11;
    const int digit = passes == 0 ? 0 : (radix_bits + passes - 1) / passes;
    const uint64_t mask = (uint64_t{1} << digit) - 1;
    std::vector<uint32_t> counts(size_t{static_cast<uint32_t>(passes)} << digit);  // every pass's histogram in one read
    for (const uint64_t w : a) {
        for (int d = 0; d < passes; ++d) ++counts[(size_t{static_cast<uint32_t>(d)} << digit) + ((w >> (radix_low + d * digit)) & mask)];
    }
    for (int d = 0; d < passes; ++d) {
        uint32_t* count = counts.data() + (size_t{static_cast<uint32_t>(d)} << digit);
        const size_t buckets = size_t{1} << digit;
        if (std::find(count, count + buckets, m) != count + buckets) continue;  // one bucket
        uint32_t sum = 0;
        for (size_t i = 0; i < buckets; ++i) sum += std::exchange(count[i], sum);  // exclusive prefix sums
        const int shift = radix_low + d * digit;
        for (const uint64_t w : a) b[count[(w >> shift) & mask]++] = w;
        a.swap(b);
    }
    // radix_low is 64 only with no radix bits and a full word (2^32 chunks): every word is then one run.
    const auto radix_part = [radix_low](uint64_t w) { return radix_low < 64 ? w >> radix_low : 0; };
    for (uint32_t i = 0; i < m;) {  // runs of equal radix bits: by the whole word
        uint32_t j = i + 1;
        while (j < m && radix_part(a[j]) == radix_part(a[i])) ++j;
        if (j - i > 1) std::sort(a.begin() + i, a.begin() + j);
        i = j;
    }
    const uint64_t id_mask = (uint64_t{1} << id_bits) - 1;
    for (uint32_t i = 0; i < m; ++i) ids[i] = static_cast<uint32_t>(a[i] & id_mask);
    // Runs of equal truncated keys: Core's comparison. Their members' table entries are read in
    // one pass over all runs, prefetched ahead across run boundaries (most runs are two or three
    // chunks: a prefetch within each run would not reach ahead), then each run is sorted.
    struct Run {
        uint32_t begin, end;
    };
    std::vector<Run> runs;
    size_t members = 0;
    for (uint32_t i = 0; i < m;) {
        uint32_t j = i + 1;
        while (j < m && (a[j] >> id_bits) == (a[i] >> id_bits)) ++j;
        if (j - i > 1) {
            runs.push_back(Run{i, j});
            members += j - i;
        }
        i = j;
    }
    Scratch<uint32_t> member_ids(members);
    {
        size_t at = 0;
        for (const Run& r : runs) at = std::copy(ids.begin() + r.begin, ids.begin() + r.end, member_ids.begin() + at) - member_ids.begin();
    }
    struct RunItem {
        int64_t fee, size, eq_prefix;
        uint32_t max_rank, id;
    };
    Scratch<RunItem> items(members);
    for (size_t q = 0; q < PREFETCH_AHEAD; ++q) PrefetchChunk(t, member_ids, q);
    for (size_t q = 0; q < members; ++q) {
        PrefetchChunk(t, member_ids, q + PREFETCH_AHEAD);
        const uint32_t k = member_ids[q];
        const Chunk& c = t.chunks[k];
        const FeeFrac fr = t.Rate(k);
        items[q] = RunItem{fr.fee, fr.size, c.eq_prefix, c.max_rank, k};
    }
    size_t at = 0;
    for (const Run& r : runs) {
        const auto first = items.begin() + static_cast<std::ptrdiff_t>(at);
        const auto last = first + (r.end - r.begin);
        std::sort(first, last, [](const RunItem& x, const RunItem& y) {
            const int cmp = CompareFeerate({x.fee, x.size}, {y.fee, y.size});
            if (cmp != 0) return cmp > 0;
            if (x.eq_prefix != y.eq_prefix) return x.eq_prefix < y.eq_prefix;
            if (x.max_rank != y.max_rank) return x.max_rank < y.max_rank;
            return x.id < y.id;
        });
        for (uint32_t q = r.begin; q < r.end; ++q) ids[q] = items[at + (q - r.begin)].id;
        at += r.end - r.begin;
    }
    return ids;
}

}  // namespace

void ApplyChunkOrder(ChunkTable& t, std::span<const uint32_t> ids, bool parallel)
{
    const uint32_t m = t.Count();
    // chunk_of from the old table, walked in its order (a cluster's transactions are contiguous,
    // so both txs and chunk_of are read and written nearly in sequence), through each old chunk's
    // new position; walking the sorted table instead jumps to a random place per chunk.
    auto chunk_of = [&] {
        Scratch<uint32_t> pos(m);  // ids is a permutation: every entry written
        for (uint32_t k = 0; k < m; ++k) pos[ids[k]] = k;
        for (uint32_t j = 0; j < m; ++j) {
            for (uint32_t i = t.chunks[j].tx_begin; i < t.chunks[j].tx_end; ++i) t.chunk_of[t.txs[i]] = pos[j];
        }
    };
    // Apply the permutation (new chunk k = old chunk ids[k]) as a gather into a second table:
    // sequential writes, one random read per chunk, prefetched ahead. The freed table's memory
    // is reused by the next cycle (malloc_tuning.h).
    decltype(t.chunks) sorted;
    auto gather = [&] {
        sorted.reserve(m);
        for (size_t k = 0; k < PREFETCH_AHEAD; ++k) PrefetchChunk(t, ids, k);
        for (uint32_t k = 0; k < m; ++k) {
            PrefetchChunk(t, ids, k + PREFETCH_AHEAD);
            sorted.push_back(t.chunks[ids[k]]);
        }
    };
    // Both only read the old table; they write different arrays.
    RunBoth(parallel, chunk_of, gather);
    t.chunks.swap(sorted);
}

void SortIntoMiningOrder(ChunkTable& t, std::span<const uint64_t> keys, bool parallel)
{
    const Scratch<uint32_t> ids = MiningOrder(t, keys.empty() ? nullptr : keys.data());
    ApplyChunkOrder(t, ids, parallel);
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
