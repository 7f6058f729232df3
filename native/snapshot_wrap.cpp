// The N-API edge of the snapshot reader: bytes in, typed arrays out (see snapshot_wrap.h).
#include "snapshot_wrap.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "napi_guard.h"
#include "snapshot_reader.h"

namespace marshal {

namespace {

/** A typed array holding a copy of `v` (one memcpy: the columns are a few MB at most). */
template <typename T>
Napi::TypedArrayOf<T> Column(Napi::Env env, const std::vector<T>& v)
{
    auto arr = Napi::TypedArrayOf<T>::New(env, v.size());
    if (!v.empty()) std::memcpy(arr.Data(), v.data(), v.size() * sizeof(T));
    return arr;
}

/** The columns as the JavaScript object nativeScan.ts reads. */
Napi::Value ScanObject(Napi::Env env, const snapshot::ScannedMempool& m)
{
    Napi::Object out = Napi::Object::New(env);
    napi_value txids;
    if (napi_create_string_latin1(env, m.txids.data(), m.txids.size(), &txids) != napi_ok) return env.Null();
    out.Set("txids", txids);
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
