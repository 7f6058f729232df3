// The merkle root (merkle.h) as the JavaScript function `merkleRoot`.
#pragma once

#include <napi.h>

namespace marshal {

/** merkleRoot(idsHex: string): the root (display hex) of ids in display hex, 64 characters each. */
Napi::Value MerkleRootJs(const Napi::CallbackInfo& info);

}  // namespace marshal
