// The txid lookup table of the snapshot reader (snapshot_reader.cpp; txidTable.ts in TypeScript).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace snapshot::scan {

inline constexpr size_t TXID_HEX = 64;

/**
 * Txids found by their 64 hex bytes, ignoring the case of hex letters (txidTable.ts): an
 * open-addressing table, at most half full, of each txid's index and hash fingerprint. The txids
 * themselves are compared in the compact lowercase copy (ScannedMempool::txids), not at random
 * places in the file: most probes are settled by the fingerprint alone.
 */
class TxidTable
{
    const std::string& m_txids;     // n x 64 lowercase hex
    std::vector<uint64_t> m_slots;  // (fingerprint << 32) | (index + 1); 0 = empty
    size_t m_size{0};

    /** Word w of the 64 bytes at `t`, hex letters folded to lowercase (| 0x20 keeps digits). */
    static uint64_t Word(const char* t, size_t w)
    {
        uint64_t x;
        std::memcpy(&x, t + 8 * w, 8);
        return x | 0x2020202020202020ULL;
    }

    static uint64_t Hash(const char* t)
    {
        uint64_t h = 0;
        for (size_t w = 0; w < 8; w++) h = (h ^ Word(t, w)) * 0x9E3779B97F4A7C15ULL;
        return h ^ (h >> 29);
    }

    /** Whether the bytes at `a` equal txid `index`, ignoring hex case. The txid is hex; the other side
     *  only needs printable bytes (the scan's strings): x | 0x20 is a hex character only when x is one. */
    bool Same(const char* a, size_t index) const
    {
        const char* t = m_txids.data() + TXID_HEX * index;
        for (size_t w = 0; w < 8; w++)
            if (Word(a, w) != Word(t, w)) return false;
        return true;
    }

    void Grow()
    {
        std::vector<uint64_t> slots(m_slots.size() * 2, 0);
        const size_t mask = slots.size() - 1;
        for (const uint64_t v : m_slots) {
            if (v == 0) continue;
            size_t s = Hash(m_txids.data() + TXID_HEX * ((v & 0xffffffff) - 1)) & mask;
            while (slots[s] != 0) s = (s + 1) & mask;
            slots[s] = v;
        }
        m_slots.swap(slots);
    }

    /** The slot holding the txid spelled by `t`, or the empty slot where it would go. */
    size_t Slot(const char* t, uint64_t hash) const
    {
        const size_t mask = m_slots.size() - 1;
        const uint64_t fingerprint = hash >> 32;
        for (size_t s = hash & mask;; s = (s + 1) & mask) {
            const uint64_t v = m_slots[s];
            if (v == 0 || ((v >> 32) == fingerprint && Same(t, (v & 0xffffffff) - 1))) return s;
        }
    }

public:
    TxidTable(const std::string& txids, size_t expected) : m_txids(txids)
    {
        size_t capacity = 16;
        while (capacity < 2 * expected) capacity *= 2;
        m_slots.assign(capacity, 0);
    }

    static uint64_t HashOf(const char* t) { return Hash(t); }

    /** Starts loading the slot a hash probes first: the table is larger than the caches, and the
     *  caller has other work to do before it asks (see Reader). */
    void Prefetch(uint64_t hash) const
    {
#if defined(__GNUC__)
        __builtin_prefetch(m_slots.data() + (hash & (m_slots.size() - 1)));
#else
        (void)hash;
#endif
    }

    /** Adds the (hex-checked) txid spelled by `t`, of hash `hash`, as index `size`; false when it is
     *  already there. */
    bool Add(const char* t, uint64_t hash)
    {
        if (2 * (m_size + 1) > m_slots.size()) Grow();
        const size_t s = Slot(t, hash);
        if (m_slots[s] != 0) return false;
        m_slots[s] = ((hash >> 32) << 32) | ++m_size;
        return true;
    }

    /** Index of the txid spelled by the 64 bytes at `t`, of hash `hash`, or -1. */
    int64_t Find(const char* t, uint64_t hash) const
    {
        const uint64_t v = m_slots[Slot(t, hash)];
        return v == 0 ? -1 : static_cast<int64_t>(v & 0xffffffff) - 1;
    }
};

}  // namespace snapshot::scan
