// Incremental optimizer cycles: a mempool kept by stable slot between cycles, changed by diffs.
//
// The engine owns the transaction table (fee, weight, sigop cost, parents and children by slot,
// the 32-byte txid key in Core's memcmp order) and, from the previous Build, each transaction's
// position in the linearization and whether its cluster was proven optimal. Apply() records which
// slots changed (added, fee/weight/parents changed, or a neighbour of a removed transaction);
// Build() renumbers the live slots in txid order (so rank = index, as the mirror snapshot does)
// and runs the cycle with the previous linearization as warm order and every unchanged cluster
// marked reusable: only clusters holding a changed slot are linearized again. The cycle's
// prepared graph (optimizer.h: clusters, renumbered graph) is kept too, and an incremental Build
// derives the next one from it (incremental_prepare.cpp): unchanged clusters are copied as
// blocks, only the changed region is clustered and sorted again. Build(full) ignores the previous
// state (a from-scratch cycle of the same table, validated and clustered anew: the periodic check).
//
// Invariants (between calls): alive slots are exactly those in `sorted`, ordered by key; parents
// and children of an alive slot are alive and mirror each other; a slot with dirty = 0 is in the
// same cluster, with the same data, as at the last Build.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "optimizer.h"

namespace opt {

using TxidKey = std::array<uint32_t, 8>;  // the txid's internal bytes as big-endian words (memcmp order)

/** One cycle's result plus what maps its indices back: index i is slot_of_index[i], the first two
 *  words of its txid key keys[2i .. 2i+2) (ascending; the lookups' keys, src/optimizer/cache/txLookup.ts).
 *  Both view the engine's arrays: valid until its next call. */
struct IncrementalResult {
    Result r;
    std::span<const uint32_t> slot_of_index;
    std::span<const uint32_t> keys;
    std::vector<double> chunk_rate;  // per index: its chunk's fee rate, sat/vB (fee * 4 / Core's chunk weight)
    uint32_t dirty_slots{0};
    double prepare_ms{0};
    double finish_ms{0};  // after the cycle: what the next build keeps and the per-index arrays (Remember, DescribeIndices)
};

/** The diff of one step, as arrays (views of the caller's). Upserts: slot, fee, weight, sigops,
 *  8 key words each, parents as CSR over parent slots (slots not alive are ignored). */
struct DiffView {
    std::span<const uint32_t> removed;
    std::span<const uint32_t> slots;
    std::span<const double> fee;
    std::span<const uint32_t> weight;
    std::span<const uint32_t> sigops;
    std::span<const uint32_t> keys;
    std::span<const uint32_t> parent_offsets;
    std::span<const uint32_t> parent_slots;
};

class IncrementalEngine
{
public:
    /** Removals first, then upserts (a new slot, or new data for a live one). Throws InputError on
     *  inconsistent arrays; the table is unchanged then. Complexity: O(diff + their links). */
    void Apply(const DiffView& diff);
    /** Build the templates of the current table. Complexity: O(n + e) plus the changed clusters'
     *  linearization (everything when full) and the template phases of BuildTemplates. */
    IncrementalResult Build(const Options& options, bool full);
    uint32_t Size() const noexcept { return m_alive; }
    /** Forget everything (slots included). */
    void Clear();

private:
    // A transaction's current data; Build reads it only for changed transactions (the others are
    // copied from the last Build's arrays); keys and children live apart.
    struct Slot {
        double fee{0};
        uint32_t weight{0}, sigops{0};
        bool alive{false}, dirty{true}, fresh{false};
        std::vector<uint32_t> parents;
    };
    std::vector<Slot> m_slots;
    std::vector<TxidKey> m_keys;                    // by slot
    std::vector<std::vector<uint32_t>> m_children;  // by slot
    std::vector<uint32_t> m_sorted;                 // alive slots by key
    std::vector<uint32_t> m_fresh;                  // slots added since the last Build (not yet in m_sorted)
    std::vector<TxidKey> m_sorted_keys;             // keys of m_sorted, contiguous
    std::vector<uint32_t> m_lookup_keys;            // their first two words, for the lookups
    uint32_t m_prev_n{0};                           // transactions of the last Build (bound of warm_pos)
    std::vector<uint32_t> m_bucket;                 // scratch: position -> index and back
    std::vector<uint32_t> m_index;                  // slot -> index of the Build in progress
    // The cycle's input arrays, kept between builds so they are not reallocated each time.
    std::vector<double> m_fee;
    std::vector<uint32_t> m_weight, m_sigops, m_poff, m_pidx, m_rank, m_warm;
    std::vector<uint8_t> m_reuse;
    std::vector<uint32_t> m_dropped;  // slots taken out of m_sorted's set since the last Build
    std::vector<uint8_t> m_drop;      // scratch of SortIn: positions to drop
    std::vector<uint32_t> m_merged;   // scratch of SortIn (swapped with m_sorted)
    std::vector<TxidKey> m_merged_keys;
    // The last Build's input and results by its index, so a clean survivor is copied from them
    // in order instead of read from its slot; SortIn maps old indices to new ones and back.
    std::vector<double> m_prev_fee;
    std::vector<uint32_t> m_prev_weight, m_prev_sigops, m_prev_poff, m_prev_pidx;
    std::vector<uint32_t> m_prev_pos;      // index -> position in the last Build's linearization
    std::vector<uint32_t> m_prev_pos_int;  // the same by internal index of the last Build's m_prep
    std::vector<uint8_t> m_prev_opt;       // index -> its cluster was proven optimal
    bool m_prev_valid{false};              // the m_prev_* arrays describe the last Build
    std::vector<uint32_t> m_src;           // new index -> old index (UINT32_MAX: fresh)
    std::vector<uint32_t> m_remap;         // old index -> new index (UINT32_MAX: dropped)
    std::vector<uint32_t> m_dirty_list;    // slots marked dirty since the last Build (may repeat)
    std::vector<uint8_t> m_dirty_at;       // scratch: new index -> changed
    uint32_t m_alive{0};
    // The last Build's prepared graph (internal indices; original[] are its indices), the one
    // being built (swapped in after a Build), and scratch of the incremental preparation.
    Prepared m_prep, m_next;
    bool m_prep_valid{false};         // m_prep describes the last Build
    bool m_arrays_valid{false};       // m_fee.. (the cycle's input arrays) describe the last Build
    std::vector<uint8_t> m_intact;    // old cluster -> unchanged (same members, none changed)
    std::vector<uint32_t> m_min_new;  // old cluster -> its lowest new index
    std::vector<uint8_t> m_region;    // new index -> in a cluster that changed
    std::vector<uint32_t> m_region_list, m_sub_of, m_sub_original;
    std::vector<uint32_t> m_new_of_old;  // old internal index -> new index (UINT32_MAX: removed)
    std::vector<uint32_t> m_from_old;    // new cluster -> first old internal index if copied intact, else UINT32_MAX
    // The last build's mining order, and what relates it to the coming build (new cluster -> the
    // last build's cluster copied intact, or UINT32_MAX).
    ChunkOrderMemo m_chunk_order;
    std::vector<uint32_t> m_old_cluster_of_new;
    void MarkDirty(uint32_t s);
    void Unlink(uint32_t s);
    void SortIn();
    // Build's steps, in order.
    /** m_dirty_at: which indices of n changed since the last Build. */
    void MarkChanged(uint32_t n);
    /** The cycle's input arrays, reuse marks and warm order; returns how many indices were read
     *  from their slots (changed ones). */
    uint32_t WriteInput(uint32_t n, bool full);
    /** The cycle's input as WriteInput left it. */
    InputView InputArrays() const;
    /** Index i's data and parents from the last Build's index oi; false (nothing written) if a
     *  parent is gone. */
    bool CopyClean(uint32_t i, uint32_t oi);
    /** Index i's data and parents from its slot. */
    void ReadSlot(uint32_t i);
    /** The next Prepared (m_next) from m_prep, the dirty marks and the index maps of SortIn: what
     *  Prepare would build from this table's input, without reading the clean clusters' slots.
     *  false when it cannot (an inconsistent change, a cycle: the caller then takes the full path,
     *  which reports it). Complexity: O(n + e) sequential, plus O(r log r) for the r transactions
     *  of changed clusters (incremental_prepare.cpp). */
    bool PrepareIncremental(uint32_t n);
    /** Tell the chunk order memo how m_next's clusters relate to m_prep's. O(clusters). */
    void RelateChunkOrder();
    /** The warm order and reuse marks of m_next, from the last Build's positions. O(n). */
    void WarmHint(uint32_t n);
    /** Keep what the next Build reuses (positions, optimal marks); every slot is clean now. */
    void Remember(IncrementalResult& out, uint32_t n);
    /** Per index: its chunk's rate, its slot and its lookup key. */
    void DescribeIndices(IncrementalResult& out, uint32_t n);
};

}  // namespace opt
