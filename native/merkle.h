// Bitcoin's merkle root (Core's ComputeMerkleRoot: sha256d of each pair of nodes, the last node
// paired with itself on an odd level), for the witness commitment of a published template. The
// hashing is OpenSSL's SHA-256 (EVP), the copy Node is linked with (its headers come with Node's).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace opt {

using Hash256 = std::array<uint8_t, 32>;

/** The root of ids given in display hex (byte-reversed, as RPCs print them), 64 characters each,
 *  concatenated; the root in display hex too. Throws InputError on an empty list, a length not a
 *  multiple of 64 or a non-hex character. Complexity: O(n) hashes of 64 bytes. */
std::string MerkleRootHex(std::string_view ids_hex);

}  // namespace opt
