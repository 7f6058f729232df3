// The N-API edge of the snapshot reader: bytes in, typed arrays out (see snapshot_wrap.h).
#include "snapshot_wrap.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "napi_guard.h"
#include "snapshot_reader.h"

namespace marshal {

namespace {

/** The txids' bytes as an ArrayBuffer that owns them (moved to the heap, freed by its finalizer): no
 *  copy of n x 64 bytes, nor the page faults of fresh memory (issue 25). Where the runtime allows no
 *  external buffers (napi_no_external_buffers_allowed), a copy. Not for the columns: Node does not
 *  detach an external buffer on a transfer (it copies it), and theirs move to worker threads. */
Napi::ArrayBuffer OwnedBytes(Napi::Env env, std::string&& bytes)
{
    const size_t size = bytes.size();
    if (size > 0) {
        auto* owned = new std::string(std::move(bytes));
        napi_value ab;
        const napi_status status = napi_create_external_arraybuffer(
            env, owned->data(), size, [](napi_env, void*, void* hint) { delete static_cast<std::string*>(hint); }, owned, &ab);
        if (status == napi_ok) return {env, ab};
        bytes = std::move(*owned);  // not created: the finalizer will not run
        delete owned;
    }
    auto copy = Napi::ArrayBuffer::New(env, size);
    if (size > 0) std::memcpy(copy.Data(), bytes.data(), size);
    return copy;
}

/** A typed array holding a copy of `v`, over its own (transferable) ArrayBuffer. */
template <typename T>
Napi::TypedArrayOf<T> Column(Napi::Env env, const std::vector<T>& v)
{
    auto arr = Napi::TypedArrayOf<T>::New(env, v.size());
    if (!v.empty()) std::memcpy(arr.Data(), v.data(), v.size() * sizeof(T));
    return arr;
}

/** The columns as the JavaScript object nativeScan.ts reads; `m.txids` is moved out. */
Napi::Value ScanObject(Napi::Env env, snapshot::ScannedMempool& m)
{
    Napi::Object out = Napi::Object::New(env);
    // The txids' bytes (n x 64 ASCII hex): turned into strings only by a caller that reads them.
    const size_t txid_bytes = m.txids.size();
    out.Set("txids", Napi::Uint8Array::New(env, txid_bytes, OwnedBytes(env, std::move(m.txids)), 0));
    out.Set("feeSat", Column(env, m.fee_sat));
    out.Set("baseFeeSat", Column(env, m.base_fee_sat));
    out.Set("weightWu", Column(env, m.weight_wu));
    out.Set("sigopCost", Column(env, m.sigop_cost));
    out.Set("parentOffsets", Column(env, m.parent_offsets));
    out.Set("parentIndices", Column(env, m.parent_indices));
    out.Set("txidRank", Column(env, m.txid_rank));
    Napi::Object stats = Napi::Object::New(env);
    stats.Set("txCount", m.stats.tx_count);
    stats.Set("droppedParents", m.stats.dropped_parents);
    stats.Set("derivedSigops", m.stats.derived_sigops);
    stats.Set("weightFromVsize", m.stats.weight_from_vsize);
    stats.Set("clampedFees", m.stats.clamped_fees);
    out.Set("stats", stats);
    return out;
}

/** The optional `splitFromBytes` argument (tests pass 0 to read every file in two halves). */
size_t SplitFrom(const Napi::Value& v)
{
    if (v.IsUndefined()) return snapshot::SPLIT_FROM_BYTES;
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0)) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "splitFromBytes must be a number >= 0");
    return d >= 9007199254740992.0 ? SIZE_MAX : static_cast<size_t>(d);
}

}  // namespace

Napi::Value ScanCoreMempoolJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
        if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
            throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "scanCoreMempool expects a Uint8Array (the file's bytes)");
        }
        const auto bytes = info[0].As<Napi::Uint8Array>();
        snapshot::ScannedMempool m;
        if (!snapshot::ScanCoreMempool(bytes.Data(), bytes.ByteLength(), m, SplitFrom(info[1]))) return env.Undefined();
        return ScanObject(env, m);
    });
}

Napi::Value ScanCoreMempoolFileJs(const Napi::CallbackInfo& info)
{
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
        if (!info[0].IsString()) throw opt::InputError(opt::ErrorCode::INVALID_ARGUMENT, "scanCoreMempoolFile expects a path");
        snapshot::ScannedMempool m;
        switch (snapshot::ScanCoreMempoolFile(info[0].As<Napi::String>().Utf8Value(), m, SplitFrom(info[1]))) {
        case snapshot::FileScan::READ: return ScanObject(env, m);
        case snapshot::FileScan::GAVE_UP: return env.Undefined();
        case snapshot::FileScan::NOT_MAPPED: break;
        }
        return env.Null();
    });
}

}  // namespace marshal
