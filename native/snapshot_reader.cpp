// The native getrawmempool reader (see snapshot_reader.h). Each step mirrors its TypeScript twin
// (named in the comments), so the two read the same bytes the same way; the differential tests
// (test/native/snapshotReader.test.ts) hold them to JSON.parse + parseCoreMempool.
#include "snapshot_reader.h"

#include "json_key_tokens.h"
#include "json_scanner.h"
#include "parallel.h"
#include "snapshot_join.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace snapshot {

namespace {

using namespace scan;
using join::Joiner;
using join::NO_TXID;
using join::Part;

constexpr size_t NO_SPLIT = SIZE_MAX;
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
    Part& m_part;
    ScannedMempool& m_out;
    Entry m_e;
    KeyTokens m_entry_keys;  // an entry's keys, as in the last entry
    KeyTokens m_fee_keys;    // the keys of its `fees`

public:
    Reader(const uint8_t* bytes, size_t size, Part& part) : m_s(bytes, size), m_part(part), m_out(part.cols) {}

    /** The whole object from its `{`; when a member's key starts at byte `stop`, stops there and
     *  returns true (the rest is another Reader's), else reads to the end and returns false. */
    bool Scan(size_t stop)
    {
        m_s.Expect('{');
        for (bool more = m_s.Opens('}'); more; more = m_s.Another('}')) {
            m_s.Ws();
            if (m_s.p == stop) return true;
            ReadMember();
        }
        End();
        return false;
    }

    /** The members from the key at byte `key` to the end, as Scan reads them from there. */
    void ScanFrom(size_t key)
    {
        m_s.p = key;
        do ReadMember();
        while (m_s.Another('}'));
        End();
    }

private:
    void End()
    {
        m_s.Ws();
        if (m_s.p != m_s.n) throw GiveUp{};
    }

    /** One `"txid": {entry}` member. */
    void ReadMember()
    {
        const size_t key = ReadTxidKey();
        const uint64_t hash = TxidTable::HashOf(reinterpret_cast<const char*>(m_s.b + key));
        m_part.index.Prefetch(hash);
        m_s.Expect(':');
        m_s.Expect('{');
        m_e = Entry{};
        ReadEntry();
        // Added after its entry is read, so the slot's load overlapped that work; still before the
        // next key, so a duplicate is found in file order.
        if (!m_part.index.Add(reinterpret_cast<const char*>(m_s.b + key), hash)) throw GiveUp{};
        m_part.depends_end.push_back(static_cast<uint32_t>(m_part.depends.size()));
        SettleEntry();
    }

    /** The txid key: 64 hex characters, appended lowercased; returns its offset (readTxidKey). */
    size_t ReadTxidKey()
    {
        m_s.Expect(QUOTE);
        const size_t start = m_s.p;
        const size_t end = m_s.StringEnd();
        if (m_s.escaped || end - start != TXID_HEX) throw GiveUp{};
        const uint8_t* t = m_s.b + start;
        // Checked and lowercased eight bytes at a time: | 0x20 maps 'A'-'F' to 'a'-'f' and keeps
        // digits and lowercase letters.
        char lower[TXID_HEX];
        bool hex = true;
        for (size_t w = 0; w < TXID_HEX; w += 8) {
            uint64_t x;
            std::memcpy(&x, t + w, 8);
            hex &= AllHex(x);
            x |= 0x2020202020202020ULL;
            std::memcpy(lower + w, &x, 8);
        }
        if (!hex) throw GiveUp{};
        m_out.txids.append(lower, TXID_HEX);
        return start;
    }

    /** One entry's fields up to its `}`: the last occurrence of a key wins, as in JSON.parse (readEntry). */
    void ReadEntry()
    {
        const size_t depends_start = m_part.depends.size();
        m_entry_keys.Restart();
        for (bool field = m_s.Opens('}'); field; field = m_s.Another('}')) {
            switch (m_entry_keys.Read(m_s)) {
            case Key::FEES: ReadFees(); break;
            case Key::FEE: m_e.fee.Set(m_s.NumberOrNaN()); break;
            case Key::MODIFIEDFEE: m_e.modifiedfee.Set(m_s.NumberOrNaN()); break;
            case Key::VSIZE_ADJUSTED: m_e.vsize_adjusted.Set(m_s.NumberOrNaN()); break;
            case Key::VSIZE: m_e.vsize.Set(m_s.NumberOrNaN()); break;
            case Key::SIZE: m_e.size.Set(m_s.NumberOrNaN()); break;
            case Key::VSIZE_BIP141: m_e.vsize_bip141.Set(m_s.NumberOrNaN()); break;
            case Key::WEIGHT: m_e.weight.Set(m_s.NumberOrNaN()); break;
            case Key::DEPENDS:
                m_part.depends.resize(depends_start);  // a repeated key: the last one wins (its parents' copies stay unused)
                ReadDepends();
                break;
            default: m_s.SkipMember(1);
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
        m_fee_keys.Restart();
        for (bool more = m_s.Opens('}'); more; more = m_s.Another('}')) {
            const Key k = m_fee_keys.Read(m_s);
            if (k == Key::BASE)
                m_e.fees_base.Set(m_s.NumberOrNaN());
            else if (k == Key::MODIFIED)
                m_e.fees_modified.Set(m_s.NumberOrNaN());
            else
                m_s.SkipMember(2);
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
                m_part.depends.push_back(NO_TXID);
                continue;
            }
            m_part.depends.push_back(static_cast<uint32_t>(m_part.parent_txids.size() / TXID_HEX));
            m_part.parent_txids.append(reinterpret_cast<const char*>(m_s.b + start), TXID_HEX);
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
};

/** Whether the `}` at `i` ends a member and is followed by `, "<64 hex>" : {`; if so, the position
 *  of that key's quote. Inside valid JSON the quote after the comma can only open a key (a quote in
 *  a string is escaped), but it may be any object's: Reader::Scan checks it is the top level's. */
size_t MemberAfter(const uint8_t* b, size_t n, size_t i)
{
    Scanner s(b, n);
    s.p = i + 1;
    s.Ws();
    if (s.At(s.p) != ',') return NO_SPLIT;
    s.p++;
    s.Ws();
    const size_t key = s.p;
    if (s.At(key) != QUOTE || n - key < TXID_HEX + 2) return NO_SPLIT;
    for (size_t k = 1; k <= TXID_HEX; k++)
        if (!HEX[b[key + k]]) return NO_SPLIT;
    s.p = key + TXID_HEX + 1;
    if (s.At(s.p++) != QUOTE) return NO_SPLIT;
    s.Ws();
    if (s.At(s.p++) != ':') return NO_SPLIT;
    s.Ws();
    return s.At(s.p) == '{' ? key : NO_SPLIT;
}

/** A member key past the middle of the file where a second reader can start, or NO_SPLIT. */
size_t FindSplit(const uint8_t* b, size_t n)
{
    for (size_t i = n / 2; i < n;) {
        const void* close = std::memchr(b + i, '}', n - i);
        if (close == nullptr) return NO_SPLIT;
        i = static_cast<size_t>(static_cast<const uint8_t*>(close) - b);
        const size_t key = MemberAfter(b, n, i);
        if (key != NO_SPLIT) return key;
        i++;
    }
    return NO_SPLIT;
}

/** Read the file, in two halves side by side when it is at least `split_from` bytes. */
void Read(const uint8_t* bytes, size_t size, size_t split_from, ScannedMempool& out)
{
    const size_t split = size >= split_from ? FindSplit(bytes, size) : NO_SPLIT;
    Part first(split == NO_SPLIT ? size : split, size);
    if (split == NO_SPLIT) {
        Reader(bytes, size, first).Scan(NO_SPLIT);
        Joiner({&first}, out).Join();
        return;
    }
    Part second(size - split);
    bool stopped = false;
    bool second_read = false;
    opt::RunBoth(
        true, [&] { stopped = Reader(bytes, size, first).Scan(split); },
        [&] {
            try {
                Reader(bytes, size, second).ScanFrom(split);
                second_read = true;
            } catch (const GiveUp&) {
                // Decided below: a real member key means the sequential read gives up there too.
            }
        });
    // Not stopped: the split was not a top-level key, and the first reader read the whole file.
    const std::vector<Part*> parts = stopped ? std::vector<Part*>{&first, &second} : std::vector<Part*>{&first};
    if (stopped && !second_read) throw GiveUp{};
    Joiner(parts, out).Join();
}

}  // namespace

bool ScanCoreMempool(const uint8_t* bytes, size_t size, ScannedMempool& out, size_t split_from)
{
    // Indices are kept in 32 bits (NO_TXID reserved): a file of 4 GiB or more takes the general path.
    if (size >= NO_TXID) return false;
    out = ScannedMempool{};
    try {
        Read(bytes, size, split_from, out);
        return true;
    } catch (const GiveUp&) {
        return false;
    }
}

FileScan ScanCoreMempoolFile(const std::string& path, ScannedMempool& out, size_t split_from)
{
#ifdef _WIN32
    (void)path;
    (void)out;
    (void)split_from;
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
    // No MAP_POPULATE: on a file in the page cache the kernel maps 16 pages per fault (fault-around),
    // 3.9 ms of faults for 80 MB, shared by the two readers, against 6.2 ms in mmap before either starts.
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);  // the mapping keeps the file
    if (map == MAP_FAILED) return FileScan::NOT_MAPPED;
    const auto* bytes = static_cast<const uint8_t*>(map);
    FileScan result = FileScan::NOT_MAPPED;
    if (!(bytes[0] == 0x1f && bytes[1] == 0x8b)) {
        try {
            result = ScanCoreMempool(bytes, size, out, split_from) ? FileScan::READ : FileScan::GAVE_UP;
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
