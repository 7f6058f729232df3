// The parts of a snapshot read (snapshot_reader.cpp): the columns one reader fills from its stretch
// of the file, and their join into one mempool (parents linked across parts, txids ranked in Core's
// order). Included by snapshot_reader.cpp only.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "json_scanner.h"
#include "parallel.h"
#include "snapshot_reader.h"
#include "txid_table.h"

namespace snapshot::join {

using scan::GiveUp;
using scan::TXID_HEX;
using scan::TxidTable;

/** A parent that is not a 64-character string (dropped when linked). */
inline constexpr uint32_t NO_TXID = 0xffffffff;

/** Capacity to reserve for a stretch of `bytes` of the file: Core spends ~500 bytes per entry. */
inline size_t Capacity(size_t bytes) { return std::max<size_t>(16, bytes / 400); }

/** The entries of one stretch of the file as one Reader reads them: the columns in file order, each
 *  entry's parents as copies of their txids (linked once every part is read), and a table of its
 *  own txids. Not movable: the table refers to the txids. */
struct Part {
    ScannedMempool cols;                // txids, fee_sat, base_fee_sat, weight_wu, sigop_cost, stats
    std::vector<uint32_t> depends_end;  // per entry: end of its parents in depends
    std::vector<uint32_t> depends;      // per parent read: its number in parent_txids, NO_TXID if not 64 bytes
    std::string parent_txids;           // the 64 bytes of each parent read, copied while in cache
    TxidTable index;

    /** A part for `bytes` of the file whose columns have room for `column_bytes` (the first part of
     *  a split read: the whole file, so the join appends the second part without moving the first). */
    explicit Part(size_t bytes, size_t column_bytes = 0) : index(cols.txids, Capacity(bytes))
    {
        const size_t capacity = Capacity(std::max(bytes, column_bytes));
        cols.txids.reserve(capacity * TXID_HEX);
        cols.fee_sat.reserve(capacity);
        cols.base_fee_sat.reserve(capacity);
        cols.weight_wu.reserve(capacity);
        cols.sigop_cost.reserve(capacity);
        depends_end.reserve(capacity);
        depends.reserve(capacity);
        parent_txids.reserve(capacity * TXID_HEX);
    }
    Part(const Part&) = delete;
    Part& operator=(const Part&) = delete;

    size_t Size() const { return cols.fee_sat.size(); }
};

/** The parts read (one, or two read side by side) as one mempool: parents linked across parts,
 *  txids ranked, columns joined in file order. */
class Joiner
{
    const std::vector<Part*>& m_parts;
    ScannedMempool& m_out;
    size_t m_n{0};

public:
    Joiner(const std::vector<Part*>& parts, ScannedMempool& out) : m_parts(parts), m_out(out)
    {
        for (const Part* part : parts) m_n += part->Size();
    }

    /** LinkParents and RankTxids side by side: they share only the txids, which both read. Then the
     *  columns (the parts' txids are read up to here). */
    void Join()
    {
        opt::RunBoth(
            true, [&] { LinkParents(); }, [&] { RankTxids(); });
        ScanStats& stats = m_out.stats;
        for (Part* part : m_parts) {
            ScannedMempool& c = part->cols;
            Append(m_out.txids, std::move(c.txids));
            Append(m_out.fee_sat, std::move(c.fee_sat));
            Append(m_out.base_fee_sat, std::move(c.base_fee_sat));
            Append(m_out.weight_wu, std::move(c.weight_wu));
            Append(m_out.sigop_cost, std::move(c.sigop_cost));
            stats.derived_sigops += c.stats.derived_sigops;
            stats.weight_from_vsize += c.stats.weight_from_vsize;
            stats.clamped_fees += c.stats.clamped_fees;
        }
        stats.tx_count = static_cast<uint32_t>(m_n);
    }

private:
    /** `to` += `from`; the first part's column is moved, not copied. */
    template <typename C>
    static void Append(C& to, C&& from)
    {
        if (to.empty())
            to = std::move(from);
        else
            to.insert(to.end(), from.begin(), from.end());
    }

    /** Index of the txid spelled by the 64 bytes at `t` in the whole file, or -1. */
    int64_t Find(const char* t, uint64_t hash) const
    {
        size_t base = 0;
        for (const Part* part : m_parts) {
            const int64_t j = part->index.Find(t, hash);
            if (j >= 0) return static_cast<int64_t>(base) + j;
            base += part->Size();
        }
        return -1;
    }

    /** Parent txids to indices; a parent not in the file is dropped, as parseCoreMempool does (linkParents). */
    void LinkParents()
    {
        constexpr size_t AHEAD = 16;
        m_out.parent_offsets.assign(m_n + 1, 0);
        size_t i = 0;
        for (const Part* part : m_parts) {
            // Each parent's hash first (a sequential pass), so each lookup can load its slots ahead.
            const std::vector<uint32_t>& depends = part->depends;
            std::vector<uint64_t> hashes(depends.size());
            for (size_t k = 0; k < depends.size(); k++) {
                if (depends[k] != NO_TXID) hashes[k] = TxidTable::HashOf(part->parent_txids.data() + TXID_HEX * depends[k]);
            }
            m_out.parent_indices.reserve(m_out.parent_indices.size() + depends.size());
            size_t k = 0;
            for (const uint32_t k_end : part->depends_end) {
                for (; k < k_end; k++) {
                    if (k + AHEAD < hashes.size()) {
                        for (const Part* other : m_parts) other->index.Prefetch(hashes[k + AHEAD]);
                    }
                    const uint32_t parent = depends[k];
                    const int64_t j = parent == NO_TXID ? -1 : Find(part->parent_txids.data() + TXID_HEX * parent, hashes[k]);
                    if (j < 0)
                        m_out.stats.dropped_parents++;
                    else
                        m_out.parent_indices.push_back(static_cast<uint32_t>(j));
                }
                m_out.parent_offsets[++i] = static_cast<uint32_t>(m_out.parent_indices.size());
            }
        }
    }

    /** The 64 lowercase hex characters of txid i (of the whole file). */
    const char* HexAt(size_t i) const
    {
        for (const Part* part : m_parts) {
            if (i < part->Size()) return part->cols.txids.data() + TXID_HEX * i;
            i -= part->Size();
        }
        return nullptr;  // not reached: i < m_n
    }

    /** Word w (0-3) of a txid's key in Core's order: its internal bytes 8w..8w+7 (internal byte j is
     *  display byte 31 - j), big-endian, so keys compare as memcmp over the internal bytes. */
    static uint64_t KeyWord(const char* hex, size_t w)
    {
        auto nibble = [](char c) { return static_cast<uint64_t>((c & 0xf) + (c >> 6) * 9); };  // '0'-'9', 'a'-'f'
        uint64_t word = 0;
        for (size_t k = 0; k < 8; k++) {
            const size_t pos = 2 * (31 - (8 * w + k));
            word = (word << 8) | (nibble(hex[pos]) << 4) | nibble(hex[pos + 1]);
        }
        return word;
    }

    /** Rank in Core's txid order: memcmp over the internal bytes, the display bytes reversed
     *  (txidOrder.ts). Keyed on each txid's first word, the rest compared only on a tie (random txids
     *  have none): a quarter of the hex decoded, 16-byte elements. Bucketed on the key's top bits
     *  (a counting sort: two passes), then each bucket sorted (random txids put a few in each; a
     *  large bucket, as crafted txids could make, is sorted with std::sort). Two equal txids in
     *  different parts (each part's table refuses its own) give up. */
    void RankTxids()
    {
        struct Keyed {
            uint64_t head;
            uint32_t index;
        };
        // About one bucket per txid, at most 2^16 (the counts stay in the L2 cache).
        const unsigned BITS = std::clamp<unsigned>(static_cast<unsigned>(std::bit_width(m_n)), 1, 16);
        std::vector<uint32_t> start((size_t{1} << BITS) + 1, 0);
        std::vector<Keyed> keyed(m_n);
        size_t i = 0;
        for (const Part* part : m_parts) {
            const char* hex = part->cols.txids.data();
            for (size_t local = 0; local < part->Size(); local++, i++, hex += TXID_HEX) {
                keyed[i] = {KeyWord(hex, 0), static_cast<uint32_t>(i)};
                start[(keyed[i].head >> (64 - BITS)) + 1]++;
            }
        }
        for (size_t b = 1; b < start.size(); b++) start[b] += start[b - 1];
        std::vector<Keyed> sorted(m_n);
        {
            std::vector<uint32_t> next(start.begin(), start.end() - 1);
            for (const Keyed& k : keyed) sorted[next[k.head >> (64 - BITS)]++] = k;
        }
        // -1, 0, 1 as the rest of two keys with the same first word compare.
        auto tail = [&](uint32_t a, uint32_t b) {
            const char* x = HexAt(a);
            const char* y = HexAt(b);
            for (size_t w = 1; w < 4; w++) {
                const uint64_t u = KeyWord(x, w);
                const uint64_t v = KeyWord(y, w);
                if (u != v) return u < v ? -1 : 1;
            }
            return 0;
        };
        auto less = [&](const Keyed& a, const Keyed& b) { return a.head != b.head ? a.head < b.head : tail(a.index, b.index) < 0; };
        constexpr size_t SMALL = 32;
        for (size_t b = 0; b + 1 < start.size(); b++) {
            Keyed* first = sorted.data() + start[b];
            Keyed* last = sorted.data() + start[b + 1];
            if (last - first > static_cast<std::ptrdiff_t>(SMALL)) {
                std::sort(first, last, less);
                continue;
            }
            for (Keyed* x = first + 1; x < last; x++) {  // insertion sort
                const Keyed v = *x;
                Keyed* y = x;
                for (; y > first && less(v, *(y - 1)); y--) *y = *(y - 1);
                *y = v;
            }
        }
        for (size_t pos = 1; pos < sorted.size(); pos++)
            if (sorted[pos - 1].head == sorted[pos].head && tail(sorted[pos - 1].index, sorted[pos].index) == 0) throw GiveUp{};
        m_out.txid_rank.assign(m_n, 0);
        for (size_t pos = 0; pos < m_n; pos++) m_out.txid_rank[sorted[pos].index] = static_cast<uint32_t>(pos);
    }
};

}  // namespace snapshot::join
