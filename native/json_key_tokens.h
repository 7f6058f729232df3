// Object keys read by prediction (snapshot_reader.cpp): Core writes every entry's keys in the same
// order, so the reader remembers each key token of the last entry, `"name":` exactly as it was in
// the file, and checks the next entry's bytes against the one expected there with four masked
// 8-byte compares, instead of finding the string's end, checking it and naming the key (most of
// the work per key, issue 25). A token that matches is read as Scanner::ReadKey would read those
// very bytes: a quote, content with no quote, backslash or control character (it was read and
// checked when learned), the closing quote, the colon. Anything else is read by ReadKey and learned.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "json_scanner.h"

namespace snapshot::scan {

class KeyTokens
{
public:
    /** Longest token remembered: `"` + 29 bytes + `":`. */
    static constexpr size_t MAX_TOKEN = 32;
    /** Keys remembered per object (Core's entries have about 20). */
    static constexpr size_t SLOTS = 32;

    /** Before an object's first key. */
    void Restart() { m_next = 0; }

    /** The key at s.p: by prediction when its bytes are the token expected there, else by ReadKey
     *  (learned for the next object when it is one contiguous token). Moves past the colon. */
    Key Read(Scanner& s)
    {
        const size_t slot = m_next++;
        // An empty slot (len 0: nothing learned there yet) matches nothing; any learned token is a
        // key token, whichever object it was learned in.
        if (slot < SLOTS && m_tokens[slot].len != 0 && s.n - s.p >= MAX_TOKEN && Matches(m_tokens[slot], s.b + s.p)) {
            s.p += m_tokens[slot].len;
            return m_tokens[slot].key;
        }
        s.Ws();
        const size_t start = s.p;
        const Key key = s.ReadKey();
        const size_t len = s.p - start;
        // Contiguous: the byte before the colon is the closing quote (ReadKey allows whitespace there).
        if (slot < SLOTS && len <= MAX_TOKEN && s.b[s.p - 2] == QUOTE) Learn(m_tokens[slot], s.b + start, len, key);
        return key;
    }

private:
    struct Token {
        std::array<uint64_t, MAX_TOKEN / 8> words{};
        std::array<uint64_t, MAX_TOKEN / 8> masks{};
        size_t len{0};
        Key key{Key::OTHER};
    };

    static bool Matches(const Token& t, const uint8_t* at)
    {
        uint64_t diff = 0;
        for (size_t w = 0; w < MAX_TOKEN / 8; w++) {
            uint64_t x;
            std::memcpy(&x, at + 8 * w, 8);
            diff |= (x ^ t.words[w]) & t.masks[w];
        }
        return diff == 0;
    }

    static void Learn(Token& t, const uint8_t* bytes, size_t len, Key key)
    {
        uint8_t padded[MAX_TOKEN] = {};
        uint8_t mask[MAX_TOKEN] = {};
        std::memcpy(padded, bytes, len);
        std::memset(mask, 0xff, len);
        std::memcpy(t.words.data(), padded, MAX_TOKEN);
        std::memcpy(t.masks.data(), mask, MAX_TOKEN);
        t.len = len;
        t.key = key;
    }

    std::array<Token, SLOTS> m_tokens{};
    size_t m_next{0};
};

}  // namespace snapshot::scan
