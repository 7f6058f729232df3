// The merkle root (merkle.h) as the JavaScript function `merkleRoot`.
#pragma once

#include <napi.h>

namespace marshal {

/** merkleRoot(idsHex: string | Uint8Array): the root (display hex) of ids in display hex, 64
 *  characters (or bytes of those characters) each. */
Napi::Value MerkleRootJs(const Napi::CallbackInfo& info);

}  // namespace marshal
