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
        // The ids' hex as bytes (read in place) or as a string (copied out of V8 first).
        if (info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array) {
            const auto bytes = info[0].As<Napi::Uint8Array>();
            return Napi::String::New(env, opt::MerkleRootHex({reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength()}));
        }
        if (!info[0].IsString()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "merkleRoot expects hex ids (a string or a Uint8Array)");
        const std::string ids = info[0].As<Napi::String>().Utf8Value();
        return Napi::String::New(env, opt::MerkleRootHex(ids));
    });
}

}  // namespace marshal
