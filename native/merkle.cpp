// Merkle roots; see merkle.h.
#include "merkle.h"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common.h"

namespace opt {

namespace {

int HexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/** sha256d of 64-byte nodes with one fetched digest and one context for the whole tree: OpenSSL's
 *  one-shot SHA256() fetches the algorithm on every call, which costs more than the hash itself. */
class PairHasher
{
    std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> m_md{EVP_MD_fetch(nullptr, "SHA256", nullptr), &EVP_MD_free};
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};

    void Hash(const uint8_t* data, size_t size, uint8_t* out)
    {
        unsigned int len = 0;
        if (EVP_DigestInit_ex2(m_ctx.get(), m_md.get(), nullptr) != 1 || EVP_DigestUpdate(m_ctx.get(), data, size) != 1 ||
            EVP_DigestFinal_ex(m_ctx.get(), out, &len) != 1 || len != 32) {
            throw std::runtime_error("SHA-256 failed");
        }
    }

public:
    PairHasher()
    {
        if (!m_md || !m_ctx) throw std::runtime_error("SHA-256 is not available");
    }
    /** sha256d(left || right) into out (which may alias either). */
    void operator()(const Hash256& left, const Hash256& right, Hash256& out)
    {
        uint8_t both[64];
        std::copy(left.begin(), left.end(), both);
        std::copy(right.begin(), right.end(), both + 32);
        uint8_t once[32];
        Hash(both, sizeof both, once);
        Hash(once, sizeof once, out.data());
    }
};

}  // namespace

std::string MerkleRootHex(std::string_view ids_hex)
{
    if (ids_hex.empty() || ids_hex.size() % 64 != 0) {
        throw InputError(ErrorCode::INVALID_ARGUMENT, "merkleRoot: ids must be 64 hex characters each, at least one");
    }
    // Display hex is the internal bytes reversed: byte 31 - k of an id is its k-th hex pair.
    std::vector<Hash256> level(ids_hex.size() / 64);
    for (size_t i = 0; i < level.size(); ++i) {
        for (size_t k = 0; k < 32; ++k) {
            const int hi = HexValue(ids_hex[64 * i + 2 * k]), lo = HexValue(ids_hex[64 * i + 2 * k + 1]);
            if (hi < 0 || lo < 0) throw InputError(ErrorCode::INVALID_ARGUMENT, "merkleRoot: ids must be hex");
            level[i][31 - k] = static_cast<uint8_t>(hi * 16 + lo);
        }
    }
    // Each level in place: node j of the next level is written over node j <= 2j of this one.
    PairHasher hash_pair;
    size_t n = level.size();
    while (n > 1) {
        for (size_t j = 0; 2 * j < n; ++j) {
            const Hash256& left = level[2 * j];
            hash_pair(left, 2 * j + 1 < n ? level[2 * j + 1] : left, level[j]);
        }
        n = (n + 1) / 2;
    }
    static constexpr char DIGITS[] = "0123456789abcdef";
    std::string out(64, '0');
    for (size_t k = 0; k < 32; ++k) {
        out[2 * k] = DIGITS[level[0][31 - k] >> 4];
        out[2 * k + 1] = DIGITS[level[0][31 - k] & 15];
    }
    return out;
}

}  // namespace opt
