// Shared primitives of the template optimizer: exact fee rates, input errors, the RNG, checks.
//
// Invariants:
// - Fees are integer satoshis in int64_t (|fee| < 2^53), sizes are weight units in int64_t (> 0
//   for every non-empty set). Fee rates are never divided: two rates compare by cross-multiplying
//   in 128 bits, so 2^53 * 2^63 cannot overflow.
// - Only the N-API edge (addon.cpp, marshal.*, engine_wrap.*, napi_guard.h) includes napi.h. Bad
//   input is reported by throwing InputError (caught once, by Guard in napi_guard.h); OPT_ASSUME
//   is for internal invariants only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace opt {

/** Why an input was refused. The names are the JavaScript error codes (ERR_OPTIMIZER_<NAME>). */
enum class ErrorCode : uint8_t {
    INVALID_ARGUMENT,
    LENGTH_MISMATCH,
    INDEX_OUT_OF_RANGE,
    CYCLE,
    INVALID_FEE,
    INVALID_WEIGHT,
    INVALID_RANK,
    INVALID_WARM_ORDER,
    INTERNAL,
};

/** The stable name of an error code, e.g. "CYCLE". Complexity: O(1). */
const char* ErrorCodeName(ErrorCode code) noexcept;

/** A refused input: says what was asked and what was wrong. */
class InputError : public std::runtime_error
{
    ErrorCode m_code;

public:
    InputError(ErrorCode code, const std::string& message) : std::runtime_error(message), m_code(code) {}
    ErrorCode Code() const noexcept { return m_code; }
};

/** Internal invariant check. Debug builds (OPTIMIZER_DEBUG) abort; release builds compile it out.
 *  Never used to validate input. */
#ifdef OPTIMIZER_DEBUG
#define OPT_ASSUME(expr) ((expr) ? (void)0 : ::opt::AssumeFailed(#expr, __FILE__, __LINE__))
[[noreturn]] void AssumeFailed(const char* expr, const char* file, int line) noexcept;
#else
#define OPT_ASSUME(expr) ((void)0)
#endif

/** A fee and a size (weight units) of a transaction or a set of them; its fee rate is fee/size. */
struct FeeFrac {
    int64_t fee{0};
    int64_t size{0};

    FeeFrac& operator+=(const FeeFrac& o) noexcept
    {
        fee += o.fee;
        size += o.size;
        return *this;
    }
    FeeFrac& operator-=(const FeeFrac& o) noexcept
    {
        fee -= o.fee;
        size -= o.size;
        return *this;
    }
    friend FeeFrac operator+(FeeFrac a, const FeeFrac& b) noexcept { return a += b; }
    friend FeeFrac operator-(FeeFrac a, const FeeFrac& b) noexcept { return a -= b; }
    friend bool operator==(const FeeFrac&, const FeeFrac&) noexcept = default;
};

/** Compare the fee rates a.fee/a.size and b.fee/b.size (both sizes > 0) exactly.
 *  Returns -1, 0 or 1. Complexity: O(1). */
inline int CompareFeerate(const FeeFrac& a, const FeeFrac& b) noexcept
{
    const __int128 l = static_cast<__int128>(a.fee) * b.size;
    const __int128 r = static_cast<__int128>(b.fee) * a.size;
    return (l > r) - (l < r);
}

/** floor(fee * num / den) for fee >= 0, num >= 0, den > 0, computed in 128 bits. */
inline int64_t MulDivFloor(int64_t fee, int64_t num, int64_t den) noexcept
{
    // Most products fit in 64 bits (a chunk's fee times a block's room): then one 64-bit division,
    // the same quotient as libgcc's 128-bit one (__divti3), which the tail search called per node.
    int64_t product = 0;
    if (!__builtin_mul_overflow(fee, num, &product)) return product / den;
    return static_cast<int64_t>(static_cast<__int128>(fee) * num / den);
}

/** A small, fast, seedable RNG (xoshiro256**, seeded through splitmix64). Deterministic: the same
 *  seed gives the same sequence on every machine. */
class Rng
{
    uint64_t m_s[4];

    static uint64_t SplitMix(uint64_t& x) noexcept
    {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    static uint64_t Rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

public:
    explicit Rng(uint64_t seed) noexcept { Seed(seed); }
    void Seed(uint64_t seed) noexcept
    {
        for (auto& s : m_s) s = SplitMix(seed);
    }
    uint64_t Next() noexcept
    {
        const uint64_t result = Rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = Rotl(m_s[3], 45);
        return result;
    }
    /** Uniform in [0, n), n > 0 (multiply-shift; the bias is below 2^-32 for n < 2^32). */
    uint64_t Range(uint64_t n) noexcept { return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }
    bool Bool() noexcept { return Next() >> 63; }
};

/** Mix two 64-bit values into a seed (splitmix64 finalizer). */
inline uint64_t MixSeed(uint64_t a, uint64_t b) noexcept
{
    uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace opt
