// Chunks of the cluster linearizations, and Core v31's mining order over them.
//
// Invariants of a ChunkTable:
// - Chunk k holds txs[tx_begin .. tx_end) in linearization order; fee, adj_weight (sigop-adjusted,
//   Core's TxGraph size), weight (real), sigops and max_rank (largest txid rank) are sums/maxima
//   over its transactions. A cluster's chunks have non-increasing fee rates (fee / adj_weight).
// - eq_prefix is the total adj_weight of the chunks of the same cluster with the same fee rate,
//   up to and including this one (Core's m_main_equal_feerate_chunk_prefix_size).
// - chunk_of[t] is the chunk of transaction t.
// - After SortIntoMiningOrder, chunk ids are mining-order positions: chunk 0 is mined first.
// With real = true the same is done by real weight instead of adj_weight (the consensus order of
// the optimized template; sigop cost is then a separate limit).
// Core's mining order (txgraph.cpp, chunk index): fee rate descending; then eq_prefix ascending;
// then the chunk's maximum txid (Core's fallback order) ascending. Distinct chunks differ in that
// last key, so the order is total.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "default_init_allocator.h"
#include "graph.h"
#include "linearize.h"

namespace opt {

struct Chunk {
    int64_t fee;
    int64_t adj_weight;
    int64_t weight;
    int64_t sigops;
    int64_t eq_prefix;
    uint32_t tx_begin, tx_end;
    uint32_t cluster;
    uint32_t max_rank;
};

struct ChunkTable {
    std::vector<uint32_t> txs;
    // Staged with one slot per transaction and written before read: not zeroed first.
    std::vector<Chunk, DefaultInitAllocator<Chunk>> chunks;
    std::vector<uint32_t> chunk_of;
    bool real{false};  // chunked and ordered by real weight (the consensus order), else by adj_weight

    uint32_t Count() const noexcept { return static_cast<uint32_t>(chunks.size()); }
    FeeFrac AdjRate(uint32_t k) const noexcept { return {chunks[k].fee, chunks[k].adj_weight}; }
    /** The rate the table was chunked and ordered by (real or sigop-adjusted). */
    FeeFrac Rate(uint32_t k) const noexcept { return {chunks[k].fee, real ? chunks[k].weight : chunks[k].adj_weight}; }
    uint32_t TxCount(uint32_t k) const noexcept { return chunks[k].tx_end - chunks[k].tx_begin; }
    std::span<const uint32_t> Txs(uint32_t k) const noexcept
    {
        return {txs.data() + chunks[k].tx_begin, txs.data() + chunks[k].tx_end};
    }
    /** Whether chunk a is mined before chunk b in Core's order. Complexity: O(1). */
    bool Before(uint32_t a, uint32_t b) const noexcept;
};

/** Chunk one cluster's linearization `seq` (which sits at lin positions base, base+1, ...) into
 *  out[0 .. k): at most |seq| records, eq_prefix included, tx ranges in lin positions. Returns k.
 *  Thread-safe for distinct clusters (touches only out). Complexity: O(|seq|). */
uint32_t ChunkCluster(const Graph& g, uint32_t cluster_id, std::span<const uint32_t> seq, uint32_t base, Chunk* out,
                      bool real = false);

/** ChunkCluster's one record for a one-transaction cluster (seq = {t}, by adjusted weight), inline:
 *  most clusters are single transactions, and the call and loops cost more than the record. */
inline Chunk ChunkOfOne(const Graph& g, uint32_t cluster_id, uint32_t t, uint32_t base) noexcept
{
    // Its own rate's size is its eq_prefix: no earlier chunk in the cluster.
    return Chunk{g.fee[t], g.adj_weight[t], g.weight[t], g.sigops[t], g.adj_weight[t], base, base + 1, cluster_id, g.rank[t]};
}

/** Prepare a table whose chunks will be staged per cluster: chunks has n slots, cluster c may use
 *  chunks[offsets[c] .. offsets[c+1]) (ChunkCluster with base = offsets[c]). */
ChunkTable StageChunks(const Graph& g, const Linearization& lin);

/** Compact the staged chunks (counts[c] per cluster) in place and set chunk_of (unless
 *  !set_chunk_of: then chunk_of is left for SortIntoMiningOrder, which rewrites all of it). keys
 *  (optional, one per staged slot): compacted alongside the chunks. O(n). */
void AssembleChunks(ChunkTable& t, const Clusters& cl, std::span<const uint32_t> counts, bool set_chunk_of = true,
                    uint64_t* keys = nullptr);

/** Chunk every cluster's linearization (StageChunks + ChunkCluster + AssembleChunks). O(n). */
ChunkTable BuildChunks(const Graph& g, const Clusters& cl, const Linearization& lin, bool real = false);

/** The table by real weight (real = true, in mining order) from Core's table `core` (sorted, by
 *  adjusted weight): the clusters with affected[c] != 0 are chunked again from real_lin (which
 *  equals core's linearization elsewhere) and merged in; the other chunks keep their order.
 *  The same table as BuildChunks(real_lin, true) + SortIntoMiningOrder. O(n + a log a) for a
 *  affected chunks. */
ChunkTable RealFromCore(const Graph& g, const Clusters& cl, const ChunkTable& core, const Linearization& real_lin,
                        std::span<const uint8_t> affected);

/** The chunks of t's linearizations restricted to the transactions with keep[x] != 0 (removing
 *  transactions from a topological order leaves one), re-chunked and in mining order; chunk_of
 *  of the others is UINT32_MAX. t must be in mining order (every table a cycle makes is): the
 *  clusters that keep every transaction keep their chunks and their order, and only the others'
 *  chunks are made and sorted again. Complexity: O(n + c log c) for c chunks of the clusters
 *  that lost transactions. */
ChunkTable RechunkRemaining(const Graph& g, const ChunkTable& t, std::span<const uint8_t> keep);

#ifdef OPTIMIZER_DEBUG
/** Debug: the same table (every field of every chunk, txs, chunk_of, real). O(n + m). */
bool SameTable(const ChunkTable& a, const ChunkTable& b);
#endif

/** The sort key of a rate: the bits of the double rate, complemented, so ascending keys are
 *  descending rates (non-negative doubles order like their bit patterns). */
inline uint64_t MiningKey(const FeeFrac& rate) noexcept
{
    return ~std::bit_cast<uint64_t>(static_cast<double>(rate.fee) / static_cast<double>(rate.size));
}

/** Renumber the chunks into Core's mining order (chunk k becomes the k-th mined) and update
 *  chunk_of. A radix sort on the rate's bits, then an exact sort of each run of near-equal rates.
 *  keys: empty, or keys[k] = MiningKey(t.Rate(k)) computed where the chunks were made (beside the
 *  linearization); the same order either way. parallel: as ApplyChunkOrder.
 *  Complexity: O(m) plus O(r log r) per run of r near-equal rates. */
void SortIntoMiningOrder(ChunkTable& t, std::span<const uint64_t> keys = {}, bool parallel = false);

/** Renumber t's chunks so that chunk k is old chunk ids[k] (a permutation), and update chunk_of.
 *  SortIntoMiningOrder's second half; the incremental engine applies its kept order with it. O(n + m).
 *  parallel: chunk_of is updated on a second thread beside the gather of the chunks (same table). */
void ApplyChunkOrder(ChunkTable& t, std::span<const uint32_t> ids, bool parallel = false);

/** Debug: recompute sums, prefixes and chunk_of for every chunk, and check the mining order.
 *  "" or the first mismatch. Complexity: O(n + m). */
std::string SanityCheck(const Graph& g, const ChunkTable& t);

}  // namespace opt
