// Fixed-width bit sets for cluster-local transaction sets.
//
// Invariants:
// - BitSet<W> holds 64*W bits in W words; bit i is word i/64, bit i%64. Unused high bits stay 0
//   because every constructor and operation only sets bits below the positions it is given.
// - Iteration visits set bits in increasing order and iterates over a copy, so the set may be
//   modified inside the loop body without affecting the iteration.
// W = 1 compiles to plain uint64_t operations (the hot case: Core clusters have at most 64 txs).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace opt {

template <unsigned W>
class BitSet
{
    std::array<uint64_t, W> m_words{};

public:
    static constexpr unsigned SIZE = 64 * W;

    constexpr BitSet() noexcept = default;

    /** The set {i}. Complexity: O(W). */
    static BitSet Singleton(unsigned i) noexcept
    {
        BitSet r;
        r.Set(i);
        return r;
    }
    /** The set {0, ..., n-1}, n <= SIZE. Complexity: O(W). */
    static BitSet Fill(unsigned n) noexcept
    {
        BitSet r;
        for (unsigned w = 0; w < W; ++w) {
            if (n >= 64 * (w + 1)) {
                r.m_words[w] = ~uint64_t{0};
            } else if (n > 64 * w) {
                r.m_words[w] = (uint64_t{1} << (n - 64 * w)) - 1;
            }
        }
        return r;
    }

    void Set(unsigned i) noexcept { m_words[i / 64] |= uint64_t{1} << (i % 64); }
    void Reset(unsigned i) noexcept { m_words[i / 64] &= ~(uint64_t{1} << (i % 64)); }
    bool operator[](unsigned i) const noexcept { return (m_words[i / 64] >> (i % 64)) & 1; }

    bool Any() const noexcept
    {
        for (auto w : m_words)
            if (w) return true;
        return false;
    }
    bool None() const noexcept { return !Any(); }
    unsigned Count() const noexcept
    {
        unsigned c = 0;
        for (auto w : m_words) c += std::popcount(w);
        return c;
    }
    /** Lowest set bit; the set must be non-empty. */
    unsigned First() const noexcept
    {
        for (unsigned w = 0; w < W; ++w) {
            if (m_words[w]) return 64 * w + std::countr_zero(m_words[w]);
        }
        return SIZE;
    }

    BitSet& operator|=(const BitSet& o) noexcept
    {
        for (unsigned w = 0; w < W; ++w) m_words[w] |= o.m_words[w];
        return *this;
    }
    BitSet& operator&=(const BitSet& o) noexcept
    {
        for (unsigned w = 0; w < W; ++w) m_words[w] &= o.m_words[w];
        return *this;
    }
    BitSet& operator-=(const BitSet& o) noexcept
    {
        for (unsigned w = 0; w < W; ++w) m_words[w] &= ~o.m_words[w];
        return *this;
    }
    friend BitSet operator|(BitSet a, const BitSet& b) noexcept { return a |= b; }
    friend BitSet operator&(BitSet a, const BitSet& b) noexcept { return a &= b; }
    friend BitSet operator-(BitSet a, const BitSet& b) noexcept { return a -= b; }
    friend bool operator==(const BitSet&, const BitSet&) noexcept = default;

    bool Overlaps(const BitSet& o) const noexcept
    {
        for (unsigned w = 0; w < W; ++w)
            if (m_words[w] & o.m_words[w]) return true;
        return false;
    }
    bool IsSubsetOf(const BitSet& o) const noexcept
    {
        for (unsigned w = 0; w < W; ++w)
            if (m_words[w] & ~o.m_words[w]) return false;
        return true;
    }

    /** Forward iterator over set bits; holds its own copy of the words. */
    class Iterator
    {
        std::array<uint64_t, W> m_left;
        unsigned m_word;

        void Skip() noexcept
        {
            while (m_word < W && m_left[m_word] == 0) ++m_word;
        }

    public:
        Iterator(const std::array<uint64_t, W>& words, bool end) noexcept : m_left(words), m_word(end ? W : 0)
        {
            if (!end) Skip();
        }
        unsigned operator*() const noexcept { return 64 * m_word + std::countr_zero(m_left[m_word]); }
        Iterator& operator++() noexcept
        {
            m_left[m_word] &= m_left[m_word] - 1;
            Skip();
            return *this;
        }
        bool operator!=(const Iterator& o) const noexcept
        {
            if (m_word != o.m_word) return true;
            return m_word < W && m_left[m_word] != o.m_left[m_word];
        }
    };
    Iterator begin() const noexcept { return Iterator(m_words, false); }
    Iterator end() const noexcept { return Iterator(m_words, true); }
};

}  // namespace opt
