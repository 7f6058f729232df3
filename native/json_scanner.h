// The validating JSON byte reader of the snapshot reader (snapshot_reader.cpp): the caller walks the
// structure it expects and skips the rest, which is still checked to be valid JSON (RFC 8259);
// anything else throws GiveUp. A port of src/optimizer/snapshot/jsonBytes.ts, line for line, plus
// SkipMember (SkipValue with its common cases first, same result).
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace snapshot::scan {

/** Thrown inside the scan to give up; never escapes ScanCoreMempool. */
struct GiveUp {
};

inline constexpr uint8_t QUOTE = 0x22;
inline constexpr uint8_t BACKSLASH = 0x5c;
inline constexpr int MAX_DEPTH = 64;

/** Per byte: 0 = not hex, 1 = digit or lowercase hex, 2 = uppercase hex (jsonBytes.ts HEX). */
inline constexpr std::array<uint8_t, 256> HEX = [] {
    std::array<uint8_t, 256> t{};
    for (int c = '0'; c <= '9'; c++) t[c] = 1;
    for (int c = 'a'; c <= 'f'; c++) t[c] = 1;
    for (int c = 'A'; c <= 'F'; c++) t[c] = 2;
    return t;
}();

/** Bytes that end a run of plain string content: the quote, the backslash, control characters. */
inline constexpr std::array<bool, 256> STRING_STOP = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x20; c++) t[c] = true;
    t[QUOTE] = t[BACKSLASH] = true;
    return t;
}();

/** 10^k, exact as doubles for k <= 22 (Clinger's fast path: m / 10^k is then correctly rounded). */
inline constexpr std::array<double, 23> POW10 = [] {
    std::array<double, 23> t{};
    double v = 1;
    for (double& x : t) {
        x = v;
        v *= 10;
    }
    return t;
}();

inline bool IsDigit(uint8_t c) { return c >= '0' && c <= '9'; }

/** Whether all eight bytes of `x` are hex characters (HEX[c] != 0), with no table: per byte, as long
 *  as no byte has its high bit set (checked first), (c | 0x80) - k has its high bit set iff c >= k,
 *  and (k | 0x80) - c iff c <= k, with no borrow between bytes. */
inline bool AllHex(uint64_t x)
{
    constexpr uint64_t ONES = 0x0101010101010101ULL;
    constexpr uint64_t H = 0x8080808080808080ULL;
    auto at_least = [](uint64_t v, uint8_t k) { return ((v | H) - ONES * k) & H; };
    auto at_most = [](uint64_t v, uint8_t k) { return ((ONES * k | H) - v) & H; };
    const uint64_t folded = x | ONES * 0x20;  // 'A'-'F' to 'a'-'f'; no other byte lands there
    const uint64_t digit = at_least(x, '0') & at_most(x, '9');
    const uint64_t letter = at_least(folded, 'a') & at_most(folded, 'f');
    return (x & H) == 0 && (digit | letter) == H;
}

/** The fields read, by name (KEY_NAMES in coreMempoolScan.ts); OTHER for any other key. */
enum class Key : uint8_t { FEES,
                           FEE,
                           MODIFIEDFEE,
                           VSIZE_ADJUSTED,
                           VSIZE,
                           SIZE,
                           VSIZE_BIP141,
                           WEIGHT,
                           DEPENDS,
                           BASE,
                           MODIFIED,
                           OTHER };

/** A validating reader that reads what its caller asks for and checks the rest (jsonBytes.ts Scanner). */
class Scanner
{
public:
    const uint8_t* const b;
    const size_t n;
    size_t p{0};
    /** Whether the last string read had an escape. */
    bool escaped{false};

    Scanner(const uint8_t* bytes, size_t size) : b(bytes), n(size) {}

    /** The byte at i, 0 past the end (0 is valid nowhere, as `undefined` in the TypeScript). */
    uint8_t At(size_t i) const { return i < n ? b[i] : 0; }

    void Ws()
    {
        // Compact JSON has none: one test for the common case (every whitespace byte is <= 0x20).
        if (p < n && b[p] > 0x20) return;
        while (p < n && (b[p] == 0x20 || b[p] == 0x0a || b[p] == 0x0d || b[p] == 0x09)) p++;
    }

    /** Skip whitespace, then require byte c. */
    void Expect(uint8_t c)
    {
        Ws();
        if (At(p) != c) throw GiveUp{};
        p++;
    }

    /** Moves past string content that needs no look: eight bytes at a time while none is a quote, a
     *  backslash or a control character (SWAR: exact "any byte" tests), then byte by byte. */
    void SkipPlain()
    {
#if defined(__SSE2__)
        // Sixteen bytes at a time where SSE2 is there (every x86-64): c <= 0x1f iff min(c, 0x1f) == c.
        const __m128i quote = _mm_set1_epi8(QUOTE);
        const __m128i backslash = _mm_set1_epi8(BACKSLASH);
        const __m128i control = _mm_set1_epi8(0x1f);
        while (p + 16 <= n) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + p));
            const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), _mm_cmpeq_epi8(_mm_min_epu8(x, control), x));
            const auto mask = static_cast<unsigned>(_mm_movemask_epi8(stop));
            if (mask != 0) {
                p += static_cast<size_t>(__builtin_ctz(mask));
                return;
            }
            p += 16;
        }
#endif
        constexpr uint64_t ONES = 0x0101010101010101ULL;
        constexpr uint64_t HIGHS = 0x8080808080808080ULL;
        while (p + 8 <= n) {
            uint64_t x;
            std::memcpy(&x, b + p, 8);
            const uint64_t q = x ^ (ONES * QUOTE);
            const uint64_t bs = x ^ (ONES * BACKSLASH);
            const uint64_t stop = (((q - ONES) & ~q) | ((bs - ONES) & ~bs) | ((x - ONES * 0x20) & ~x)) & HIGHS;
            if (stop != 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                // The lowest flag is exact (a borrow can only flag bytes above a true match).
                p += static_cast<size_t>(__builtin_ctzll(stop)) >> 3;
                return;
#else
                break;
#endif
            }
            p += 8;
        }
        while (p < n && !STRING_STOP[b[p]]) p++;
    }

    /** After an opening quote: moves past the closing one and returns its position. */
    size_t StringEnd()
    {
        escaped = false;
        for (;;) {
            SkipPlain();
            if (p >= n) throw GiveUp{};
            const uint8_t c = b[p];
            if (c == QUOTE) break;
            if (c != BACKSLASH) throw GiveUp{};  // a raw control character
            escaped = true;
            const uint8_t e = At(p + 1);
            if (e == 'u') {
                for (size_t k = 2; k < 6; k++)
                    if (!HEX[At(p + k)]) throw GiveUp{};
                p += 6;
            } else if (e == QUOTE || e == BACKSLASH || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                p += 2;
            } else {
                throw GiveUp{};
            }
        }
        const size_t end = p;
        p++;
        return end;
    }

    /** An object key (whitespace, the quoted key, the colon): which of the fields read it names. */
    Key ReadKey()
    {
        Expect(QUOTE);
        const size_t start = p;
        const size_t end = StringEnd();
        if (escaped) throw GiveUp{};  // could spell one of our keys
        Expect(':');
        const char* k = reinterpret_cast<const char*>(b + start);
        auto is = [&](const char* name) { return std::memcmp(k, name, end - start) == 0; };
        switch (end - start) {
        case 3: return is("fee") ? Key::FEE : Key::OTHER;
        case 4:
            if (is("fees")) return Key::FEES;
            if (is("size")) return Key::SIZE;
            return is("base") ? Key::BASE : Key::OTHER;
        case 5: return is("vsize") ? Key::VSIZE : Key::OTHER;
        case 6: return is("weight") ? Key::WEIGHT : Key::OTHER;
        case 7: return is("depends") ? Key::DEPENDS : Key::OTHER;
        case 8: return is("modified") ? Key::MODIFIED : Key::OTHER;
        case 11: return is("modifiedfee") ? Key::MODIFIEDFEE : Key::OTHER;
        case 12: return is("vsize_bip141") ? Key::VSIZE_BIP141 : Key::OTHER;
        case 14: return is("vsize_adjusted") ? Key::VSIZE_ADJUSTED : Key::OTHER;
        default: return Key::OTHER;
        }
    }

    /** A JSON number, read exactly as JSON.parse reads it when `needed` (one out of the double range
     *  then gives up), else only checked. */
    double Number(bool needed = true)
    {
        const size_t start = p;
        const bool negative = At(p) == '-';
        if (negative) p++;
        // The digits as an integer (wraps past 19 digits, but then the slow path below reads the text):
        // exact up to 15 digits, as the double sum it replaces.
        uint64_t m = 0;
        size_t digits = 0;
        size_t fraction = 0;
        uint8_t c = At(p);
        if (c == '0') {
            c = At(++p);
            if (IsDigit(c)) throw GiveUp{};
        } else if (c > '0' && c <= '9') {
            for (; IsDigit(c); c = At(++p), digits++) m = m * 10 + (c - '0');
        } else {
            throw GiveUp{};
        }
        if (c == '.') {
            c = At(++p);
            if (!IsDigit(c)) throw GiveUp{};
            for (; IsDigit(c); c = At(++p), digits++, fraction++) m = m * 10 + (c - '0');
        }
        bool exponent = false;
        if (c == 'e' || c == 'E') {
            exponent = true;
            c = At(++p);
            if (c == '+' || c == '-') c = At(++p);
            if (!IsDigit(c)) throw GiveUp{};
            while (IsDigit(c)) c = At(++p);
        }
        if (!needed) return 0;
        if (exponent || digits > 15 || fraction > 22) {
            // Correctly rounded, as Number(text); std::from_chars does not take a leading '+', JSON has none.
            double v = 0;
            const auto* first = reinterpret_cast<const char*>(b + start);
            const auto* last = reinterpret_cast<const char*>(b + p);
            const auto r = std::from_chars(first, last, v);
            if (r.ec != std::errc{} || r.ptr != last) throw GiveUp{};  // overflow or underflow: the general path
            return v;
        }
        const auto mantissa = static_cast<double>(m);
        const double v = fraction == 0 ? mantissa : mantissa / POW10[fraction];
        return negative ? -v : v;
    }

    /** A number, or NaN for any other value (skipped). */
    double NumberOrNaN()
    {
        Ws();
        const uint8_t c = At(p);
        if (c == '-' || IsDigit(c)) return Number();
        SkipValue(0);
        return NAN;
    }

    /** Any JSON value, checked and skipped. */
    void SkipValue(int depth)
    {
        if (depth > MAX_DEPTH) throw GiveUp{};
        Ws();
        const uint8_t c = At(p);
        if (c == QUOTE) {
            p++;
            StringEnd();
        } else if (c == '{' || c == '[') {
            const uint8_t close = c + 2;  // '}' or ']'
            p++;
            Ws();
            if (At(p) == close) {
                p++;
                return;
            }
            for (;;) {
                if (c == '{') {
                    Expect(QUOTE);
                    StringEnd();
                    Expect(':');
                }
                SkipMember(depth + 1);
                Ws();
                const uint8_t d = At(p++);
                if (d == close) return;
                if (d != ',') throw GiveUp{};
            }
        } else if (c == '-' || IsDigit(c)) {
            Number(false);
        } else {
            Literal();
        }
    }

    /** SkipValue(depth) with a Core entry's common cases first, read as SkipValue reads them: an
     *  integer followed by `,` or `}` (its digits, no call), a string (straight to its end). */
    void SkipMember(int depth)
    {
        if (depth > MAX_DEPTH) throw GiveUp{};
        const uint8_t c = At(p);
        if (c >= '1' && c <= '9') {
            size_t q = p + 1;
            while (q < n && IsDigit(b[q])) q++;
            if (q < n && (b[q] == ',' || b[q] == '}')) {
                p = q;
                return;
            }
        } else if (c == QUOTE) {
            p++;
            StringEnd();
            return;
        }
        SkipValue(depth);
    }

    /** Whether `word` is next; if so, moves past it. */
    bool Take(const char* word)
    {
        const size_t len = std::strlen(word);
        if (p > n || n - p < len || std::memcmp(b + p, word, len) != 0) return false;
        p += len;
        return true;
    }

    void Literal()
    {
        if (!Take("true") && !Take("false") && !Take("null")) throw GiveUp{};
    }

    /** After a member or element: true when another follows (`,`), false at `close`; else give up. */
    bool Another(uint8_t close)
    {
        Ws();
        const uint8_t d = At(p++);
        if (d == close) return false;
        if (d != ',') throw GiveUp{};
        return true;
    }

    /** After `{` or `[`: true when the object or array has a first member (else moves past `close`). */
    bool Opens(uint8_t close)
    {
        Ws();
        if (At(p) != close) return true;
        p++;
        return false;
    }
};

}  // namespace snapshot::scan
