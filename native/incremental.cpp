// The incremental engine; see incremental.h.
#include "incremental.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

namespace opt {

namespace {

constexpr uint32_t MAX_SLOT = 1u << 26;  // 67 M slots: far above any mempool

void EraseOne(std::vector<uint32_t>& v, uint32_t x)
{
    const auto it = std::find(v.begin(), v.end(), x);
    if (it != v.end()) {
        *it = v.back();
        v.pop_back();
    }
}

void CheckDiff(const DiffView& d)
{
    const size_t m = d.slots.size();
    auto fail = [](const std::string& what) { throw InputError(ErrorCode::LENGTH_MISMATCH, "diff: " + what); };
    if (d.fee.size() != m || d.weight.size() != m || (!d.sigops.empty() && d.sigops.size() != m)) {
        fail("feeSat, weightWu and sigopCost must have one entry per slot");
    }
    if (d.keys.size() != 8 * m) fail("keys must have 8 words per slot");
    if (d.parent_offsets.size() != m + 1 || d.parent_offsets[0] != 0 || d.parent_offsets[m] != d.parent_slots.size()) {
        fail("parentOffsets must have slots + 1 entries, from 0 to parentSlots.length");
    }
    for (size_t i = 0; i < m; ++i) {
        if (d.parent_offsets[i] > d.parent_offsets[i + 1]) fail("parentOffsets must be non-decreasing");
        if (d.slots[i] >= MAX_SLOT) throw InputError(ErrorCode::INDEX_OUT_OF_RANGE, "diff: slot " + std::to_string(d.slots[i]) + " too large");
        const double f = d.fee[i];
        if (!std::isfinite(f) || f < 0 || f >= 9007199254740992.0 || f != std::floor(f)) {
            throw InputError(ErrorCode::INVALID_FEE, "diff: feeSat[" + std::to_string(i) + "] must be an integer in [0, 2^53)");
        }
        if (d.weight[i] == 0) throw InputError(ErrorCode::INVALID_WEIGHT, "diff: weightWu[" + std::to_string(i) + "] must be >= 1");
    }
    for (uint32_t s : d.parent_slots) {
        if (s >= MAX_SLOT) throw InputError(ErrorCode::INDEX_OUT_OF_RANGE, "diff: parent slot " + std::to_string(s) + " too large");
    }
    for (uint32_t s : d.removed) {
        if (s >= MAX_SLOT) throw InputError(ErrorCode::INDEX_OUT_OF_RANGE, "diff: removed slot " + std::to_string(s) + " too large");
    }
}

}  // namespace

void IncrementalEngine::Clear()
{
    m_slots.clear();
    m_keys.clear();
    m_children.clear();
    m_sorted.clear();
    m_fresh.clear();
    m_sorted_keys.clear();
    m_prev_n = 0;
    m_dropped.clear();
    m_index.clear();
    m_dirty_list.clear();
    m_prev_valid = false;
    m_prep_valid = false;
    m_arrays_valid = false;
    m_alive = 0;
    m_chunk_order.Clear();
}

void IncrementalEngine::MarkDirty(uint32_t s)
{
    m_slots[s].dirty = true;
    m_dirty_list.push_back(s);  // duplicates are harmless: Build only clears and looks up
}

void IncrementalEngine::Unlink(uint32_t s)
{
    Slot& x = m_slots[s];
    for (uint32_t p : x.parents) {
        EraseOne(m_children[p], s);
        MarkDirty(p);
    }
    for (uint32_t c : m_children[s]) {
        EraseOne(m_slots[c].parents, s);
        MarkDirty(c);
    }
    x.parents.clear();
    m_children[s].clear();
}

void IncrementalEngine::Apply(const DiffView& d)
{
    CheckDiff(d);
    for (uint32_t s : d.removed) {
        if (s >= m_slots.size() || !m_slots[s].alive) continue;
        Unlink(s);
        m_slots[s].alive = false;
        m_dropped.push_back(s);
        --m_alive;
    }
    // Two passes, so a parent may come after its child in the same diff: first every upserted
    // slot is alive with its data, then the parent links are set.
    for (size_t i = 0; i < d.slots.size(); ++i) {
        const uint32_t s = d.slots[i];
        if (s >= m_slots.size()) {
            const size_t size = std::max<size_t>(s + 1, m_slots.size() * 3 / 2);
            m_slots.resize(size);
            m_keys.resize(size);
            m_children.resize(size);
        }
        TxidKey key;
        std::copy_n(d.keys.begin() + 8 * i, 8, key.begin());
        const uint32_t sigops = d.sigops.empty() ? 0 : d.sigops[i];
        Slot& x = m_slots[s];
        if (x.alive && m_keys[s] != key) {  // another transaction in a live slot: replace it
            Unlink(s);
            x.alive = false;
            m_dropped.push_back(s);
            --m_alive;
        }
        if (!x.alive) {
            x.alive = true;
            ++m_alive;
            x.fresh = true;
            m_keys[s] = key;
            m_children[s].clear();
            x.parents.clear();
            MarkDirty(s);
            m_fresh.push_back(s);
        } else if (x.fee != d.fee[i] || x.weight != d.weight[i] || x.sigops != sigops) {
            MarkDirty(s);
        }
        x.fee = d.fee[i];
        x.weight = d.weight[i];
        x.sigops = sigops;
    }
    std::vector<uint32_t> parents, old;
    for (size_t i = 0; i < d.slots.size(); ++i) {
        const uint32_t s = d.slots[i];
        parents.clear();
        for (uint32_t k = d.parent_offsets[i]; k < d.parent_offsets[i + 1]; ++k) {
            const uint32_t p = d.parent_slots[k];
            if (p != s && p < m_slots.size() && m_slots[p].alive) parents.push_back(p);
        }
        std::sort(parents.begin(), parents.end());
        parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
        Slot& x = m_slots[s];
        old = x.parents;
        std::sort(old.begin(), old.end());
        if (old == parents) continue;
        for (uint32_t p : x.parents) {
            EraseOne(m_children[p], s);
            MarkDirty(p);
        }
        x.parents = parents;
        for (uint32_t p : parents) {
            m_children[p].push_back(s);
            MarkDirty(p);  // its cluster now holds s (incremental_prepare.cpp relies on it)
        }
        MarkDirty(s);
    }
}

void IncrementalEngine::SortIn()
{
    const size_t old_n = m_sorted.size();
    if (m_dropped.empty() && m_fresh.empty()) {
        m_src.resize(old_n);
        std::iota(m_src.begin(), m_src.end(), 0u);
        m_remap = m_src;
        return;
    }
    // Survivors keep their order (and their keys, carried along contiguously); the dropped ones
    // are found by their index in the last Build (m_index), so this pass touches no slot.
    m_drop.assign(old_n, 0);
    size_t dropped = 0;
    for (uint32_t s : m_dropped) {
        if (s < m_index.size() && m_index[s] < old_n && m_sorted[m_index[s]] == s && !m_drop[m_index[s]]) {
            m_drop[m_index[s]] = 1;
            ++dropped;
        }
    }
    m_dropped.clear();
    // New slots are sorted and merged in: O(n + k log k).
    std::vector<uint32_t> add;
    for (uint32_t s : m_fresh) {
        if (m_slots[s].alive && m_slots[s].fresh) {
            m_slots[s].fresh = false;
            add.push_back(s);
        }
    }
    m_fresh.clear();
    std::sort(add.begin(), add.end(), [&](uint32_t a, uint32_t b) { return m_keys[a] < m_keys[b]; });
    // One pass: the survivors (dropped ones skipped) merged with the new ones, each survivor's
    // new index and its old one recorded as it is placed (the keys, 32 bytes each, move once).
    const size_t total = old_n - dropped + add.size();
    m_merged.resize(total);
    m_merged_keys.resize(total);
    m_remap.assign(old_n, UINT32_MAX);
    m_src.assign(total, UINT32_MAX);
    size_t i = 0, j = 0, o = 0;
    while (true) {
        while (i < old_n && m_drop[i]) ++i;
        if (i == old_n && j == add.size()) break;
        if (j == add.size() || (i < old_n && m_sorted_keys[i] < m_keys[add[j]])) {
            m_remap[i] = static_cast<uint32_t>(o);
            m_src[o] = static_cast<uint32_t>(i);
            m_merged[o] = m_sorted[i];
            m_merged_keys[o++] = m_sorted_keys[i++];
        } else {
            m_merged[o] = add[j];
            m_merged_keys[o++] = m_keys[add[j++]];
        }
    }
    m_sorted.swap(m_merged);
    m_sorted_keys.swap(m_merged_keys);
}

void IncrementalEngine::MarkChanged(uint32_t n)
{
    // The dirty slots still alive (and every index when the last Build's arrays cannot be trusted).
    m_dirty_at.assign(n, m_prev_valid ? 0 : 1);
    for (uint32_t s : m_dirty_list) {
        if (s < m_slots.size() && m_slots[s].alive && m_index[s] < n && m_sorted[m_index[s]] == s) m_dirty_at[m_index[s]] = 1;
    }
}

bool IncrementalEngine::CopyClean(uint32_t i, uint32_t oi)
{
    m_fee[i] = m_prev_fee[oi];
    m_weight[i] = m_prev_weight[oi];
    m_sigops[i] = m_prev_sigops[oi];
    for (uint32_t k = m_prev_poff[oi]; k < m_prev_poff[oi + 1]; ++k) {
        const uint32_t p = m_remap[m_prev_pidx[k]];
        if (p == UINT32_MAX) {  // cannot happen (a parent's removal dirties the child): take the slot
            m_pidx.resize(m_poff[i]);
            return false;
        }
        m_pidx.push_back(p);
    }
    return true;
}

void IncrementalEngine::ReadSlot(uint32_t i)
{
    const Slot& x = m_slots[m_sorted[i]];
    m_fee[i] = x.fee;
    m_weight[i] = x.weight;
    m_sigops[i] = x.sigops;
    for (uint32_t p : x.parents) m_pidx.push_back(m_index[p]);
}

uint32_t IncrementalEngine::WriteInput(uint32_t n, bool full)
{
    // One pass in txid order: the cycle's input, each tx's reuse mark, and its position in the
    // previous linearization (bucketed by that position into the warm order). A clean survivor's
    // data and parents are those of the last Build's arrays (read in order, parents renumbered);
    // only changed ones are read from their slots (random access, the slow part).
    m_prev_fee.swap(m_fee);
    m_prev_weight.swap(m_weight);
    m_prev_sigops.swap(m_sigops);
    m_prev_poff.swap(m_poff);
    m_prev_pidx.swap(m_pidx);
    m_fee.resize(n);
    m_weight.resize(n);
    m_sigops.resize(n);
    m_poff.resize(n + 1);
    m_pidx.clear();
    m_reuse.assign(full ? 0 : n, 0);
    m_bucket.assign(full ? 0 : m_prev_n, UINT32_MAX);
    if (m_rank.size() != n) {
        m_rank.resize(n);
        std::iota(m_rank.begin(), m_rank.end(), 0u);
    }
    uint32_t dirty_count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t oi = m_prev_valid ? m_src[i] : UINT32_MAX;
        m_poff[i] = static_cast<uint32_t>(m_pidx.size());
        // The last Build's arrays are stale after an incremental preparation: then read the slot.
        bool dirty = m_dirty_at[i] != 0 || oi == UINT32_MAX;
        bool copied = false;
        if (!dirty && m_arrays_valid) {
            copied = CopyClean(i, oi);
            dirty = !copied;
        }
        if (!copied) ReadSlot(i);
        dirty_count += dirty;
        if (!full) {
            m_reuse[i] = dirty ? 0 : (m_prev_opt[oi] ? 1 : 2);
            const uint32_t warm_pos = oi == UINT32_MAX ? UINT32_MAX : m_prev_pos[oi];
            if (warm_pos < m_prev_n) m_bucket[warm_pos] = i;
        }
    }
    m_poff[n] = static_cast<uint32_t>(m_pidx.size());
    m_warm.clear();
    for (uint32_t i : m_bucket) {
        if (i != UINT32_MAX) m_warm.push_back(i);
    }
    return dirty_count;
}

InputView IncrementalEngine::InputArrays() const
{
    InputView in;
    in.fee = m_fee;
    in.weight = m_weight;
    in.sigops = m_sigops;
    in.parent_offsets = m_poff;
    in.parent_indices = m_pidx;
    in.txid_rank = m_rank;
    in.warm_order = m_warm;
    in.warm_reuse = m_reuse;
    return in;
}

void IncrementalEngine::RelateChunkOrder()
{
    // An intact cluster was copied from m_prep (the last build's): its chunks keep their order.
    m_old_cluster_of_new.resize(m_from_old.size());
    for (size_t c = 0; c < m_from_old.size(); ++c) {
        const uint32_t ob = m_from_old[c];
        m_old_cluster_of_new[c] = ob == UINT32_MAX ? UINT32_MAX : m_prep.cl.cluster_of[ob];
    }
    m_chunk_order.Relate(m_old_cluster_of_new, m_remap);
}

void IncrementalEngine::Remember(IncrementalResult& out, uint32_t n)
{
    // This cycle's linearization is the next one's warm order; every slot is clean now.
    m_prev_pos.resize(n);
    for (uint32_t k = 0; k < n; ++k) m_prev_pos[out.r.linearization[k]] = k;  // index -> position
    // The same by internal index of this Build's prepared graph (WarmHint reads intact clusters so).
    m_prev_pos_int.resize(n);
    for (uint32_t x = 0; x < n; ++x) m_prev_pos_int[x] = m_prev_pos[m_prep.original[x]];
    m_prev_opt = out.r.tx_optimal;
    for (uint32_t s : m_dirty_list) {
        if (s < m_slots.size()) m_slots[s].dirty = false;
    }
    m_dirty_list.clear();
    m_prev_n = n;
    m_prev_valid = true;
}

void IncrementalEngine::DescribeIndices(IncrementalResult& out, uint32_t n)
{
    out.chunk_rate.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t w = out.r.tx_chunk_weight[i];
        out.chunk_rate[i] = w > 0 ? out.r.tx_chunk_fee[i] * 4 / w : 0;
    }
    out.slot_of_index = m_sorted;
    m_lookup_keys.resize(size_t{2} * n);
    for (uint32_t i = 0; i < n; ++i) {
        m_lookup_keys[2 * i] = m_sorted_keys[i][0];
        m_lookup_keys[2 * i + 1] = m_sorted_keys[i][1];
    }
    out.keys = m_lookup_keys;
}

IncrementalResult IncrementalEngine::Build(const Options& o, bool full)
{
    const auto started = std::chrono::steady_clock::now();
    auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    };
    ValidateOptions(o);  // BuildPrepared takes them as valid
    SortIn();
    IncrementalResult out;
    const uint32_t n = static_cast<uint32_t>(m_sorted.size());
    m_index.resize(m_slots.size());
    for (uint32_t i = 0; i < n; ++i) m_index[m_sorted[i]] = i;
    MarkChanged(n);
    // Should a step below throw, the kept state no longer describes a Build the slots' state
    // follows: the next Build then reads every transaction from its slot.
    const bool incremental = !full && m_prev_valid && m_prep_valid;
    m_prep_valid = false;
    m_chunk_order.Unrelate();  // related again below when this build derives from the last one
    Timings timings;
    try {
        if (incremental && PrepareIncremental(n)) {
            RelateChunkOrder();
            m_prev_valid = false;
            m_arrays_valid = false;  // the input arrays were not written (debug builds aside)
            out.dirty_slots = 0;
            for (uint32_t i = 0; i < n; ++i) out.dirty_slots += m_dirty_at[i] != 0 || m_src[i] == UINT32_MAX;
            timings.clusters = since(started);
        } else {
            out.dirty_slots = WriteInput(n, full);
            m_prev_valid = false;
            m_arrays_valid = true;
            const InputView in = InputArrays();
            const auto prepared = std::chrono::steady_clock::now();
            m_next = Prepare(in, o, &timings);
            timings.validate += std::chrono::duration<double, std::milli>(prepared - started).count();
        }
    } catch (...) {
        m_prev_valid = false;
        throw;
    }
    out.prepare_ms = since(started);
    timings.total = out.prepare_ms;
    out.r = BuildPrepared(m_next, o, timings, &m_chunk_order);
    std::swap(m_prep, m_next);
    m_prep_valid = true;
    const auto finishing = std::chrono::steady_clock::now();
    Remember(out, n);
    DescribeIndices(out, n);
    out.finish_ms = since(finishing);
    return out;
}

}  // namespace opt
