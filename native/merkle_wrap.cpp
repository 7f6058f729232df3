// The N-API edge of the merkle root (see merkle_wrap.h).
#include "merkle_wrap.h"

#include <string>

#include "merkle.h"
#include "napi_guard.h"

namespace marshal {

Napi::Value MerkleRootJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
        if (!info[0].IsString()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "merkleRoot expects a string of hex ids");
        const std::string ids = info[0].As<Napi::String>().Utf8Value();
        return Napi::String::New(env, opt::MerkleRootHex(ids));
    });
}

}  // namespace marshal
