// The native getrawmempool reader (see snapshot_reader.h). Each step mirrors its TypeScript twin
// (named in the comments), so the two read the same bytes the same way; the differential tests
// (test/native/snapshotReader.test.ts) hold them to JSON.parse + parseCoreMempool.
#include "snapshot_reader.h"

#include "json_scanner.h"
#include "parallel.h"
#include "txid_table.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace snapshot {

namespace {

using namespace scan;

constexpr uint32_t NO_TXID = 0xffffffff;
constexpr double SATS_PER_BTC = 100000000.0;

/** A field's value: absent (`undefined`), or a number (NaN when present but not a number). */
struct Field {
    bool present{false};
    double value{0};
    void Set(double v)
    {
        present = true;
        value = v;
    }
};

/** The values of one entry's fields (coreMempoolScan.ts Entry). */
struct Entry {
    bool fees_is_object{false};
    Field fees_base, fees_modified, fee, modifiedfee, vsize_adjusted, vsize, size, vsize_bip141, weight;
};

/** Math.round: the nearest integer, ties towards +infinity; -0 for x in [-0.5, -0]. */
double JsRound(double x)
{
    if (!(std::fabs(x) < 4503599627370496.0)) return x;  // 2^52: already an integer
    double r = std::floor(x);
    if (x >= r + 0.5) r += 1;  // r + 0.5 is exact below 2^52; no subtraction the compiler could fuse
    return r == 0 ? std::copysign(0.0, x) : r;
}

/** Sats from a BTC amount (coreMempoolScan.ts btcToSat), or give up. */
double BtcToSat(const Field& f)
{
    if (!f.present || !std::isfinite(f.value)) throw GiveUp{};
    return JsRound(f.value * SATS_PER_BTC);
}

/** The value when it is a positive integer (positiveInt), else not present. */
Field PositiveInt(const Field& f)
{
    if (f.present && std::isfinite(f.value) && std::floor(f.value) == f.value && f.value > 0) return f;
    return {};
}

/** A Uint32Array store of a JavaScript number (ToUint32: modulo 2^32, 0 for NaN and infinities). */
uint32_t ToUint32(double d)
{
    if (!std::isfinite(d)) return 0;
    double m = std::fmod(std::trunc(d), 4294967296.0);
    if (m < 0) m += 4294967296.0;
    return static_cast<uint32_t>(m);
}

/** sigops.ts sigopCostFromVsize: the sigop cost implied by a sigop-adjusted vsize above the weight's. */
double SigopCostFromVsize(double adjusted_vsize, double weight)
{
    if (adjusted_vsize <= std::ceil(weight / 4)) return 0;
    return std::ceil((adjusted_vsize * 4) / 20);
}

class Reader
{
    Scanner m_s;
    TxidTable m_index;
    ScannedMempool& m_out;
    std::vector<uint32_t> m_depends_end;  // per entry: end of its parents in m_depends
    std::vector<uint32_t> m_depends;      // per parent read: its number in m_parent_txids, NO_TXID if not 64 bytes
    std::string m_parent_txids;           // the 64 bytes of each parent read, copied while in cache
    Entry m_e;

public:
    Reader(const uint8_t* bytes, size_t size, ScannedMempool& out) : m_s(bytes, size), m_index(out.txids, std::max<size_t>(16, size / 400)), m_out(out)
    {
        const size_t capacity = std::max<size_t>(16, size / 400);
        out.txids.reserve(capacity * TXID_HEX);
        out.fee_sat.reserve(capacity);
        out.base_fee_sat.reserve(capacity);
        out.weight_wu.reserve(capacity);
        out.sigop_cost.reserve(capacity);
        m_depends_end.reserve(capacity);
        m_depends.reserve(capacity);
        m_parent_txids.reserve(capacity * TXID_HEX);
    }

    void Scan()
    {
        m_s.Expect('{');
        for (bool more = m_s.Opens('}'); more; more = m_s.Another('}')) {
            const size_t key = ReadTxidKey();
            const uint64_t hash = TxidTable::HashOf(reinterpret_cast<const char*>(m_s.b + key));
            m_index.Prefetch(hash);
            m_s.Expect(':');
            m_s.Expect('{');
            m_e = Entry{};
            ReadEntry();
            // Added after its entry is read, so the slot's load overlapped that work; still before the
            // next key, so a duplicate is found in file order.
            if (!m_index.Add(reinterpret_cast<const char*>(m_s.b + key), hash)) throw GiveUp{};
            m_depends_end.push_back(static_cast<uint32_t>(m_depends.size()));
            SettleEntry();
        }
        m_s.Ws();
        if (m_s.p != m_s.n) throw GiveUp{};
        m_out.stats.tx_count = static_cast<uint32_t>(m_out.fee_sat.size());
        LinkAndRank();
    }

private:
    /** The txid key: 64 hex characters, appended lowercased; returns its offset (readTxidKey). */
    size_t ReadTxidKey()
    {
        m_s.Expect(QUOTE);
        const size_t start = m_s.p;
        const size_t end = m_s.StringEnd();
        if (m_s.escaped || end - start != TXID_HEX) throw GiveUp{};
        const uint8_t* t = m_s.b + start;
        uint8_t hex = 1;
        for (size_t k = 0; k < TXID_HEX; k++) hex &= HEX[t[k]] != 0;
        if (!hex) throw GiveUp{};
        // Lowercase: | 0x20 maps 'A'-'F' to 'a'-'f' and keeps digits and lowercase letters.
        char lower[TXID_HEX];
        for (size_t k = 0; k < TXID_HEX; k++) lower[k] = static_cast<char>(t[k] | 0x20);
        m_out.txids.append(lower, TXID_HEX);
        return start;
    }

    /** One entry's fields up to its `}`: the last occurrence of a key wins, as in JSON.parse (readEntry). */
    void ReadEntry()
    {
        const size_t depends_start = m_depends.size();
        for (bool field = m_s.Opens('}'); field; field = m_s.Another('}')) {
            switch (m_s.ReadKey()) {
            case Key::FEES: ReadFees(); break;
            case Key::FEE: m_e.fee.Set(m_s.NumberOrNaN()); break;
            case Key::MODIFIEDFEE: m_e.modifiedfee.Set(m_s.NumberOrNaN()); break;
            case Key::VSIZE_ADJUSTED: m_e.vsize_adjusted.Set(m_s.NumberOrNaN()); break;
            case Key::VSIZE: m_e.vsize.Set(m_s.NumberOrNaN()); break;
            case Key::SIZE: m_e.size.Set(m_s.NumberOrNaN()); break;
            case Key::VSIZE_BIP141: m_e.vsize_bip141.Set(m_s.NumberOrNaN()); break;
            case Key::WEIGHT: m_e.weight.Set(m_s.NumberOrNaN()); break;
            case Key::DEPENDS:
                m_depends.resize(depends_start);  // a repeated key: the last one wins (its parents' copies stay unused)
                ReadDepends();
                break;
            default: m_s.SkipValue(1);
            }
        }
    }

    /** `fees`: an object with `base` and `modified` (any other value is skipped and counts as absent). */
    void ReadFees()
    {
        m_e.fees_base = m_e.fees_modified = Field{};
        m_s.Ws();
        m_e.fees_is_object = m_s.At(m_s.p) == '{';
        if (!m_e.fees_is_object) {
            m_s.SkipValue(1);
            return;
        }
        m_s.p++;
        for (bool more = m_s.Opens('}'); more; more = m_s.Another('}')) {
            const Key k = m_s.ReadKey();
            if (k == Key::BASE)
                m_e.fees_base.Set(m_s.NumberOrNaN());
            else if (k == Key::MODIFIED)
                m_e.fees_modified.Set(m_s.NumberOrNaN());
            else
                m_s.SkipValue(2);
        }
    }

    /** `depends`: an array of parent txids (their byte offsets kept), or null for none. */
    void ReadDepends()
    {
        m_s.Ws();
        if (m_s.At(m_s.p) != '[') {
            if (!m_s.Take("null")) throw GiveUp{};
            return;
        }
        m_s.p++;
        for (bool more = m_s.Opens(']'); more; more = m_s.Another(']')) {
            m_s.Expect(QUOTE);
            const size_t start = m_s.p;
            const size_t end = m_s.StringEnd();
            if (m_s.escaped) throw GiveUp{};
            if (end - start != TXID_HEX) {
                m_depends.push_back(NO_TXID);
                continue;
            }
            m_depends.push_back(static_cast<uint32_t>(m_parent_txids.size() / TXID_HEX));
            m_parent_txids.append(reinterpret_cast<const char*>(m_s.b + start), TXID_HEX);
        }
    }

    /** parseCoreMempool's per-entry rules, on the values read (settleEntry). */
    void SettleEntry()
    {
        const Entry& e = m_e;
        ScanStats& stats = m_out.stats;
        const double base = BtcToSat(e.fees_is_object ? e.fees_base : e.fee);
        const Field& modified_raw = e.fees_is_object ? e.fees_modified : e.modifiedfee;
        const double modified = modified_raw.present ? BtcToSat(modified_raw) : base;
        if (modified < 0) stats.clamped_fees++;
        m_out.fee_sat.push_back(modified > 0 ? modified : 0.0);  // Math.max(0, modified): +0 for -0
        m_out.base_fee_sat.push_back(base);
        Field vsize = PositiveInt(e.vsize_adjusted);
        if (!vsize.present) vsize = PositiveInt(e.vsize);
        if (!vsize.present) vsize = PositiveInt(e.size);
        const Field bip141 = PositiveInt(e.vsize_bip141);
        Field weight = PositiveInt(e.weight);
        if (!weight.present && bip141.present) weight.Set(4 * bip141.value);
        uint32_t sigops = 0;
        if (weight.present) {
            m_out.weight_wu.push_back(ToUint32(weight.value));
            if (!e.weight.present) stats.weight_from_vsize++;
            const double derived = vsize.present ? SigopCostFromVsize(vsize.value, weight.value) : 0;
            if (derived > 0) {
                sigops = ToUint32(derived);
                stats.derived_sigops++;
            }
        } else if (vsize.present) {
            m_out.weight_wu.push_back(ToUint32(4 * vsize.value));
            stats.weight_from_vsize++;
        } else {
            throw GiveUp{};  // neither weight nor vsize: the general path names the entry
        }
        m_out.sigop_cost.push_back(sigops);
    }

    /** LinkParents and RankTxids side by side: they share only the txids, which both read. */
    void LinkAndRank()
    {
        opt::RunBoth(
            true, [&] { LinkParents(); }, [&] { RankTxids(); });
    }

    /** Parent txids to indices; a parent not in the file is dropped, as parseCoreMempool does (linkParents). */
    void LinkParents()
    {
        const size_t n = m_depends_end.size();
        // Each parent's hash first (a sequential pass), so each lookup can load its slot ahead.
        constexpr size_t AHEAD = 16;
        std::vector<uint64_t> hashes(m_depends.size());
        for (size_t k = 0; k < m_depends.size(); k++) {
            if (m_depends[k] != NO_TXID) hashes[k] = TxidTable::HashOf(m_parent_txids.data() + TXID_HEX * m_depends[k]);
        }
        m_out.parent_offsets.assign(n + 1, 0);
        m_out.parent_indices.reserve(m_depends.size());
        for (size_t i = 0, k = 0; i < n; i++) {
            for (const size_t k_end = m_depends_end[i]; k < k_end; k++) {
                if (k + AHEAD < hashes.size()) m_index.Prefetch(hashes[k + AHEAD]);
                const uint32_t parent = m_depends[k];
                const int64_t j = parent == NO_TXID ? -1 : m_index.Find(m_parent_txids.data() + TXID_HEX * parent, hashes[k]);
                if (j < 0)
                    m_out.stats.dropped_parents++;
                else
                    m_out.parent_indices.push_back(static_cast<uint32_t>(j));
            }
            m_out.parent_offsets[i + 1] = static_cast<uint32_t>(m_out.parent_indices.size());
        }
    }

    /** Rank in Core's txid order: memcmp over the internal bytes, the display bytes reversed (txidOrder.ts). */
    void RankTxids()
    {
        struct Keyed {
            std::array<uint64_t, 4> key;
            uint32_t index;
        };
        const size_t n = m_depends_end.size();
        std::vector<Keyed> keyed(n);
        auto nibble = [](char c) { return static_cast<uint64_t>((c & 0xf) + (c >> 6) * 9); };  // '0'-'9', 'a'-'f'
        for (size_t i = 0; i < n; i++) {
            const char* hex = m_out.txids.data() + TXID_HEX * i;
            keyed[i].index = static_cast<uint32_t>(i);
            // Internal byte j is display byte 31 - j; key word w holds internal bytes 8w..8w+7, big-endian.
            for (size_t w = 0; w < 4; w++) {
                uint64_t word = 0;
                for (size_t k = 0; k < 8; k++) {
                    const size_t pos = 2 * (31 - (8 * w + k));
                    word = (word << 8) | (nibble(hex[pos]) << 4) | nibble(hex[pos + 1]);
                }
                keyed[i].key[w] = word;
            }
        }
        std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
        m_out.txid_rank.assign(n, 0);
        for (size_t pos = 0; pos < n; pos++) m_out.txid_rank[keyed[pos].index] = static_cast<uint32_t>(pos);
    }
};

}  // namespace

bool ScanCoreMempool(const uint8_t* bytes, size_t size, ScannedMempool& out)
{
    // Indices are kept in 32 bits (NO_TXID reserved): a file of 4 GiB or more takes the general path.
    if (size >= NO_TXID) return false;
    out = ScannedMempool{};
    try {
        Reader(bytes, size, out).Scan();
        return true;
    } catch (const GiveUp&) {
        return false;
    }
}

FileScan ScanCoreMempoolFile(const std::string& path, ScannedMempool& out)
{
#ifdef _WIN32
    (void)path;
    (void)out;
    return FileScan::NOT_MAPPED;
#else
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FileScan::NOT_MAPPED;
    struct stat st {
    };
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2) {
        close(fd);
        return FileScan::NOT_MAPPED;
    }
    const auto size = static_cast<size_t>(st.st_size);
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;  // map every page now, in one call, instead of a fault per page
#endif
    void* map = mmap(nullptr, size, PROT_READ, flags, fd, 0);
    close(fd);  // the mapping keeps the file
    if (map == MAP_FAILED) return FileScan::NOT_MAPPED;
    const auto* bytes = static_cast<const uint8_t*>(map);
    FileScan result = FileScan::NOT_MAPPED;
    if (!(bytes[0] == 0x1f && bytes[1] == 0x8b)) {
        try {
            result = ScanCoreMempool(bytes, size, out) ? FileScan::READ : FileScan::GAVE_UP;
        } catch (...) {
            munmap(map, size);
            throw;  // std::bad_alloc: Guard reports it
        }
    }
    munmap(map, size);
    return result;
#endif
}

}  // namespace snapshot
