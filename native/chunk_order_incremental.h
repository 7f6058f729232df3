// The chunks' mining order kept from one build to the next (the incremental engine's).
//
// SortIntoMiningOrder sorts every chunk each cycle. Between incremental cycles most clusters are
// unchanged: their chunks are the same (same linearization, same sums, same eq_prefix) and their
// max_rank only moves by the renumbering of surviving transactions, which keeps their order
// (SortIn keeps survivors in txid order). Core's order (chunk.h: rate, then eq_prefix, then
// max_rank) is total and depends on nothing else, so those chunks keep their relative order: the
// previous order, restricted to them, is still sorted. The chunks of changed clusters are sorted
// alone and merged in, one pass: the same order as the full sort, chunk for chunk.
//
// Each kept chunk is checked against the new table (its place in the cluster's linearization,
// its transaction count, fee, adjusted weight and eq_prefix; its renumbered max_rank in debug
// builds, a random read per chunk otherwise) and each new chunk must be placed exactly once;
// otherwise, or when many chunks changed, the full sort runs. Debug builds also compare the result
// with the full sort. The cost: two passes in cluster order and one in mining order, a 4-byte
// scatter per kept chunk, and the permutation (as the full sort applies it); the radix sort and the
// exact sorts of its runs are skipped.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "chunk.h"
#include "clusters.h"

namespace opt {

class ChunkOrderMemo
{
public:
    /** What relates the coming build to the last kept one: new cluster -> the last build's cluster
     *  with the same members unchanged (UINT32_MAX: changed or new), and old input index -> new
     *  input index (UINT32_MAX: gone). Both must outlive the build. Without it the full sort runs. */
    void Relate(std::span<const uint32_t> old_cluster_of_new, std::span<const uint32_t> remap) noexcept
    {
        m_old_cluster_of_new = old_cluster_of_new;
        m_remap = remap;
        m_related = true;
    }
    /** No relation for the coming build (one set for a build that threw before its sort must not
     *  reach the next). */
    void Unrelate() noexcept { m_related = false; }
    /** Forget the kept order (the next sort is a full one). */
    void Clear() noexcept
    {
        m_kept.clear();
        m_first.clear();
        m_related = false;
    }
    /** Sort t (cluster order, chunk_of set, Core's adjusted weights) into mining order as
     *  SortIntoMiningOrder does, from the kept order when related, and keep the result for the
     *  next build. Returns how many chunks were placed from the kept order (0: full sort).
     *  parallel: the permutation is applied on two threads (ApplyChunkOrder; the same table).
     *  Complexity: O(m + c log c) for c chunks of changed clusters; O(m log m) on the fallback. */
    uint32_t Sort(ChunkTable& t, const Clusters& cl, bool parallel = false);

private:
    /** A chunk of the last build, in cluster order (its id before the sort). */
    struct Kept {
        int64_t fee, adj_weight, eq_prefix;
        uint32_t max_rank;     // the last build's input index
        uint32_t local_begin;  // its first position in its cluster's linearization
        uint32_t size;         // transactions
    };
    /** A sort key (chunk.h's order: rate, eq_prefix, max_rank). */
    struct Key {
        int64_t fee, adj_weight, eq_prefix;
        uint32_t max_rank, id;
    };
    std::vector<Kept> m_kept;          // by the last build's chunk id in cluster order
    std::vector<uint32_t> m_kept_pos;  // its mining position
    std::vector<uint32_t> m_first;     // the last build's cluster -> its first chunk there (count + 1)
    std::span<const uint32_t> m_old_cluster_of_new, m_remap;
    std::vector<Key> m_sorted;  // the last build's sort keys by mining position (its max_rank)
    bool m_related{false};
    // Scratch, kept so that it is not reallocated each cycle.
    std::vector<uint32_t> m_ids, m_first_next, m_target;  // m_target: old mining position -> kept chunk here
    std::vector<Key> m_fresh;                             // the changed chunks' keys
    std::vector<Kept> m_next;

    /** The mining order as chunk ids of t (new k = old ids[k]) from the kept order; false when it
     *  cannot be trusted or many chunks changed. */
    bool KeptOrder(const ChunkTable& t, const Clusters& cl);
};

}  // namespace opt
